/**
 * The HTTP request headers that decide between 200, 206, 304 and 416 for a file:
 * Range (RFC 9110 §14.2), If-None-Match, If-Modified-Since and If-Range (§13.1). Pure
 * functions of the header values and the object's size, ETag and mtime.
 */
import type { ByteRange } from "@/lib/storage/types";

export type RangeDecision =
  /** No usable Range header: send the whole object with 200. */
  | { kind: "full" }
  /** 416 with `Content-Range: bytes *\/size`. */
  | { kind: "unsatisfiable" }
  /** 206 with this range (inclusive, already clamped to the object). */
  | { kind: "partial"; range: ByteRange };

const FULL: RangeDecision = { kind: "full" };

/**
 * One range is served as 206. Several ranges (`bytes=0-1,5-6`) get the whole object with
 * 200, which the RFC allows: multipart/byteranges responses are complex, rarely used by
 * real clients (players and download managers ask for one range), and a classic way to
 * make a server do lots of work for little request. A syntactically invalid header or a
 * unit other than bytes is ignored (200), as the RFC requires.
 */
export function parseRange(header: string | null, size: number): RangeDecision {
  if (!header) return FULL;
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!match) return FULL;
  const specs = match[1]
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (specs.length !== 1) return FULL;
  const spec = /^(\d*)\s*-\s*(\d*)$/.exec(specs[0]);
  if (!spec || (spec[1] === "" && spec[2] === "")) return FULL;
  if (spec[1] === "") {
    // Suffix range `-n`: the last n bytes.
    const length = Number(spec[2]);
    if (length === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(spec[1]);
  const end = spec[2] === "" ? Infinity : Number(spec[2]);
  if (end < start) return FULL; // `5-2` is invalid syntax, not an unsatisfiable range
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", range: { start, end: Math.min(end, size - 1) } };
}

/** The entity tags of an If-None-Match / If-Range value, `*` kept as is. */
function entityTags(value: string): string[] {
  if (value.trim() === "*") return ["*"];
  return value.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

const opaque = (tag: string): string => (tag.startsWith("W/") ? tag.slice(2) : tag);

/** If-None-Match uses weak comparison: `W/"x"` matches `"x"`. */
export function noneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  return entityTags(header).some((tag) => tag === "*" || opaque(tag) === opaque(etag));
}

/** HTTP dates have whole seconds; compare at that precision. */
const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** If-Modified-Since: true when the object is not newer than the given date. */
export function notModifiedSince(header: string | null, lastModified: Date): boolean {
  if (!header) return false;
  const since = Date.parse(header);
  return Number.isFinite(since) && seconds(lastModified) <= Math.floor(since / 1000);
}

/**
 * If-Range: the Range applies only if the client's copy is still current. An entity tag
 * needs strong comparison (a weak tag never matches); a date must equal Last-Modified.
 * Without If-Range the Range always applies.
 */
export function ifRangeAllows(header: string | null, etag: string, lastModified: Date): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith("W/")) {
    return !value.startsWith("W/") && !etag.startsWith("W/") && value === etag;
  }
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(date / 1000) === seconds(lastModified);
}
