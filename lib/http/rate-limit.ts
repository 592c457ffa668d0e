/** The rate-limit step of the pipeline; the cached read counts with the store's synchronous `hitNow`. */
import { DomainError } from "@/lib/errors";
import { recordRateLimited } from "@/lib/metrics/registry";
import { counterStore } from "@/lib/ratelimit";
import { BUCKETS, bucketRule, ipSubject, principalSubject, type BucketName, type BucketRule } from "@/lib/ratelimit/buckets";
import { rateLimitHeaders } from "@/lib/ratelimit/headers";
import type { WindowResult } from "@/lib/ratelimit/store";
import type { Principal } from "@/lib/types/principal";
import type { ReplyHeaders } from "./reply";

/** Counts the request against its bucket; the limit headers go into `headers`, a denied hit throws 429. */
export async function rateLimit(bucket: BucketName, principal: Principal | null, ip: string, headers: ReplyHeaders): Promise<void> {
  const { key, limit, windowSeconds } = rateRule(bucket, principal, ip);
  applyRateResult(await counterStore().hit(key, limit, windowSeconds), headers, bucket);
}

/** The counter a request counts against: per account (or team), or per IP for IP-scoped buckets and anonymous calls. */
export function rateRule(bucket: BucketName, principal: Principal | null, ip: string): BucketRule {
  const subject = BUCKETS[bucket].scope === "ip" || !principal ? ipSubject(ip) : principalSubject(principal);
  return bucketRule(bucket, subject);
}

export function applyRateResult(result: WindowResult, headers: ReplyHeaders, bucket: BucketName): void {
  Object.assign(headers, rateLimitHeaders(result));
  if (!result.allowed) {
    recordRateLimited(bucket);
    throw new DomainError("rate_limited", `Too many requests; retry in ${result.retryAfter} s.`);
  }
}
