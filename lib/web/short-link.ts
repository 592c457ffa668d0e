/**
 * GET /s/{code} (docs/short-links.md): 302 to the link's target, or a 404 page once the
 * link is gone (deleted, expired, used up, its owner suspended). Never cached anywhere:
 * every visit must reach the server to be counted and, for a limited link, to spend a click.
 */
import { requestClientIp } from "../http/client-ip";
import { followLink, LINK_CODE_PATTERN } from "../links/links";

const NO_STORE = { "cache-control": "private, no-store", "referrer-policy": "no-referrer" } as const;

const GONE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Link not found</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;text-align:center"><p style="color:#666">404</p><h1>Link not found</h1><p>This short link does not exist, has expired or was used up.</p></body></html>`;

export async function shortLinkResponse(code: string, headers: Headers): Promise<Response> {
  const target = LINK_CODE_PATTERN.test(code) ? await followLink(code, requestClientIp(headers)) : null;
  if (target === null) {
    return new Response(GONE_PAGE, { status: 404, headers: { ...NO_STORE, "content-type": "text/html; charset=utf-8" } });
  }
  return new Response(null, { status: 302, headers: { ...NO_STORE, location: target } });
}
