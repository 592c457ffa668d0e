/**
 * No-JavaScript server-action form posts: a multipart body Next's `formData()` parser refuses
 * ends in an unhandled 500 (found by the fuzz, docs/fuzzing.md), so the custom server parses it
 * first, answers 400 (413 past the limit) on failure, and hands Next a replay of the bytes.
 */
import { IncomingMessage } from "node:http";
import { SHARE_TARGET_PATH } from "@/lib/web/share-body";

/** Next's default `serverActions.bodySizeLimit` (next.config.mjs does not change it). */
export const FORM_POST_LIMIT = 1024 * 1024;

export type FormPostVerdict =
  | { ok: true; req: IncomingMessage }
  | { ok: false; status: 400 | 413; type: "invalid_request" | "file_too_large"; message: string };

/**
 * A POST Next would decode as a server-action form. Not the share target: it streams its body
 * itself and a phone's clip is far over this limit (issue 39 §3).
 */
export function isFormPost(req: IncomingMessage): boolean {
  return (
    req.method === "POST" &&
    /^multipart\/form-data\b/i.test(req.headers["content-type"] ?? "") &&
    req.headers["next-action"] === undefined &&
    !isShareTarget(req.url)
  );
}

const isShareTarget = (url: string | undefined): boolean => {
  const path = (url ?? "").split("?")[0];
  return path === SHARE_TARGET_PATH || path === `${SHARE_TARGET_PATH}/`;
};

const tooLarge = (): FormPostVerdict => ({
  ok: false,
  status: 413,
  type: "file_too_large",
  message: `A form post is limited to ${FORM_POST_LIMIT} bytes.`,
});

export async function screenFormPost(req: IncomingMessage): Promise<FormPostVerdict> {
  if (Number(req.headers["content-length"] || 0) > FORM_POST_LIMIT) return tooLarge();
  const body = await readBounded(req);
  if (!body) return tooLarge();
  try {
    await new Response(new Uint8Array(body), { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
  } catch {
    return { ok: false, status: 400, type: "invalid_request", message: "The form body could not be parsed as multipart/form-data." };
  }
  return { ok: true, req: replay(req, body) };
}

function readBounded(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > FORM_POST_LIMIT) {
        req.off("data", onData);
        req.off("end", onEnd);
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks));
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", reject);
  });
}

function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}
