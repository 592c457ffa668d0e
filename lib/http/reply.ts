/** The dispatcher's answer as plain data; the fast lane writes it to the socket, Next gets a Web Response. */
import { isMissingSchemaError, notMigratedMessage } from "@/lib/db/readiness";
import { isDomainError, statusOf, type ErrorType } from "@/lib/errors";
import { refusalFor } from "@/lib/faults/classify";
import { describeZodError } from "./parse";
import { errorBody, JSON_TYPE } from "./respond";
import type { RouteDef } from "./route";

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: { kind: "json"; text: string } | { kind: "response"; response: Response } | null;
}

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

export function responseReply(response: Response): Reply {
  const headers: ReplyHeaders = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  return { status: response.status, headers, body: { kind: "response", response } };
}

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
