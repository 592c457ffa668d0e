/** The pipeline of docs/http-core.md for one request, with every await it may need. */
import { requireMigratedSchema, schemaKnownReady } from "@/lib/db/readiness";
import { requestClientIp } from "./client-ip";
import { authorize } from "./key-policy";
import { rateLimit } from "./rate-limit";
import { checkResponse, errorReply, jsonReply, responseReply, type Reply, type ReplyHeaders, type Seen } from "./reply";
import { parseBody, parseWith } from "./request-body";
import { KEY_HEADER, type Surface } from "./route";
import { routePath, type Router } from "./router";

export async function handle(
  request: Request,
  surface: Surface,
  basePath: string,
  router: Router,
  preflight: Readonly<ReplyHeaders>,
  requestId: string,
  headers: ReplyHeaders,
  seen: Seen,
): Promise<Reply> {
  const url = new URL(request.url);
  const path = routePath(url, basePath);

  // Also the CORS preflight: the path's methods, and the request headers browsers may send.
  if (request.method === "OPTIONS") {
    const allow = router.allowed(path);
    if (!allow.length) return errorReply("not_found", "No such endpoint.");
    const methods = allow.join(", ");
    const own: ReplyHeaders = {};
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
  // Once the schema is known migrated this costs no await (it stays migrated).
  if (route.database !== false && !schemaKnownReady()) await requireMigratedSchema();
  // On every reply of the route, errors included (`headers` is merged into whatever is answered).
  if (route.replyHeaders) Object.assign(headers, route.replyHeaders);
  const ip = requestClientIp(request.headers);

  const principal = await authorize(route, request.headers.get(KEY_HEADER[surface]), surface, request.headers);

  // The body is parsed before limiting only for the profile/theme split.
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
