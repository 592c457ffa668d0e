/**
 * Rules shared by every adapter: what a key may look like, and which content type a key
 * with a known media extension carries. A bad key is a programming error (keys are built
 * by our code from ids, never taken from users), so these throw plain Errors.
 */
import type { ByteRange } from "./types";

/** S3 caps keys at 1024 bytes; leave room for S3_PREFIX. */
export const MAX_KEY_LENGTH = 900;
/**
 * A segment starts with a letter, digit, `_` or `-`, never a dot: that rules out `.` and
 * `..`, and leaves names starting with a dot free for the disk adapter's own temp and
 * sidecar files, which therefore can never collide with a key. 200 characters keeps the
 * disk adapter's `.<name>.<suffix>` helper files under the usual 255-byte name limit.
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

/** Throws unless key is a relative `/`-separated path of safe characters. */
export function assertValidKey(key: string): void {
  if (typeof key !== "string") throw new Error("Storage key must be a string");
  checkSegments(key, "key");
}

/**
 * A prefix is a key, optionally with a trailing `/` (a folder). Matching is by plain
 * string prefix, like S3: `h/abc` also matches `h/abcd/x`; pass `h/abc/` for one folder.
 * The empty prefix (everything) is refused: no caller should ever wipe the store.
 */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== "string") throw new Error("Storage prefix must be a string");
  checkSegments(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix, "prefix");
}

/**
 * The media types we serve inline, by extension. A key ending in one of these always
 * carries this type (see assertTypeMatchesKey): that lets the disk adapter answer
 * `stat`/`open` without reading any metadata file. Everything else (other extensions or
 * none) is stored with its type recorded by the adapter.
 */
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

/** `image/PNG; charset=x` → `image/png`. */
export function normalizeContentType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

/** The type a key's extension implies, or undefined for other extensions. */
export function typeForKey(key: string): string | undefined {
  const name = key.slice(key.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return TYPE_BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

/**
 * Every put goes through this. A `.png` key must be stored as image/png and so on, on
 * every adapter, so that a mislabelled file fails in tests (which use disk) instead of
 * being served with the wrong type. Returns the type to store.
 */
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

/** Throws unless range is a sane inclusive byte range (integers, start <= end). */
export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`Invalid byte range ${start}-${end}`);
  }
}

/** Clamps range to an object of `size` bytes; RangeError when it starts past the end. */
export function clampRange(range: ByteRange, size: number): ByteRange {
  assertValidRange(range);
  if (range.start >= size) throw new RangeError(`Range ${range.start}-${range.end} not satisfiable for ${size} bytes`);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
