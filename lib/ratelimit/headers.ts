/** The response headers interface.md ("Limits") prescribes for a rate-limited endpoint. */
import type { WindowResult } from "./store";

/**
 * `X-RateLimit-*` on every response of a limited endpoint; `Retry-After` only on the 429
 * (when `!result.allowed`). Endpoints without a limit send none of these.
 */
export function rateLimitHeaders(result: WindowResult): Record<string, string> {
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(result.limit),
    "X-RateLimit-Remaining": String(result.remaining),
    "X-RateLimit-Reset": String(result.resetAt),
  };
  if (!result.allowed) headers["Retry-After"] = String(result.retryAfter);
  return headers;
}
