/** Response headers of direct files (docs/security-headers.md). */
import { env } from "@/lib/config/env";
import { normalizeContentType } from "@/lib/storage/keys";

/** The only types sent inline; anything else, HTML and SVG included, is an octet-stream attachment. */
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

export const BROWSER_MAX_AGE = 31_536_000;
export const DEFAULT_SHARED_CACHE_SECONDS = 60;
/** Never longer than a signed URL lives, whatever the signature says. */
export const MAX_PRIVATE_MAX_AGE = 86_400;

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
  inline: boolean;
}

export function resolveType(contentType: string): ResolvedType {
  const type = normalizeContentType(contentType);
  return INLINE_TYPES.has(type) ? { contentType: type, inline: true } : { contentType: "application/octet-stream", inline: false };
}

/** RFC 6266 disposition: an ASCII fallback in `filename`, the exact name in `filename*`. */
export function contentDisposition(disposition: "inline" | "attachment", filename?: string): string {
  if (!filename) return disposition;
  const name = filename.replace(/[\\/]/g, "_");
  const ascii = name.replace(/[^\x20-\x7e]|["%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A browser keeps a public file a year, a shared cache only SHARED_CACHE_SECONDS, so a file made
 * private or deleted gets our refusal on revalidation (docs/operations.md, "Caching public files").
 * Memoized: the fast lane asks on every request.
 */
let memo: { seconds: number; value: string } | undefined;
export function publicCacheControl(seconds: number = env().SHARED_CACHE_SECONDS ?? DEFAULT_SHARED_CACHE_SECONDS): string {
  if (memo?.seconds !== seconds) memo = { seconds, value: `public, max-age=${BROWSER_MAX_AGE}, s-maxage=${seconds}, immutable` };
  return memo.value;
}

/** `public` only for files anyone may have for good; anything else `private`, up to its expiry. */
export function cacheControl(immutable: boolean, expiresAt: number | undefined, now: number): string {
  if (immutable) return publicCacheControl();
  if (expiresAt === undefined) return "private, no-cache";
  const maxAge = Math.max(0, Math.min(MAX_PRIVATE_MAX_AGE, Math.floor(expiresAt - now)));
  return `private, max-age=${maxAge}`;
}
