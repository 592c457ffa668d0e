/**
 * busboy's boundary search done by native `Buffer.indexOf` instead of streamsearch's JavaScript
 * loop, the largest single cost of receiving a large upload (docs/performance.md, "Uploads"). Only
 * the parser's `push` changes; a chunk with bytes in the lookbehind still takes the original search.
 */

interface StreamSearch {
  _needle: Buffer;
  _lookbehind: Buffer;
  _lookbehindSize: number;
  _bufPos: number;
  _cb: (isMatch: boolean, data: Buffer | undefined, start: number, end: number, isDataSafe: boolean) => void;
  matches: number;
  maxMatches: number;
  push(chunk: Buffer | string, pos?: number): number;
}

function isStreamSearch(value: unknown): value is StreamSearch {
  const s = value as Partial<StreamSearch> | null;
  return (
    typeof s === "object" &&
    s !== null &&
    Buffer.isBuffer(s._needle) &&
    Buffer.isBuffer(s._lookbehind) &&
    typeof s._lookbehindSize === "number" &&
    typeof s._cb === "function" &&
    typeof s.push === "function" &&
    typeof s.matches === "number"
  );
}

/** Returns false, changing nothing, when the parser is not the shape this was written for (it then parses as before). */
export function useNativeBoundarySearch(parser: object): boolean {
  const search = (parser as { _bparser?: unknown })._bparser;
  if (!isStreamSearch(search)) return false;
  const original = search.push.bind(search);
  search.push = (chunk, pos = 0) => {
    if (search._lookbehindSize > 0 || typeof chunk === "string") return original(chunk, pos);
    return pushNative(search, chunk, pos);
  };
  return true;
}

function pushNative(s: StreamSearch, chunk: Buffer, from: number): number {
  const needle = s._needle;
  const length = chunk.length;
  let pos = from;
  s._bufPos = pos;
  while (pos < length && s.matches < s.maxMatches) {
    const at = chunk.indexOf(needle, pos);
    if (at === -1) break;
    ++s.matches;
    if (at > 0) s._cb(true, chunk, pos, at, true);
    else s._cb(true, undefined, 0, 0, true);
    pos = s._bufPos = at + needle.length;
  }
  if (pos >= length || s.matches >= s.maxMatches) return pos;
  // No needle in the rest: what may begin one at the very end waits for the next chunk.
  const tail = needlePrefixAtEnd(chunk, Math.max(pos, length - needle.length + 1), needle);
  if (tail < length) {
    chunk.copy(s._lookbehind, 0, tail, length);
    s._lookbehindSize = length - tail;
  }
  if (tail > pos) s._cb(false, chunk, pos, tail, true);
  s._bufPos = length;
  return length;
}

function needlePrefixAtEnd(chunk: Buffer, from: number, needle: Buffer): number {
  const length = chunk.length;
  for (let p = chunk.indexOf(needle[0], from); p !== -1 && p < length; p = chunk.indexOf(needle[0], p + 1)) {
    if (chunk.compare(needle, 0, length - p, p, length) === 0) return p;
  }
  return length;
}
