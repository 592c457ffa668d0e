/**
 * The one entry of every API and Relay request: our JSON with `request-id` on every answer, errors
 * before a handler included (uploader tools show "invalid response" otherwise). Replies are plain
 * data: building Web Responses was a large share of a small read (docs/performance.md, "Cached reads on Node's request").
 */
import { isDomainError } from "@/lib/errors";
import { refusalFor } from "@/lib/faults/classify";
import { metrics, recordRequest } from "@/lib/metrics/registry";
import { RATE_LIMIT_HEADER } from "@/lib/ratelimit/headers";
import { answerFromCache, type ReadRequest } from "./cached-read";
import { ALLOW_ORIGIN, EXPOSE_HEADERS, preflightHeaders } from "./cors";
import { handle } from "./pipeline";
import { toErrorReply, UNMATCHED, type Reply, type ReplyHeaders, type Seen } from "./reply";
import { newRequestId } from "./request-id";
import type { RouteDef, Surface } from "./route";
import { Router } from "./router";
import { toResponse } from "./web-response";

export type { ReadRequest } from "./cached-read";
export type { Reply } from "./reply";

export interface Dispatcher {
  (request: Request): Promise<Response>;
  reply(request: Request): Promise<Reply>;
  /** The reply when the read caches alone can answer, without a promise; undefined, having counted nothing, otherwise. */
  replyNow(request: ReadRequest): Reply | undefined;
  router: Router;
}

interface Pending {
  requestId: string;
  headers: ReplyHeaders;
  started: number;
  seen: Seen;
}

export function createDispatcher(routes: readonly RouteDef[], surface: Surface, basePath: string): Dispatcher {
  const router = new Router(routes, surface);
  const preflight = preflightHeaders(routes);
  const begin = (request: ReadRequest): Pending => {
    const requestId = request.headers.get("request-id") || newRequestId();
    // CORS (docs/cors.md) on every reply, errors included: constants, nothing computed here.
    const headers: ReplyHeaders = {
      "request-id": requestId,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "access-control-allow-origin": ALLOW_ORIGIN,
      "access-control-expose-headers": EXPOSE_HEADERS,
    };
    // Metrics (docs/metrics.md): off, this is one null check; on, the matched route's id
    // is noted in `seen` by whichever path answers.
    return { requestId, headers, started: metrics() ? performance.now() : -1, seen: { route: UNMATCHED } };
  };
  const failed = (pending: Pending, thrown: unknown): Reply => {
    const { headers } = pending;
    // A dependency away (docs/faults.md): 503 with Retry-After, counted, not logged per request.
    const error = refusalFor(thrown) ?? thrown;
    if (isDomainError(error) && (error.type === "rate_limited" || error.type === "unavailable") && !headers[RATE_LIMIT_HEADER.retryAfter]) {
      headers[RATE_LIMIT_HEADER.retryAfter] = String(error.retryAfter ?? 1);
    }
    return toErrorReply(error, pending.requestId);
  };
  const finish = (pending: Pending, outcome: Reply): Reply => {
    // The handler's own headers win over the common ones (a cached read wrote its own
    // into the common record already).
    if (outcome.headers !== pending.headers) outcome.headers = { ...pending.headers, ...outcome.headers };
    if (pending.started >= 0) recordRequest(pending.seen.route, surface, outcome.status, (performance.now() - pending.started) / 1000);
    return outcome;
  };
  const reply = async (request: Request): Promise<Reply> => {
    const pending = begin(request);
    const { requestId, headers, seen } = pending;
    let outcome: Reply;
    try {
      outcome =
        answerFromCache(request, surface, basePath, router, headers, seen) ??
        (await handle(request, surface, basePath, router, preflight, requestId, headers, seen));
    } catch (error) {
      outcome = failed(pending, error);
    }
    return finish(pending, outcome);
  };
  const replyNow = (request: ReadRequest): Reply | undefined => {
    const pending = begin(request);
    let outcome: Reply | undefined;
    try {
      outcome = answerFromCache(request, surface, basePath, router, pending.headers, pending.seen);
    } catch (error) {
      // Thrown once the request was counted (a 429 from the rate limit): answered here.
      outcome = failed(pending, error);
    }
    return outcome && finish(pending, outcome);
  };
  const web = async (request: Request): Promise<Response> => toResponse(await reply(request), request.method === "HEAD");
  return Object.assign(web, { reply, replyNow, router });
}
