/**
 * Custom link domains: `https://{link domain}/{code}` shows the same share page as
 * `/p/{code}`. Requests of one path segment on a host that may be a link domain are
 * rewritten to `/p/{code}` with `x-link-domain` set, and the page checks that the post's
 * author owns that domain (lib/web/share.ts). The matcher keeps every other path (the API,
 * uploads, files, assets) out of the proxy: Next would buffer their bodies otherwise.
 */
import { NextResponse, type NextRequest } from "next/server";
import { isPossibleLinkDomain } from "@/lib/web/link-host";

export function proxy(request: NextRequest): NextResponse {
  const host = isPossibleLinkDomain(request.headers.get("host"));
  if (!host) return NextResponse.next();
  const url = request.nextUrl.clone();
  url.pathname = `/p${url.pathname}`;
  const headers = new Headers(request.headers);
  headers.set("x-link-domain", host);
  return NextResponse.rewrite(url, { request: { headers } });
}

export const config = {
  // One segment of share-code characters (lib/posts/codes.ts isShareCode).
  matcher: ["/:code([A-Za-z0-9]{4,64})"],
};
