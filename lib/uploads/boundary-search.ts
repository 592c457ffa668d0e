/**
 * The boundary search of busboy's multipart parser done by `Buffer.indexOf` (native code)
 * instead of streamsearch's Boyer-Moore-Horspool loop in JavaScript, which was the largest
 * single cost of receiving a large upload on the main thread (about 0.4-0.6 s of CPU per GiB
 * on the bench machine; docs/performance.md, "Uploads").
 *
 * Only the parser's own instance is changed, and only its `push`: everything busboy does with
 * what the search reports (part headers, limits, fields, files, errors) is untouched. The
 * contract kept is streamsearch 1.x's: `push(chunk, pos)` calls `cb(isMatch, data, start,
 * end, isDataSafe)` for every stretch of bytes that is not the needle, in order, and once
 * with `isMatch` per needle found; bytes that may be the start of a needle split across
 * chunks wait in the lookbehind buffer. Whenever the lookbehind holds bytes (rare: a chunk
 * ended with a prefix of the needle) the original search takes that chunk, so the delicate
 * case stays the library's.
 */

/** The fields of streamsearch's instance that the fast path reads and writes. */
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

/**
 * Gives a busboy multipart parser the native boundary search. Returns false, changing
 * nothing, when the parser is not the shape this was written for (another busboy or
 * streamsearch version): it then parses as before, only slower.
 */
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

/** streamsearch's push for a chunk with an empty lookbehind. */
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

/** The first position from `from` where the rest of `chunk` is a prefix of `needle`; chunk.length when none. */
function needlePrefixAtEnd(chunk: Buffer, from: number, needle: Buffer): number {
  const length = chunk.length;
  for (let p = chunk.indexOf(needle[0], from); p !== -1 && p < length; p = chunk.indexOf(needle[0], p + 1)) {
    if (chunk.compare(needle, 0, length - p, p, length) === 0) return p;
  }
  return length;
}
