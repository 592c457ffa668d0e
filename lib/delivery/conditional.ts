/** Range (RFC 9110 §14.2) and the conditional headers (§13.1), as pure functions. */
import type { ByteRange } from "@/lib/storage/types";

export type RangeDecision = { kind: "full" } | { kind: "unsatisfiable" } | { kind: "partial"; range: ByteRange };

const FULL: RangeDecision = { kind: "full" };

/**
 * Several ranges get the whole object with 200, which the RFC allows: multipart/byteranges is
 * rarely used by real clients and a classic way to make a server work hard for a small request.
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

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

export function notModifiedSince(header: string | null, lastModified: Date): boolean {
  if (!header) return false;
  const since = Date.parse(header);
  return Number.isFinite(since) && seconds(lastModified) <= Math.floor(since / 1000);
}

/** If-Range: a strong ETag match (a weak tag never matches), or a date equal to Last-Modified. */
export function ifRangeAllows(header: string | null, etag: string, lastModified: Date): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith("W/")) {
    return !value.startsWith("W/") && !etag.startsWith("W/") && value === etag;
  }
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(date / 1000) === seconds(lastModified);
}
