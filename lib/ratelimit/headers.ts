/** The response headers of a rate-limited endpoint (docs/rate-limits.md, "Windows"). */
import type { WindowResult } from "./store";

/** Lower-case, as the dispatcher's replies keep them. */
export const RATE_LIMIT_HEADER = {
  limit: "x-ratelimit-limit",
  remaining: "x-ratelimit-remaining",
  reset: "x-ratelimit-reset",
  retryAfter: "retry-after",
} as const;

/** `X-RateLimit-*` on every response of a limited endpoint, `Retry-After` only on the 429. */
export function rateLimitHeaders(result: WindowResult): Record<string, string> {
  const headers: Record<string, string> = {
    [RATE_LIMIT_HEADER.limit]: String(result.limit),
    [RATE_LIMIT_HEADER.remaining]: String(result.remaining),
    [RATE_LIMIT_HEADER.reset]: String(result.resetAt),
  };
  if (!result.allowed) headers[RATE_LIMIT_HEADER.retryAfter] = String(result.retryAfter);
  return headers;
}
