/**
 * The pipeline without an await, for reads the in-process caches answer (RouteDef.fromCache):
 * every promise pays for Next's AsyncLocalStorage hooks.
 */
import { peekKey } from "@/lib/auth/authenticate";
import { counterStore } from "@/lib/ratelimit";
import { requestClientIp } from "./client-ip";
import { cachedJson } from "./frozen-json";
import { checkPrincipal } from "./key-policy";
import { applyRateResult, rateRule } from "./rate-limit";
import type { Reply, ReplyHeaders, Seen } from "./reply";
import { CACHE_HEADER, JSON_TYPE } from "./respond";
import { KEY_HEADER, type Surface } from "./route";
import { routePath, type Router } from "./router";

/** A Web `Request`, or the custom server's cheaper view of Node's request (docs/performance.md, "Cached reads on Node's request"). */
export interface ReadRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

const LANE_ORIGIN = "http://localhost";
/** A path URL parsing would leave exactly as it is: no escapes, dot segments, query or fragment. */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/;
const EMPTY_PARAMS = new URLSearchParams();

/** The URL parts a cached read uses, without `new URL` (a few percent of a read); undefined sends the caller to it. */
function plainUrl(href: string): { pathname: string; search: string; searchParams: URLSearchParams } | undefined {
  if (!href.startsWith(LANE_ORIGIN)) return undefined;
  const pathname = href.slice(LANE_ORIGIN.length);
  if (!PLAIN_PATH.test(pathname)) return undefined;
  return { pathname, search: "", searchParams: EMPTY_PARAMS };
}

/**
 * Undefined, having changed nothing, whenever a step would need I/O or end in an error: the
 * pipeline then runs from the start, so errors come from one place. The rate-limit hit is counted
 * last, so a request is counted exactly once either way.
 */
export function answerFromCache(
  request: ReadRequest,
  surface: Surface,
  basePath: string,
  router: Router,
  headers: ReplyHeaders,
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
