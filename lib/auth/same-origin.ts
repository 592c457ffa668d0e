/**
 * The same-origin rule of the cookie-authenticated surfaces (docs/web-auth.md): the API and
 * Relay trust the web session cookie only on same-origin requests, and proxy.ts refuses
 * cross-origin mutations of the pages (server actions).
 */

/**
 * Whether the request comes from one of our own pages. Browsers send Sec-Fetch-Site on
 * every request (it cannot be set by scripts); older ones at least send Origin on
 * cross-origin fetches and on POSTs. A request with neither is not trusted with the cookie.
 */
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

/**
 * The share target's rule (docs/share-target.md): an installed app's share-sheet POST is a
 * navigation the browser starts itself, which Fetch Metadata marks `Sec-Fetch-Site: none`;
 * no other site can make a request that says so, so it is as safe as same-origin.
 */
export function isSameOriginOrBrowser(headers: Headers): boolean {
  return headers.get("sec-fetch-site") === "none" || isSameOrigin(headers);
}
