/**
 * Reading a share target's body without holding it (docs/share-target.md): up to the first file
 * part, then streamed on to POST /api/upload; a text share is at most SHARE_TEXT_LIMIT bytes.
 */

export const SHARE_TARGET_PATH = "/share-target";

/** Text and URL shares: more than any link or note, far less than a file. */
export const SHARE_TEXT_LIMIT = 64 * 1024;

export type ShareBody =
  | { kind: "files"; body: ReadableStream<Uint8Array>; contentType: string }
  | { kind: "fields"; fields: Record<string, string> }
  | { kind: "too_large" }
  | { kind: "unreadable" };

function boundaryOf(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : null;
}

type HeadState = "file" | "complete" | "more";

/** What the bytes so far show. Read as latin1: part headers are ASCII, and offsets stay exact. */
function headState(head: Buffer, boundary: string): HeadState {
  const text = head.toString("latin1");
  const delimiter = `--${boundary}`;
  let at = text.indexOf(delimiter);
  while (at !== -1) {
    const after = at + delimiter.length;
    if (text.startsWith("--", after)) return "complete";
    const headersEnd = text.indexOf("\r\n\r\n", after);
    if (headersEnd === -1) return "more";
    // A part with a non-empty file name is a file (an empty one is a form's unused file input).
    if (/\r\ncontent-disposition:[^\r\n]*;\s*filename\*?=\s*"?[^"\s;]/i.test(text.slice(after, headersEnd + 2))) return "file";
    at = text.indexOf(delimiter, headersEnd);
  }
  return "more";
}

/** Pulled, so the upload's pace sets the reading. */
function prepend(head: Uint8Array, reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  let headSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headSent) {
        headSent = true;
        controller.enqueue(head);
        return;
      }
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

const asFields = (entries: Iterable<[string, FormDataEntryValue]>): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const [name, value] of entries) if (typeof value === "string" && !(name in fields)) fields[name] = value;
  return fields;
};

async function parseSmall(bytes: Buffer, contentType: string): Promise<ShareBody> {
  try {
    if (/^multipart\/form-data\b/i.test(contentType)) {
      const form = await new Response(new Uint8Array(bytes), { headers: { "content-type": contentType } }).formData();
      return { kind: "fields", fields: asFields(form.entries()) };
    }
    if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
      return { kind: "fields", fields: asFields(new URLSearchParams(bytes.toString("utf8")).entries()) };
    }
  } catch {
    return { kind: "unreadable" };
  }
  return { kind: "unreadable" };
}

/** `contentLength` is null when chunked. */
export async function readShareBody(
  contentType: string,
  contentLength: number | null,
  body: ReadableStream<Uint8Array> | null,
): Promise<ShareBody> {
  const boundary = /^multipart\/form-data\b/i.test(contentType) ? boundaryOf(contentType) : null;
  // Without files the body is small: a longer one is refused before any byte is read.
  if (!boundary && contentLength !== null && contentLength > SHARE_TEXT_LIMIT) return { kind: "too_large" };
  if (!body) return { kind: "fields", fields: {} };
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parseSmall(Buffer.concat(chunks), contentType);
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
    if (boundary) {
      const head = Buffer.concat(chunks);
      const state = headState(head, boundary);
      if (state === "file") return { kind: "files", body: prepend(head, reader), contentType };
      if (state === "complete") {
        await reader.cancel().catch(() => {});
        return parseSmall(head, contentType);
      }
    }
    if (size > SHARE_TEXT_LIMIT) {
      await reader.cancel().catch(() => {});
      return { kind: "too_large" };
    }
  }
}
