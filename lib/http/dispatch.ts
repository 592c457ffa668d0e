/**
 * The one pipeline every API and Relay request goes through:
 * match (404/405) → authenticate (401/403) → rate limit (429 + headers) → parse (400)
 * → handler → reply. Everything it answers is our JSON, with `request-id`, including the
 * errors raised before a handler runs: uploader tools show "invalid response" otherwise.
 *
 * The pipeline produces a plain Reply (status, header record, JSON text or a handler's
 * Response). The custom server writes that straight to the socket (lib/server/fast-lane.ts);
 * Next's route handlers get it as a Web Response. Building Web Headers and Responses for
 * every JSON answer, and copying them to add headers, was a large share of a small read's
 * time (docs/performance.md, "Read path", "What made the difference").
 */
import type { z } from "zod";
import { authenticateKey, peekKey } from "../auth/authenticate";
import { authenticateWebSession } from "../auth/web-session";
import { accountOf, hasGalleryAccess, type Principal } from "../types/principal";
import { DomainError, isDomainError, statusOf, type ErrorType } from "../errors";
import { BUCKETS, bucketRule, ipSubject, principalSubject, type BucketName, type BucketRule } from "../ratelimit/buckets";
import { requestClientIp } from "./client-ip";
import { metrics, recordRateLimited, recordRequest } from "../metrics/registry";
import { counterStore } from "../ratelimit";
import type { WindowResult } from "../ratelimit/store";
import { RATE_LIMIT_HEADER, rateLimitHeaders } from "../ratelimit/headers";
import { ALLOW_ORIGIN, EXPOSE_HEADERS, preflightHeaders } from "./cors";
import { attachResponseBody, carryNativeBody, readRequestBody } from "./node-bridge";
import { CACHE_HEADER, CONTENT_LENGTH_CARRIER, errorBody, JSON_TYPE } from "./respond";
import { isMissingSchemaError, notMigratedMessage, requireMigratedSchema } from "../db/readiness";
import { describeZodError } from "./parse";
import { newRequestId } from "./request-id";
import { KEY_HEADER, type RouteDef, type Surface } from "./route";
import { Router } from "./router";

const validateResponses = process.env.NODE_ENV !== "production";

/** What the dispatcher answers: JSON text, or a Response a handler built (files, attachments). */
export interface Reply {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: { kind: "json"; text: string } | { kind: "response"; response: Response } | null;
}

export interface Dispatcher {
  /** Web form, for Next's route handlers and in-process tests. */
  (request: Request): Promise<Response>;
  /** Native form, for the custom server. */
  reply(request: Request): Promise<Reply>;
  /**
   * The reply when the read caches alone can answer (see answerFromCache), without a
   * promise; undefined, having counted and changed nothing, when `reply` must run. Lets the
   * custom server answer a cached read before any promise of its own (lib/server/fast-lane.ts).
   */
  replyNow(request: ReadRequest): Reply | undefined;
  router: Router;
}

/**
 * What a cached read looks at: a Web `Request` is one, and so is the custom server's view
 * of Node's request (lib/server/fast-lane.ts), which costs one small object where a
 * `Request` look-alike cost a tenth of a cached read (docs/performance.md, "Cached reads
 * on Node's request").
 */
export interface ReadRequest {
  readonly method: string;
  /** Absolute, as `Request.url`. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

type Headers_ = Record<string, string>;

/** What the request matched, for metrics: a route id, or UNMATCHED (404, 405, preflight of an unknown path). */
interface Seen {
  route: string;
}

/** A request on its way through `reply`: its id, the common headers, for metrics its start and route. */
interface Pending {
  requestId: string;
  headers: Headers_;
  started: number;
  seen: Seen;
}
const UNMATCHED = "unmatched";

/** A dispatcher for one surface, mounted at `basePath` (`/api`, `/relay`). */
export function createDispatcher(routes: readonly RouteDef[], surface: Surface, basePath: string): Dispatcher {
  const router = new Router(routes, surface);
  const preflight = preflightHeaders(routes);
  const begin = (request: ReadRequest): Pending => {
    const requestId = request.headers.get("request-id") || newRequestId();
    // CORS (docs/cors.md) on every reply, errors included: constants, nothing computed here.
    const headers: Headers_ = {
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
  const failed = (pending: Pending, error: unknown): Reply => {
    const { headers } = pending;
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

const jsonReply = (status: number, body: unknown, headers: Headers_ = {}): Reply => ({
  status,
  headers: { ...headers, "content-type": JSON_TYPE },
  body: { kind: "json", text: JSON.stringify(body) },
});

const errorReply = (
  type: ErrorType,
  message: string,
  options: { status?: number; context?: Record<string, unknown>; headers?: Headers_ } = {},
): Reply => jsonReply(options.status ?? statusOf(type), errorBody(type, message, options.context), options.headers);

/** A handler's Response: its headers join the reply's, its body is passed on as it is. */
function responseReply(response: Response): Reply {
  const headers: Headers_ = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  return { status: response.status, headers, body: { kind: "response", response } };
}

/** The route path of a request URL: below the surface's base, without a trailing slash. */
function routePath(url: Pick<URL, "pathname">, basePath: string): string {
  let path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return path;
}

/** The origin the custom server gives its requests (lib/server/fast-lane.ts). */
const LANE_ORIGIN = "http://localhost";
/** A path URL parsing would leave exactly as it is: no escapes, dot segments, query or fragment. */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/;

/**
 * The parts of the request URL a cached read uses, without `new URL` (a few percent of a
 * cached read) when parsing could not change them; undefined sends the caller to `new URL`.
 */
function plainUrl(href: string): { pathname: string; search: string; searchParams: URLSearchParams } | undefined {
  if (!href.startsWith(LANE_ORIGIN)) return undefined;
  const pathname = href.slice(LANE_ORIGIN.length);
  if (!PLAIN_PATH.test(pathname)) return undefined;
  return { pathname, search: "", searchParams: EMPTY_PARAMS };
}
const EMPTY_PARAMS = new URLSearchParams();

/**
 * The whole pipeline without a single await, for reads that in-process caches can answer
 * (RouteDef.fromCache) with a counter store that counts in this process. A cached
 * `GET /posts/{code}` is otherwise a dozen awaits, and every promise pays for Next's
 * AsyncLocalStorage hooks.
 *
 * Returns undefined, having changed nothing, whenever a step would need I/O (a key, post
 * or like not cached, the web-session cookie, Redis) or would end in an error: `handle`
 * then runs the request from the start, so errors and their precedence come from one
 * place. The rate-limit hit is counted last, once the answer is ready, so a request is
 * counted exactly once either way; a 429 from it is the same 429 `handle` would give,
 * since every earlier step (match, key, account checks) has already passed.
 */
function answerFromCache(
  request: ReadRequest,
  surface: Surface,
  basePath: string,
  router: Router,
  headers: Headers_,
  seen: Seen,
): Reply | undefined {
  if (request.method !== "GET") return undefined;
  const header = KEY_HEADER[surface];
  const key = request.headers.get(header);
  const store = counterStore();
  if (!key?.trim() || !store.hitNow) return undefined;
  const url = plainUrl(request.url) ?? new URL(request.url);
  const match = router.match("GET", routePath(url, basePath));
  if (match.kind !== "found") return undefined;
  const { route } = match;
  if (!route.fromCache || typeof route.rateLimit !== "string" || route.auth === "none" || route.body) return undefined;
  const principal = peekKey(key, header);
  if (!principal) return undefined;
  try {
    checkPrincipal(route, principal);
  } catch {
    return undefined;
  }
  const params = route.params ? route.params.safeParse(match.params) : { success: true as const, data: match.params };
  const query = route.query
    ? route.query.safeParse(url.search ? Object.fromEntries(url.searchParams) : {})
    : { success: true as const, data: {} };
  if (!params.success || !query.success) return undefined;
  const ip = requestClientIp(request.headers);
  const result = route.fromCache({ params: params.data, query: query.data, principal, surface, ip });
  if (result === undefined) return undefined;
  seen.route = route.id;
  const { key: counter, limit, windowSeconds } = rateRule(route.rateLimit, principal, ip);
  applyRateResult(store.hitNow(counter, limit, windowSeconds), headers, route.rateLimit);
  headers[CACHE_HEADER] = "hit";
  headers["content-type"] = JSON_TYPE;
  return { status: 200, headers, body: { kind: "json", text: cachedJson(route, result) } };
}

/**
 * JSON text of frozen cached replies: a route's fromCache freezes a reply it hands out
 * again for as long as it stays right (lib/routes/posts.ts cachedPostView), so it is
 * checked and serialized once (docs/performance.md, "The cached post reply kept, cheaper
 * cache hits and key hashes").
 */
const jsonOfFrozen = new WeakMap<object, string>();
function cachedJson(route: RouteDef, result: unknown): string {
  const frozen = typeof result === "object" && result !== null && Object.isFrozen(result) ? result : null;
  const known = frozen ? jsonOfFrozen.get(frozen) : undefined;
  if (known !== undefined) return known;
  checkResponse(route, result);
  const text = JSON.stringify(result);
  if (frozen) jsonOfFrozen.set(frozen, text);
  return text;
}

async function handle(
  request: Request,
  surface: Surface,
  basePath: string,
  router: Router,
  preflight: Readonly<Headers_>,
  requestId: string,
  headers: Headers_,
  seen: Seen,
): Promise<Reply> {
  const url = new URL(request.url);
  const path = routePath(url, basePath);

  // Also the CORS preflight: the path's methods, and the request headers browsers may send.
  if (request.method === "OPTIONS") {
    const allow = router.allowed(path);
    if (!allow.length) return errorReply("not_found", "No such endpoint.");
    const methods = allow.join(", ");
    const own: Headers_ = {};
    for (const route of router.routesAt(path)) Object.assign(own, route.replyHeaders, route.optionsHeaders?.());
    return { status: 204, headers: { allow: methods, "access-control-allow-methods": methods, ...preflight, ...own }, body: null };
  }

  const match = router.match(request.method, path);
  if (match.kind === "not_found") return errorReply("not_found", "No such endpoint.");
  if (match.kind === "method_not_allowed") {
    return errorReply("method_not_allowed", `Method ${request.method} is not allowed here.`, {
      headers: { allow: match.allow.join(", ") },
    });
  }
  const { route } = match;
  seen.route = route.id;
  // A schema behind the code (`next start` before `npm run db:migrate`): 503 naming the command.
  await requireMigratedSchema();
  // On every reply of the route, errors included (`headers` is merged into whatever is answered).
  if (route.replyHeaders) Object.assign(headers, route.replyHeaders);
  const ip = requestClientIp(request.headers);

  const principal = await authorize(route, request.headers.get(KEY_HEADER[surface]), surface, request.headers);

  // Rate limiting needs the body only for the profile/theme split; parse the body first
  // in that one case, otherwise limit before doing any parsing work.
  const body = typeof route.rateLimit === "function" ? await parseBody(route, request) : undefined;
  if (route.rateLimit) {
    const bucket = typeof route.rateLimit === "function" ? route.rateLimit(body) : route.rateLimit;
    await rateLimit(bucket, principal, ip, headers);
  }

  const params = parseWith(route.params, match.params, "path");
  const query = parseWith(route.query, url.search ? Object.fromEntries(url.searchParams) : {}, "query");
  const parsedBody = body !== undefined || !route.body ? body : await parseBody(route, request);

  const result = await route.handler({ params, query, body: parsedBody, principal, surface, request, requestId, ip });
  if (result instanceof Response) return responseReply(result);
  checkResponse(route, result);
  return jsonReply(200, result);
}

/** Outside production, a 200 body that does not match the route's schema is a bug: fail loudly. */
function checkResponse(route: RouteDef, result: unknown): void {
  if (!validateResponses || !route.response || !("parse" in route.response)) return;
  const check = route.response.safeParse(result);
  if (!check.success) {
    throw new Error(`Response of ${route.id} does not match its schema: ${describeZodError("response", check.error)}`);
  }
}

async function authorize(route: RouteDef, key: string | null, surface: Surface, requestHeaders: Headers): Promise<Principal | null> {
  const header = KEY_HEADER[surface];
  if (route.auth === "none") return null;
  // Without a key, our own pages authenticate with the web sign-in cookie (same-origin only).
  const principal = key?.trim() ? await authenticateKey(key, header) : await authenticateWebSession(requestHeaders);
  if (!key?.trim()) {
    if (!principal && route.auth === "optional") return null;
    if (!principal) throw new DomainError("unauthorized", `Missing ${header} header.`);
  }
  if (!principal) throw new DomainError("unauthorized", `The ${header} is not recognized.`);
  checkPrincipal(route, principal);
  return principal;
}

/** What a known principal may do on this route: key kind, suspension, lapsed team, gallery access. */
function checkPrincipal(route: RouteDef, principal: Principal): void {
  // A team key whose owner is suspended is refused on every endpoint with 403 suspended
  // (docs/http-core.md, the authenticate step), even where team keys are otherwise 401.
  if (principal.kind === "team" && principal.owner.suspended) {
    throw new DomainError("suspended", "The team owner's account is suspended.");
  }
  if (principal.kind === "team" && !(route.keys ?? ["personal"]).includes("team")) {
    throw new DomainError("unauthorized", "Team keys cannot be used on this endpoint.");
  }
  if (principal.kind !== "team" && !(route.keys ?? ["personal"]).includes("personal")) {
    throw new DomainError("unauthorized", "This endpoint needs a team key.");
  }
  if (accountOf(principal).suspended) throw new DomainError("suspended", "This account is suspended.");
  if (principal.kind === "team" && principal.team.status === "lapsed" && route.refusesLapsedTeam) {
    throw new DomainError("forbidden", "The team's subscription has lapsed.");
  }
  if (route.galleryAccess && !hasGalleryAccess(principal)) {
    throw new DomainError("forbidden", "This key has no gallery access.");
  }
}

async function rateLimit(bucket: BucketName, principal: Principal | null, ip: string, headers: Headers_): Promise<void> {
  const { key, limit, windowSeconds } = rateRule(bucket, principal, ip);
  applyRateResult(await counterStore().hit(key, limit, windowSeconds), headers, bucket);
}

/** The counter a request counts against: per account (or team), or per IP for IP-scoped buckets and anonymous calls. */
function rateRule(bucket: BucketName, principal: Principal | null, ip: string): BucketRule {
  const subject = BUCKETS[bucket].scope === "ip" || !principal ? ipSubject(ip) : principalSubject(principal);
  return bucketRule(bucket, subject);
}

/** Rate-limit headers on every limited reply; a denied hit is 429 with Retry-After. */
function applyRateResult(result: WindowResult, headers: Headers_, bucket: BucketName): void {
  Object.assign(headers, rateLimitHeaders(result));
  if (!result.allowed) {
    recordRateLimited(bucket);
    throw new DomainError("rate_limited", `Too many requests; retry in ${result.retryAfter} s.`);
  }
}

function parseWith(schema: z.ZodType | undefined, input: unknown, where: string): unknown {
  if (!schema) return input;
  const result = schema.safeParse(input);
  if (!result.success) throw new DomainError("invalid_request", describeZodError(where, result.error, input));
  return result.data;
}

async function parseBody(route: RouteDef, request: Request): Promise<unknown> {
  if (!route.body) return undefined;
  const text = await readTextBody(request, JSON_BODY_LIMIT);
  let value: unknown = {};
  if (text.trim()) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new DomainError("invalid_request", "The request body is not valid JSON.");
    }
  }
  return parseWith(route.body, value, "body");
}

/** JSON bodies are small; a bigger one is refused while reading, never buffered whole. */
const JSON_BODY_LIMIT = 1024 * 1024;

async function readTextBody(request: Request, limit: number): Promise<string> {
  const tooLarge = () => new DomainError("file_too_large", `The request body is over ${limit} bytes.`);
  if (Number(request.headers.get("content-length") || 0) > limit) throw tooLarge();
  let bytes: Buffer;
  try {
    bytes = await readRequestBody(request, limit, tooLarge);
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw new DomainError("invalid_request", "The request body could not be read.");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError("invalid_request", "The request body is not valid UTF-8.");
  }
}

function toErrorReply(error: unknown, requestId: string): Reply {
  if (isDomainError(error)) return errorReply(error.type, error.message, { status: error.httpStatus, context: error.context });
  if (isMissingSchemaError(error)) return errorReply("unavailable", notMigratedMessage([]));
  console.error(`[${requestId}]`, error);
  return errorReply("internal", `Internal error; quote request-id ${requestId} if it persists.`);
}

/**
 * The Web form of a reply. Next drops Content-Length from route-handler responses, so
 * the length also travels in CONTENT_LENGTH_CARRIER for the custom server to restore.
 */
function toResponse(reply: Reply, head: boolean): Response {
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
