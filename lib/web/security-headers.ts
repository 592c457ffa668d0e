/** The security headers of every HTML page (docs/security-headers.md); knows nothing of HTTP requests. */
import { webcrypto } from "node:crypto";

export interface PageHeaderOptions {
  /** Fresh per response: the only way an inline or loaded script is allowed to run. */
  nonce: string;
  /** Share pages may be framed by any site (X/Twitter's player card is the page itself); every other page refuses every frame. */
  frameable: boolean;
  dev: boolean;
  publicUrl: string;
  otherOrigins: readonly string[];
  path?: string;
}

/** 128 random bits, base64: unguessable, and valid in `'nonce-…'`. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  webcrypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64");
}

export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

const isHttps = (url: string): boolean => /^https:/i.test(url);

export function contentSecurityPolicy(options: PageHeaderOptions): string {
  const nonce = `'nonce-${options.nonce}'`;
  const others = [...new Set(options.otherOrigins)];
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    // 'strict-dynamic': scripts Next loads from a trusted (nonced) script are trusted too,
    // so its chunks and hls.js need no list of URLs. 'self' is ignored by CSP3 browsers
    // under 'strict-dynamic' and kept for older ones.
    ["script-src", "'self'", nonce, "'strict-dynamic'", ...(options.dev ? ["'unsafe-eval'"] : [])],
    // Injected <style> elements need the nonce; style="" attributes (React's style prop,
    // used for themes and media sizes) cannot carry one and cannot run code.
    ["style-src", "'self'", "'unsafe-inline'"],
    ["style-src-elem", "'self'", nonce],
    ["style-src-attr", "'unsafe-inline'"],
    // Avatars, thumbnails and GIF search results come from the file origins and from GIF
    // providers; images cannot run code, so any https source is allowed.
    ["img-src", "'self'", "data:", "blob:", "https:", ...others],
    // hls.js plays adaptive video through blob: URLs (Media Source Extensions).
    ["media-src", "'self'", "blob:", "https:", ...others],
    // The dashboard calls the API and Relay; hls.js fetches playlists and segments.
    ["connect-src", "'self'", ...others, ...(options.dev ? ["ws:", "wss:"] : [])],
    ["font-src", "'self'", "data:"],
    // hls.js runs its demuxer in a worker made from a blob: URL.
    ["worker-src", "'self'", "blob:"],
    ["manifest-src", "'self'"],
    ["frame-src", "'none'"],
    ["object-src", "'none'"],
    ["base-uri", "'none'"],
    ["form-action", "'self'"],
    ["frame-ancestors", options.frameable ? "*" : "'none'"],
  ];
  if (isHttps(options.publicUrl)) directives.push(["upgrade-insecure-requests"]);
  return directives.map((d) => d.join(" ")).join("; ");
}

export const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "camera=()",
  "display-capture=()",
  "geolocation=()",
  "gyroscope=()",
  "magnetometer=()",
  "microphone=()",
  "midi=()",
  "payment=()",
  "usb=()",
].join(", ");

/** Two years, without includeSubDomains: an operator's other hosts may not all have TLS. */
export const HSTS = "max-age=63072000";

/**
 * Paths whose own Referrer-Policy is stricter than the pages' (`no-referrer`): the short-link
 * redirect (docs/short-links.md: the target must not learn the code) and the e-mail change's
 * token pages. The proxy keeps it instead of the pages' policy (issue 39 §4).
 */
export const NO_REFERRER_PATHS = /^\/(?:s\/|cancel-email-change$|confirm-email$|reset-password$)/;

export function pageSecurityHeaders(options: PageHeaderOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "content-security-policy": contentSecurityPolicy(options),
    "referrer-policy": options.path && NO_REFERRER_PATHS.test(options.path) ? "no-referrer" : "strict-origin-when-cross-origin",
    "x-content-type-options": "nosniff",
    "permissions-policy": PERMISSIONS_POLICY,
  };
  // For browsers older than frame-ancestors (CSP level 2).
  if (!options.frameable) headers["x-frame-options"] = "DENY";
  if (isHttps(options.publicUrl)) headers["strict-transport-security"] = HSTS;
  return headers;
}
