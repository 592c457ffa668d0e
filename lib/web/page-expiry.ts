/**
 * Expiry times of rendered share pages, so the robots' page cache drops a page whose post has
 * expired (no database change to notice; docs/expiry.md). On globalThis because Next loads two
 * copies: the page renders in Next's, the cache runs in the custom server's.
 */
const MAX_ENTRIES = 10_000;

const shared = globalThis as unknown as { __mediahostPageExpiry?: Map<string, number> };
const expiries = (shared.__mediahostPageExpiry ??= new Map<string, number>());

export function notePageExpiry(code: string, expiresAt: number): void {
  expiries.delete(code);
  if (expiries.size >= MAX_ENTRIES) expiries.delete(expiries.keys().next().value as string);
  expiries.set(code, expiresAt);
}

export function pageExpired(code: string, now: number = Date.now()): boolean {
  const at = expiries.get(code);
  return at !== undefined && at <= now;
}
