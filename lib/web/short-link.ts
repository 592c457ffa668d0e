/** GET /s/{code} (docs/short-links.md): never cached, since every visit must be counted and may spend a click. */
import { requestClientIp } from "@/lib/http/client-ip";
import { comesBack, followLink, LINK_CODE_PATTERN, leadsBack } from "@/lib/links/links";
import { referringHost } from "@/lib/links/visits";

const NO_STORE = { "cache-control": "private, no-store", "referrer-policy": "no-referrer" } as const;

const GONE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Link not found</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;text-align:center"><p style="color:#666">404</p><h1>Link not found</h1><p>This short link does not exist, has expired or was used up.</p></body></html>`;

const LOOP_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Link loops</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;text-align:center"><p style="color:#666">508</p><h1>This link leads back to itself</h1><p>The redirect was stopped: following it would go round in circles.</p></body></html>`;

const page = (body: string, status: number) =>
  new Response(body, { status, headers: { ...NO_STORE, "content-type": "text/html; charset=utf-8" } });

export async function shortLinkResponse(code: string, headers: Headers): Promise<Response> {
  if (!LINK_CODE_PATTERN.test(code)) return page(GONE_PAGE, 404);
  const ip = requestClientIp(headers);
  // A redirect chain that comes back stops here (issue 39 §4), before a click is spent.
  if (await comesBack(code, ip)) return page(LOOP_PAGE, 508);
  // Only the referring page's host is kept, never the address (docs/qr-and-visits.md).
  const target = await followLink(code, ip, new Date(), referringHost(headers.get("referer")));
  if (target === null) return page(GONE_PAGE, 404);
  // A target stored before a host became ours (a new link domain, a changed URL) loops now.
  if (await leadsBack(target)) return page(LOOP_PAGE, 508);
  return new Response(null, { status: 302, headers: { ...NO_STORE, location: target } });
}
