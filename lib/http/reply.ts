/**
 * The dispatcher's answer as plain data (status, header record, JSON text or a handler's
 * Response), and the ways one is made: JSON, our error shape, a handler's Response. The
 * custom server writes a Reply straight to the socket (lib/server/fast-lane.ts); Next's
 * route handlers get it as a Web Response (web-response.ts).
 */
import { isMissingSchemaError, notMigratedMessage } from "@/lib/db/readiness";
import { isDomainError, statusOf, type ErrorType } from "@/lib/errors";
import { refusalFor } from "@/lib/faults/classify";
import { describeZodError } from "./parse";
import { errorBody, JSON_TYPE } from "./respond";
import type { RouteDef } from "./route";

/** What the dispatcher answers: JSON text, or a Response a handler built (files, attachments). */
export interface Reply {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: { kind: "json"; text: string } | { kind: "response"; response: Response } | null;
}

/** A reply's header record (lower-case names). */
export type ReplyHeaders = Record<string, string>;

/** What the request matched, for metrics: a route id, or UNMATCHED (404, 405, preflight of an unknown path). */
export interface Seen {
  route: string;
}
export const UNMATCHED = "unmatched";

export const jsonReply = (status: number, body: unknown, headers: ReplyHeaders = {}): Reply => ({
  status,
  headers: { ...headers, "content-type": JSON_TYPE },
  body: { kind: "json", text: JSON.stringify(body) },
});

export const errorReply = (
  type: ErrorType,
  message: string,
  options: { status?: number; context?: Record<string, unknown>; headers?: ReplyHeaders } = {},
): Reply => jsonReply(options.status ?? statusOf(type), errorBody(type, message, options.context), options.headers);

/** A handler's Response: its headers join the reply's, its body is passed on as it is. */
export function responseReply(response: Response): Reply {
  const headers: ReplyHeaders = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  return { status: response.status, headers, body: { kind: "response", response } };
}

/** A DomainError as its documented error; anything else is logged and answered 500 with the request id. */
export function toErrorReply(error: unknown, requestId: string): Reply {
  if (isDomainError(error)) return errorReply(error.type, error.message, { status: error.httpStatus, context: error.context });
  if (isMissingSchemaError(error)) return errorReply("unavailable", notMigratedMessage([]));
  const refused = refusalFor(error);
  if (refused) return errorReply("unavailable", refused.message, { headers: { "retry-after": String(refused.retryAfter) } });
  console.error(`[${requestId}]`, error);
  return errorReply("internal", `Internal error; quote request-id ${requestId} if it persists.`);
}

const validateResponses = process.env.NODE_ENV !== "production";

/** Outside production, a 200 body that does not match the route's schema is a bug: fail loudly. */
export function checkResponse(route: RouteDef, result: unknown): void {
  if (!validateResponses || !route.response || !("parse" in route.response)) return;
  const check = route.response.safeParse(result);
  if (!check.success) {
    throw new Error(`Response of ${route.id} does not match its schema: ${describeZodError("response", check.error)}`);
  }
}
