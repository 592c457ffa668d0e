/**
 * Direct files, the general lane: any storage, any method, a Web Response. What a path names and
 * whether it is served are lib/delivery/'s; this file only looks up and answers, as cdn-lane.ts does.
 */
import { parseCdnPath, type CdnTarget } from "@/lib/delivery/cdn-path";
import { decideDelivery, REFUSALS, type Delivery, type RefusalReason } from "@/lib/delivery/decide";
import { serveHls } from "@/lib/delivery/hls";
import { serveObject } from "@/lib/delivery/serve";
import { kindDelivery } from "@/lib/delivery/kinds";
import { isDomainError } from "@/lib/errors";
import { refusalFor } from "@/lib/faults/classify";
import { carryContentLength, errorResponse } from "@/lib/http/respond";
import { expireSoon } from "@/lib/posts/expiry";
import { fileStillStored, findDeliverableFile } from "@/lib/posts/files";
import { ensureRendition } from "@/lib/renditions";

export async function serveCdn(request: Request, basePath = "/cdn"): Promise<Response> {
  const response = await resolveCdn(request, basePath).catch(unavailable);
  carryContentLength(response.headers);
  return response;
}

/** A dependency away (docs/faults.md): 503 `unavailable` with Retry-After; any other error goes on up. */
function unavailable(error: unknown): Response {
  const refused = refusalFor(error);
  if (!refused) throw error;
  return errorResponse("unavailable", refused.message, { headers: { "retry-after": String(refused.retryAfter) } });
}

async function resolveCdn(request: Request, basePath: string): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse("method_not_allowed", `Method ${request.method} is not allowed here.`, { headers: { allow: "GET, HEAD" } });
  }
  const url = new URL(request.url);
  const path = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length + 1) : "";
  const target = parseCdnPath(path);
  switch (target.kind) {
    case "none":
      return errorResponse("not_found", target.message);
    case "user":
      return serveObject(request, { key: target.key, contentType: target.contentType, immutable: true });
    case "hls":
      return serveHls(request, target, url.searchParams);
    default:
      return servePostFile(request, target, url.search.slice(1));
  }
}

async function servePostFile(request: Request, target: Extract<CdnTarget, { kind: "original" | "thumb" | "rendition" }>, query: string) {
  const file = await findDeliverableFile(target.code, target.name);
  const delivery = decideDelivery(target, query, file);
  if (delivery.kind === "refuse") return refusal(delivery.reason, target.code);
  if (delivery.make) {
    const made = await makeRendition(delivery);
    if (made) return made;
  }
  return serveObject(request, {
    // Text and other files: headers by kind (lib/delivery/kinds.ts).
    ...(target.kind === "original" && file ? kindDelivery(file) : {}),
    key: delivery.key,
    contentType: delivery.contentType,
    immutable: delivery.cacheUntil === undefined,
    ...(delivery.cacheUntil !== undefined ? { expiresAt: delivery.cacheUntil } : {}),
  });
}

async function makeRendition(delivery: Extract<Delivery, { kind: "serve" }>): Promise<Response | null> {
  const { sourceKey, width, fileKey } = delivery.make!;
  try {
    await ensureRendition({ sourceKey, key: delivery.key, width, stillWanted: () => fileStillStored(fileKey) });
    return null;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const headers: Record<string, string> = error.retryAfter ? { "retry-after": String(error.retryAfter) } : {};
    return errorResponse(error.type, error.message, { status: error.httpStatus, headers });
  }
}

function refusal(reason: RefusalReason, code: string): Response {
  // Expired: 404 at once, whatever a cache or a signature says, and deleted now (docs/expiry.md).
  if (reason === "expired") expireSoon(code);
  const { error, message } = REFUSALS[reason];
  return errorResponse(error, message);
}
