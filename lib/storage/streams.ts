/** Small stream helpers shared by the remote adapters. */
import { Readable } from "node:stream";

/** At most `length` bytes: a server that sends more (s3rver answers `bytes=0-0` with everything) must not corrupt the response. */
export function limitBytes(source: Readable, length: number): Readable {
  async function* take(): AsyncGenerator<Buffer> {
    let left = length;
    try {
      if (left <= 0) return;
      for await (const chunk of source) {
        const buffer = chunk as Buffer;
        const piece = buffer.length > left ? buffer.subarray(0, left) : buffer;
        left -= piece.length;
        yield piece;
        if (left <= 0) return;
      }
    } finally {
      source.destroy();
    }
  }
  return Readable.from(take(), { objectMode: false });
}

/** `bytes 0-9/100` → {start: 0, end: 9, total: 100}; `bytes *\/100` → total only. */
export function parseContentRange(value: string | null | undefined): { start?: number; end?: number; total?: number } {
  const match = value ? /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i.exec(value) : null;
  if (!match) return {};
  return {
    start: match[1] === undefined ? undefined : Number(match[1]),
    end: match[2] === undefined ? undefined : Number(match[2]),
    total: match[3] === "*" ? undefined : Number(match[3]),
  };
}
