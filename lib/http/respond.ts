/** Building the service's responses: JSON bodies, the error shape, common headers. */
import { attachResponseBody } from "./node-bridge";
import { errorBody, statusOf, type ErrorType } from "@/lib/errors";

export const JSON_TYPE = "application/json; charset=utf-8";

export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("content-type", JSON_TYPE);
  const text = JSON.stringify(body);
  return attachResponseBody(new Response(text, { status, headers: h }), { kind: "text", text });
}

export { errorBody } from "@/lib/errors";

export function errorResponse(
  type: ErrorType,
  message: string,
  options: { status?: number; context?: Record<string, unknown>; headers?: HeadersInit } = {},
): Response {
  return json(errorBody(type, message, options.context), options.status ?? statusOf(type), options.headers);
}

/** Next drops `Content-Length` from route-handler responses; the custom server moves this header back into it. */
export const CONTENT_LENGTH_CARRIER = "x-mediahost-content-length";

/** Marks an answer served from the in-process read caches (`hit`), for operators and tests. */
export const CACHE_HEADER = "x-mediahost-cache";

export function carryContentLength(headers: Headers): void {
  const length = headers.get("content-length");
  if (length !== null) headers.set(CONTENT_LENGTH_CARRIER, length);
}
