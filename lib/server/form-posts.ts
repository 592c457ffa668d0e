/**
 * Multipart POSTs to pages without a `Next-Action` header: what a browser sends when a
 * server-action form is submitted before (or without) JavaScript. Next.js parses such a
 * body with the Fetch `formData()` parser to find out whether it is an action, and a body
 * that parser refuses (no closing boundary, a part without Content-Disposition, an
 * unquoted boundary holding a comma) ends in an unhandled 500. The fuzz found it
 * (docs/fuzzing.md).
 *
 * So the custom server reads such a body itself (it is small: Next's server-action body
 * limit is 1 MB), runs the same parser on it, and answers 400 `invalid_request` (413
 * `file_too_large` past the limit) when it fails. A body that parses is handed to Next
 * unchanged, on a stand-in request that replays the bytes.
 */
import { IncomingMessage } from "node:http";
import { SHARE_TARGET_PATH } from "@/lib/web/share-body";

/** Next's default `serverActions.bodySizeLimit` (next.config.mjs does not change it). */
export const FORM_POST_LIMIT = 1024 * 1024;

export type FormPostVerdict =
  | { ok: true; req: IncomingMessage }
  | { ok: false; status: 400 | 413; type: "invalid_request" | "file_too_large"; message: string };

/**
 * True for a POST Next would try to decode as a no-JavaScript server-action form. The share
 * target is a route handler, not a page: it streams its body itself (lib/web/share-body.ts),
 * and a phone's photo or clip is far over this limit (issue 39 §3).
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

/** The whole body, or null past the limit (the rest is then discarded by the caller's reply). */
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

/** A request with the same head as `req` whose body is `body`, for Next to read. */
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
