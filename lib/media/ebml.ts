/** Reading EBML (Matroska, WebM). What does not parse throws, which callers read as "not the simple case". */
import { crc32 } from "node:zlib";
import { need } from "./mp4-probe";

/** An element: its ID, where it starts, where its data starts, and its data size (null: unknown, "until the parent ends"). */
export type Element = { id: number; start: number; dataStart: number; size: number | null };

/** EBML variable-length integer at `at`: its length and value; `keepMarker` for IDs. Null for all ones (unknown size). */
export function vint(buf: Buffer, at: number, maxLength: number, keepMarker: boolean): { length: number; value: number | null } {
  need(at < buf.length, "element header past the end");
  const first = buf[at];
  const length = first === 0 ? 9 : Math.clz32(first) - 23;
  need(length <= maxLength && at + length <= buf.length, "bad variable-length integer");
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + buf[at + i];
    allOnes &&= buf[at + i] === 0xff;
  }
  if (!keepMarker && allOnes) return { length, value: null };
  need(value <= Number.MAX_SAFE_INTEGER, "size over 2^53");
  return { length, value };
}

/** The element header at `at` in `buf`, whose byte 0 is at `offset` in the file; and where its data ends in `buf` (unknown size: null). */
export function headerIn(buf: Buffer, at: number, offset = 0): [Element, number | null] {
  const id = vint(buf, at, 4, true);
  const size = vint(buf, at + id.length, 8, false);
  const dataAt = at + id.length + size.length;
  return [
    { id: id.value!, start: offset + at, dataStart: offset + dataAt, size: size.value },
    size.value === null ? null : dataAt + size.value,
  ];
}

/** The children of a master element whose data is `buf[from, to)`: known sizes, laid end to end. */
export function children(buf: Buffer, from = 0, to = buf.length): { id: number; data: Buffer }[] {
  const out: { id: number; data: Buffer }[] = [];
  for (let at = from; at < to; ) {
    const [el, end] = headerIn(buf, at);
    need(end !== null && end <= to, "child element overruns its parent");
    out.push({ id: el.id, data: buf.subarray(el.dataStart, end!) });
    at = end!;
  }
  return out;
}

/**
 * A master's CRC-32 element (its first child, 4 bytes, little-endian) against the rest of its
 * data. ffmpeg checks it by default and skips an element that fails: such a file is ffprobe's.
 */
export function crcHolds(data: Buffer): boolean {
  if (data.length < 6 || data[0] !== 0xbf || data[1] !== 0x84) return true;
  return data.readUInt32LE(2) === crc32(data.subarray(6));
}

export const uint = (data: Buffer): number => {
  need(data.length <= 8, "integer over 8 bytes");
  let value = 0;
  for (const byte of data) value = value * 256 + byte;
  need(value <= Number.MAX_SAFE_INTEGER, "integer over 2^53");
  return value;
};
export const float = (data: Buffer): number => {
  need(data.length === 0 || data.length === 4 || data.length === 8, "float of odd size");
  return data.length === 8 ? data.readDoubleBE(0) : data.length === 4 ? data.readFloatBE(0) : 0;
};
export const ascii = (data: Buffer): string => data.toString("latin1").replace(/\0+$/, "");

/** The single child `id` of a master (undefined when absent; two of them is not a file we read). */
export function one(kids: { id: number; data: Buffer }[], id: number): Buffer | undefined {
  const found = kids.filter((k) => k.id === id);
  need(found.length <= 1, `element 0x${id.toString(16)} twice`);
  return found[0]?.data;
}
