/**
 * The client address used for per-IP limits, view de-duplication and reports.
 *
 * Route handlers get no socket, so the custom server decides the address once, with
 * `resolveClientIp`, and passes it in the `x-client-ip` request header (overwriting any
 * value the client sent). Route code reads it back with `clientIp`.
 */

/**
 * One address in a canonical form, so one client maps to one counter key: trimmed,
 * lower-cased, IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a dual-stack socket reports for
 * IPv4 clients) reduced to the IPv4 address, and a port some proxies append
 * (`1.2.3.4:5678`, `[2001:db8::1]:443`) removed.
 */
export function normalizeIp(value: string): string {
  let ip = value.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip);
  if (bracketed) ip = bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(ip);
  if (v4WithPort) ip = v4WithPort[1];
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(ip);
  if (mapped) ip = mapped[1];
  return ip;
}

/** The left-most (original client) entry of X-Forwarded-For, normalised; "" if none. */
function leftMostForwarded(forwardedFor: string | string[] | null | undefined): string {
  // Node joins repeated X-Forwarded-For headers with ", "; an array (from raw headers)
  // is the same list in order.
  const list = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  for (const entry of list.split(",")) {
    const ip = normalizeIp(entry);
    if (ip) return ip;
  }
  return "";
}

/**
 * The rule the custom server applies (operations.md): the socket's address, or with
 * TRUST_PROXY=1 the left-most X-Forwarded-For entry (falling back to the socket when the
 * header is missing). Without TRUST_PROXY the header is ignored: anyone can send it.
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = leftMostForwarded(forwardedFor);
    if (forwarded) return forwarded;
  }
  return normalizeIp(socketAddress ?? "") || "unknown";
}

/**
 * The client address of a request inside a route handler: `x-client-ip` as set by the
 * custom server. The X-Forwarded-For fallback only matters when the app runs without that
 * server (e.g. `next dev` on its own), where Next itself fills the header from the socket.
 */
export function clientIp(headers: Headers): string {
  return (
    normalizeIp(headers.get("x-client-ip") ?? "") ||
    leftMostForwarded(headers.get("x-forwarded-for")) ||
    "unknown"
  );
}
