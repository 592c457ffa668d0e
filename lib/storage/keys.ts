/** Key rules shared by every adapter. Keys are built from ids, never taken from users, so a bad key throws a plain Error. */
import type { ByteRange } from "./types";

export const MAX_KEY_LENGTH = 900;
/**
 * Never a leading dot: that rules out `.` and `..` and keeps dot names free for the disk
 * adapter's temp and sidecar files. 200 characters keep `.<name>.<suffix>` under 255 bytes.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

function checkSegments(value: string, what: string): void {
  if (value.length === 0 || value.length > MAX_KEY_LENGTH) {
    throw new Error(`Invalid storage ${what} (length ${value.length}): ${JSON.stringify(value.slice(0, 80))}`);
  }
  for (const segment of value.split("/")) {
    if (!SEGMENT.test(segment)) throw new Error(`Invalid storage ${what}: ${JSON.stringify(value)}`);
  }
}

export function assertValidKey(key: string): void {
  if (typeof key !== "string") throw new Error("Storage key must be a string");
  checkSegments(key, "key");
}

/** Plain string-prefix matching, like S3 (`h/abc` matches `h/abcd/x`). The empty prefix is refused: nothing should wipe the store. */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== "string") throw new Error("Storage prefix must be a string");
  checkSegments(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix, "prefix");
}

/** A key ending in one of these always carries its type, so the disk adapter reads no metadata for it. */
export const TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
  m3u8: "application/vnd.apple.mpegurl",
  ts: "video/mp2t",
};

export function normalizeContentType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

export function typeForKey(key: string): string | undefined {
  const name = key.slice(key.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return TYPE_BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

/** Every put goes through this, so a mislabelled file fails in tests (on disk) instead of being served with the wrong type. */
export function checkPut(key: string, contentType: string): string {
  assertValidKey(key);
  if (typeof contentType !== "string" || !/^[\x21-\x7e][\x20-\x7e]*$/.test(contentType)) {
    throw new Error(`Invalid content type for ${key}: ${JSON.stringify(contentType)}`);
  }
  const implied = typeForKey(key);
  if (implied && normalizeContentType(contentType) !== implied) {
    throw new Error(`Key ${key} implies ${implied}, refusing content type ${contentType}`);
  }
  return implied ?? contentType;
}

export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`Invalid byte range ${start}-${end}`);
  }
}

export function clampRange(range: ByteRange, size: number): ByteRange {
  assertValidRange(range);
  if (range.start >= size) throw new RangeError(`Range ${range.start}-${range.end} not satisfiable for ${size} bytes`);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
