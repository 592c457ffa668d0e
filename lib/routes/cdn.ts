/**
 * Direct files: /cdn/<code>/<name>, thumbnails /cdn/<code>/thumbs/<name>.jpg, sized
 * renditions /cdn/<code>/r/<width>/<name>.webp (docs/renditions.md), and user media
 * (avatars, banners) /cdn/u/<...>. Files of private posts need the URL's signature.
 * Every reply carries request-id from the custom server; errors are our JSON.
 */
import { kindDelivery } from "../delivery/kinds";
import { verifySignature } from "../crypto/signing";
import { serveObject } from "../delivery/serve";
import { serveHls } from "../delivery/hls";
import { isDomainError } from "../errors";
import { cacheableUntil, deliverableExpired, fileStillStored, findDeliverableFile, type DeliverableFile } from "../posts/files";
import { expireSoon } from "../posts/expiry";
import {
  RENDITION_WIDTHS,
  ensureRendition,
  parseRenditionSegments,
  renditionKey,
  renditionSourceKey,
  type RenditionWidth,
} from "../renditions";
import { carryContentLength, errorResponse } from "../http/respond";

const USER_MEDIA_TYPES: Record<string, string> = {
  webp: "image/webp",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
};

export async function serveCdn(request: Request, basePath = "/cdn"): Promise<Response> {
  const response = await resolveCdn(request, basePath);
  carryContentLength(response.headers);
  return response;
}

async function resolveCdn(request: Request, basePath: string): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse("method_not_allowed", `Method ${request.method} is not allowed here.`, { headers: { allow: "GET, HEAD" } });
  }
  const url = new URL(request.url);
  const path = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length + 1) : "";
  const segments = path.split("/");
  let decoded: string[];
  try {
    decoded = segments.map((s) => decodeURIComponent(s));
  } catch {
    return notFound();
  }

  if (decoded[0] === "u" && decoded.length >= 3 && decoded.every((s) => /^[A-Za-z0-9._-]+$/.test(s) && s !== ".." && s !== ".")) {
    const ext = decoded[decoded.length - 1].split(".").pop()!.toLowerCase();
    const type = USER_MEDIA_TYPES[ext];
    if (!type) return notFound();
    return serveObject(request, { key: decoded.join("/"), contentType: type, immutable: true });
  }

  // Adaptive streams: /cdn/<code>/hls/<name>/<playlist or segment> (lib/delivery/hls.ts).
  const hls = await serveHls(request, path, decoded);
  if (hls) return hls;

  const rendition = parseRenditionSegments(decoded.slice(1));
  if (rendition?.kind === "bad") {
    return errorResponse("not_found", `No such rendition: the widths are ${RENDITION_WIDTHS.join(" and ")}, as WebP.`);
  }
  if (rendition) return serveRendition(request, url, path, decoded[0], rendition.name, rendition.width);

  const thumb = decoded.length === 3 && decoded[1] === "thumbs" && decoded[2].endsWith(".jpg");
  if (decoded.length !== 2 && !thumb) return notFound();
  const code = decoded[0];
  const name = thumb ? decoded[2].slice(0, -".jpg".length) : decoded[1];
  const file = await findDeliverableFile(code, name);
  if (!file || (thumb && !file.thumbnailKey)) return notFound();
  if (deliverableExpired(file)) {
    // Expired: 404 at once, whatever a cache or a signature says, and deleted now (docs/expiry.md).
    expireSoon(code);
    return notFound();
  }
  const exp = url.searchParams.get("exp") ?? "";
  if (file.signed) {
    const sig = url.searchParams.get("sig") ?? "";
    if (!verifySignature(path, exp, sig)) {
      return errorResponse("forbidden", "This link is not valid or has expired; request the post again for a fresh one.");
    }
  }
  if (file.moderated) return errorResponse("moderated", "This file is under moderation.");
  // A signed URL may be cached only until it expires; an expiring post's files only until the post does.
  const until = cacheableUntil(file, file.signed ? Number(exp) : undefined);
  return serveObject(request, {
    // Text and other files: headers by kind (lib/delivery/kinds.ts).
    ...(thumb ? {} : kindDelivery(file)),
    key: thumb ? file.thumbnailKey! : file.storageKey,
    contentType: thumb ? "image/jpeg" : file.mimeType,
    immutable: until === undefined,
    ...(until !== undefined ? { expiresAt: until } : {}),
  });
}

async function serveRendition(
  request: Request,
  url: URL,
  path: string,
  code: string,
  name: string,
  width: RenditionWidth,
): Promise<Response> {
  const file = await findDeliverableFile(code, name);
  const sourceKey = file ? renditionSourceKey(file) : null;
  if (!file || !sourceKey) return notFound();
  if (deliverableExpired(file)) {
    expireSoon(code);
    return notFound();
  }
  const refused = refusal(file, path, url);
  if (refused) return refused;
  const key = renditionKey(file.storageKey, width);
  try {
    await ensureRendition({ sourceKey, key, width, stillWanted: () => fileStillStored(file.storageKey) });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const headers: Record<string, string> = error.retryAfter ? { "retry-after": String(error.retryAfter) } : {};
    return errorResponse(error.type, error.message, { status: error.httpStatus, headers });
  }
  const exp = url.searchParams.get("exp") ?? "";
  const until = cacheableUntil(file, file.signed ? Number(exp) : undefined);
  return serveObject(request, {
    key,
    contentType: "image/webp",
    immutable: until === undefined,
    ...(until !== undefined ? { expiresAt: until } : {}),
  });
}

/** The original's rules for a derived object: a signature for hidden posts, nothing under moderation. */
function refusal(file: DeliverableFile, path: string, url: URL): Response | null {
  if (file.signed && !verifySignature(path, url.searchParams.get("exp") ?? "", url.searchParams.get("sig") ?? "")) {
    return errorResponse("forbidden", "This link is not valid or has expired; request the post again for a fresh one.");
  }
  if (file.moderated) return errorResponse("moderated", "This file is under moderation.");
  return null;
}

const notFound = () => errorResponse("not_found", "No such file.");
