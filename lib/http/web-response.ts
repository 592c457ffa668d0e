/** A dispatcher Reply as a Web Response, for Next's route handlers and in-process tests. */
import { attachResponseBody, carryNativeBody } from "./node-bridge";
import type { Reply } from "./reply";
import { CONTENT_LENGTH_CARRIER } from "./respond";

export function toResponse(reply: Reply, head: boolean): Response {
  const headers = new Headers(reply.headers);
  const inner = reply.body?.kind === "response" ? reply.body.response : null;
  if (inner) for (const cookie of inner.headers.getSetCookie()) headers.append("set-cookie", cookie);
  if (reply.body?.kind === "json") headers.set("content-length", String(Buffer.byteLength(reply.body.text)));
  const length = headers.get("content-length");
  if (length !== null) headers.set(CONTENT_LENGTH_CARRIER, length);
  const init = { status: reply.status, statusText: inner?.statusText, headers };
  if (head || !reply.body) return new Response(null, init);
  if (reply.body.kind === "json") return attachResponseBody(new Response(reply.body.text, init), { kind: "text", text: reply.body.text });
  return carryNativeBody(reply.body.response, new Response(reply.body.response.body, init));
}
