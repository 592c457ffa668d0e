/**
 * When the share page of an expiring post stops being valid, for the robots' page cache
 * (lib/server/page-cache.ts): a replayed page must not outlive its post (docs/expiry.md),
 * and an expiry is no database change the cache would notice. The share page notes the
 * expiry of every expiring post it renders; the cache drops a page whose time has come.
 *
 * One map per process, on globalThis, like the delivery cache: the page renders in Next's
 * copy of this code and the cache runs in the custom server's.
 */
const MAX_ENTRIES = 10_000;

const shared = globalThis as unknown as { __mediahostPageExpiry?: Map<string, number> };
const expiries = (shared.__mediahostPageExpiry ??= new Map<string, number>());

/** Records that the page of `code` is valid until `expiresAt` (epoch ms). */
export function notePageExpiry(code: string, expiresAt: number): void {
  expiries.delete(code);
  if (expiries.size >= MAX_ENTRIES) expiries.delete(expiries.keys().next().value as string);
  expiries.set(code, expiresAt);
}

/** True when the page of `code` belongs to a post that has expired by `now`. */
export function pageExpired(code: string, now: number = Date.now()): boolean {
  const at = expiries.get(code);
  return at !== undefined && at <= now;
}
