/**
 * Every page request passes here (Next 16's middleware) before it is rendered:
 *
 * - Security headers (docs/security-headers.md): a fresh CSP nonce per response, handed to
 *   Next in the request's `content-security-policy` header, from which Next reads it and
 *   puts it on its own scripts (and `x-nonce` for our components); the same policy, framing
 *   rules and hardening headers on the response (lib/web/security-headers.ts).
 * - Cross-origin mutations of pages (server actions are POSTs to a page URL) are refused
 *   with 403 before Next sees them; Next's own Origin check answers a 500 instead.
 * - Custom link domains: `https://{link domain}/{code}` shows the same share page as
 *   `/p/{code}`. Requests of one path segment on a host that may be a link domain are
 *   rewritten to `/p/{code}` with `x-link-domain` set, and the page checks that the post's
 *   author owns that domain (lib/web/share.ts).
 *
 * The matcher keeps the API, Relay, files, Next's assets, health and oEmbed (none of them
 * HTML) out of the proxy: Next would buffer their bodies otherwise.
 */
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/config/env";
import { errorBody } from "@/lib/http/respond";
import { requireMigratedSchema } from "@/lib/db/readiness";
import { isDomainError } from "@/lib/errors";
import { isSameOrigin } from "@/lib/auth/same-origin";
import { isPossibleLinkDomain } from "@/lib/web/link-host";
import { newNonce, originOf, pageSecurityHeaders } from "@/lib/web/security-headers";

/** One segment of share-code characters (lib/posts/codes.ts isShareCode). */
const LINK_DOMAIN_PATH = /^\/[A-Za-z0-9]{4,64}$/;
const SHARE_PAGE_PATH = /^\/p\/[A-Za-z0-9]{4,64}$/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function crossOriginRefusal(): NextResponse {
  return NextResponse.json(errorBody("forbidden", "Cross-origin requests cannot change anything here."), {
    status: 403,
    headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" },
  });
}

function otherOrigins(): string[] {
  const e = env();
  const own = originOf(e.PUBLIC_URL);
  return [e.apiUrl, e.relayUrl, e.cdnUrl].map(originOf).filter((origin): origin is string => origin !== null && origin !== own);
}

/** Pages and server actions while migrations are pending (docs/deploy.md, "Readiness"): 503 naming the command. */
async function notMigrated(): Promise<NextResponse | null> {
  try {
    await requireMigratedSchema();
    return null;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return NextResponse.json(errorBody(error.type, error.message), {
      status: error.httpStatus,
      headers: { "cache-control": "no-store", "retry-after": "30", "x-content-type-options": "nosniff" },
    });
  }
}

export async function proxy(request: NextRequest): Promise<NextResponse> {
  if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request.headers)) return crossOriginRefusal();
  const refusal = await notMigrated();
  if (refusal) return refusal;

  const path = request.nextUrl.pathname;
  const linkHost = LINK_DOMAIN_PATH.test(path) ? isPossibleLinkDomain(request.headers.get("host")) : null;
  const nonce = newNonce();
  const security = pageSecurityHeaders({
    nonce,
    frameable: linkHost !== null || SHARE_PAGE_PATH.test(path),
    dev: process.env.NODE_ENV === "development",
    publicUrl: env().PUBLIC_URL,
    otherOrigins: otherOrigins(),
    path,
  });

  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", security["content-security-policy"]);
  let response: NextResponse;
  if (linkHost) {
    headers.set("x-link-domain", linkHost);
    const url = request.nextUrl.clone();
    url.pathname = `/p${path}`;
    response = NextResponse.rewrite(url, { request: { headers } });
  } else {
    response = NextResponse.next({ request: { headers } });
  }
  for (const [name, value] of Object.entries(security)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [
    "/((?!api/|api$|relay/|relay$|cdn/|cdn$|_next/static/|_next/image|healthz|cron$|oembed|share-target$|favicon\\.ico|icon\\.svg).*)",
  ],
};
