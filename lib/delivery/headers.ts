/**
 * Response headers of direct files: which types a browser may render, how a file is
 * named, how long it may be cached, and the hardening every file response carries.
 */
import { env } from "@/lib/config/env";
import { normalizeContentType } from "@/lib/storage/keys";

/**
 * The only types sent as themselves (inline). Anything else, HTML and SVG included, is
 * sent as application/octet-stream with `Content-Disposition: attachment`: whatever ends
 * up in storage, the browser never renders or runs it on our origin.
 */
export const INLINE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif",
  "image/avif",
  "video/mp4",
  "audio/mpeg",
  "application/vnd.apple.mpegurl",
  "video/mp2t",
]);

/** How long a browser keeps a public file: a year (a changed file gets a new key). */
export const BROWSER_MAX_AGE = 31_536_000;
/** SHARED_CACHE_SECONDS when unset. */
export const DEFAULT_SHARED_CACHE_SECONDS = 60;
/** Never longer than a signed URL lives, whatever the signature says. */
export const MAX_PRIVATE_MAX_AGE = 86_400;

/** Sent on every file response, including 304, 404 and 416. */
export const FILE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  // Even a file opened directly runs no script and loads nothing: `sandbox` gives it an
  // opaque origin, `default-src 'none'` blocks every fetch.
  "content-security-policy": "default-src 'none'; sandbox",
  // Other sites may embed our media (<img>, <video>, Discord's proxy, forum hotlinks)...
  "cross-origin-resource-policy": "cross-origin",
  // ...and read it with fetch (hls.js players fetch playlists and segments). No
  // credentials are involved: a file URL, signed or not, is itself the capability.
  "access-control-allow-origin": "*",
};

export interface ResolvedType {
  contentType: string;
  /** True when the browser may display it; false forces a download. */
  inline: boolean;
}

export function resolveType(contentType: string): ResolvedType {
  const type = normalizeContentType(contentType);
  return INLINE_TYPES.has(type) ? { contentType: type, inline: true } : { contentType: "application/octet-stream", inline: false };
}

/**
 * `attachment; filename="a.png"; filename*=UTF-8''a.png`. The quoted form is a plain ASCII
 * fallback (quotes, backslashes, control and non-ASCII characters replaced); `filename*`
 * carries the exact name for clients that read RFC 6266.
 */
export function contentDisposition(disposition: "inline" | "attachment", filename?: string): string {
  if (!filename) return disposition;
  const name = filename.replace(/[\\/]/g, "_");
  const ascii = name.replace(/[^\x20-\x7e]|["%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A public, unexpiring, view-unlimited file: a browser keeps it a year (`max-age`, `immutable`:
 * its bytes never change under its URL), but a shared cache (a proxy, a CDN) only
 * SHARED_CACHE_SECONDS (`s-maxage`, which also obliges it to revalidate once stale): the
 * file may become private, be deleted, moderated or expire, and then the cache must ask
 * again, with the ETag, and get our refusal (docs/operations.md, "Caching public files").
 * Memoized per value: the fast lane asks on every request.
 */
let memo: { seconds: number; value: string } | undefined;
export function publicCacheControl(seconds: number = env().SHARED_CACHE_SECONDS ?? DEFAULT_SHARED_CACHE_SECONDS): string {
  if (memo?.seconds !== seconds) memo = { seconds, value: `public, max-age=${BROWSER_MAX_AGE}, s-maxage=${seconds}, immutable` };
  return memo.value;
}

/**
 * `public` only for files anyone may have for good (above). Anything else (a private,
 * hidden, signed, password-protected, view-limited or expiring post's file) is `private`:
 * no shared cache keeps it, a browser until the signature or the post expires; without an
 * expiry it must be revalidated each time.
 */
export function cacheControl(immutable: boolean, expiresAt: number | undefined, now: number): string {
  if (immutable) return publicCacheControl();
  if (expiresAt === undefined) return "private, no-cache";
  const maxAge = Math.max(0, Math.min(MAX_PRIVATE_MAX_AGE, Math.floor(expiresAt - now)));
  return `private, max-age=${maxAge}`;
}
