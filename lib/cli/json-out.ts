/**
 * The admin CLI's answer written out as JSON, piece by piece: the same text as
 * `JSON.stringify(value)`, except that a list given as an async iterable (an import's skipped
 * items, lib/imports/spill.ts) is written one item at a time as it is read, so a summary of
 * any length never exists whole in memory. Pieces are gathered up to CHUNK characters and
 * handed to `flush`, which is awaited (stdout's back-pressure).
 */
type Write = (text: string) => Promise<void> | void;

const CHUNK = 64 * 1024;

const isStreamed = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown): boolean => value === undefined || typeof value === "function" || typeof value === "symbol";

/** Writes `value` as JSON through `flush`, in pieces of about CHUNK characters. */
export async function writeJson(value: unknown, flush: (text: string) => Promise<void>): Promise<void> {
  let buffer = "";
  const write: Write = (text) => {
    buffer += text;
    if (buffer.length < CHUNK) return;
    const out = buffer;
    buffer = "";
    return flush(out);
  };
  await writeValue(value, write);
  if (buffer) await flush(buffer);
}

async function writeValue(value: unknown, write: Write): Promise<void> {
  if (isStreamed(value)) {
    await write("[");
    let first = true;
    for await (const item of value) {
      await write(first ? "" : ",");
      first = false;
      await writeValue(omitted(item) ? null : item, write);
    }
    await write("]");
  } else if (Array.isArray(value)) {
    await write("[");
    for (let i = 0; i < value.length; i++) {
      if (i) await write(",");
      await writeValue(omitted(value[i]) ? null : value[i], write);
    }
    await write("]");
  } else if (isPlainObject(value)) {
    await write("{");
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (omitted(item)) continue;
      await write(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      await writeValue(item, write);
    }
    await write("}");
  } else await write(JSON.stringify(value) ?? "null");
}
