/** The same-origin rule of the cookie-authenticated surfaces (docs/web-auth.md). */

/** Sec-Fetch-Site (scripts cannot set it), else Origin; a request with neither is not trusted with the cookie. */
export function isSameOrigin(headers: Headers): boolean {
  const site = headers.get("sec-fetch-site");
  if (site) return site === "same-origin";
  const origin = headers.get("origin");
  const host = headers.get("host");
  if (!origin || !host || origin === "null") return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/** The share target's POST is marked `Sec-Fetch-Site: none`, which no other site can send (docs/share-target.md). */
export function isSameOriginOrBrowser(headers: Headers): boolean {
  return headers.get("sec-fetch-site") === "none" || isSameOrigin(headers);
}
