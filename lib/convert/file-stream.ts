/**
 * A response body from an open file handle whose directory is already gone (convert.ts):
 * closing the handle is the whole cleanup, done once on the last byte, a cancel, an error or
 * the request's abort.
 */
import type { FileHandle } from "node:fs/promises";

export const READ_CHUNK_BYTES = 256 * 1024;

/** Exactly `size` bytes (the Content-Length sent): a shorter file errors the stream rather than send fewer bytes. */
export function streamFileHandle(file: FileHandle, size: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let position = 0;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      signal?.removeEventListener("abort", onAbort);
      await file.close().catch(() => undefined); // already closed or never readable: nothing left to free
    })();
    return closed;
  };
  const onAbort = (): void => void close();
  if (signal?.aborted) void close();
  else signal?.addEventListener("abort", onAbort, { once: true });

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const want = Math.min(READ_CHUNK_BYTES, size - position);
        if (want <= 0) {
          await close();
          controller.close();
          return;
        }
        let bytesRead: number;
        const buffer = Buffer.allocUnsafe(want);
        try {
          if (closed) throw new Error("The response was aborted.");
          ({ bytesRead } = await file.read(buffer, 0, want, position));
          if (bytesRead === 0) throw new Error(`The converted file ended after ${position} of ${size} bytes.`);
        } catch (error) {
          await close();
          controller.error(error);
          return;
        }
        position += bytesRead;
        controller.enqueue(buffer.subarray(0, bytesRead));
        if (position >= size) {
          await close();
          controller.close();
        }
      },
      async cancel() {
        await close();
      },
    },
    // Read only when the consumer asks: nothing is buffered ahead of a slow client.
    { highWaterMark: 0 },
  );
}
