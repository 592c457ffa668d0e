/**
 * Delivery offload (docs/delivery-offload.md): /cdn judges a request by every rule as it
 * always does (lib/delivery/decide.ts, then the validators and Range of
 * lib/delivery/conditional.ts), and only the sending of the bytes moves elsewhere.
 *
 * - `x-accel` (disk storage behind nginx or Caddy): a 200 with no body and
 *   `X-Accel-Redirect: <prefix><storage key>`; the proxy serves DATA_DIR/files' file from
 *   an internal location, with our headers.
 * - `redirect` (S3 storage): a 302 to a presigned URL of the object (or its public URL for
 *   a public file when S3_PUBLIC_URL is set); the client fetches the bytes from the bucket.
 *
 * Off by default: every answer is then exactly the service's own. Whatever the mode, a
 * 304, a 416, a HEAD and every refusal are answered here as before (they carry no bytes),
 * and the few requests whose outcome the proxy or bucket would judge by rules of its own
 * (`proxyMaySend`) are served by the service.
 */
import { env, type Env } from "@/lib/config/env";
import type { RangeDecision } from "./conditional";

export type Offload = { mode: "off" } | { mode: "x-accel"; prefix: string } | { mode: "redirect"; publicUrl: string | null };

export const DEFAULT_X_ACCEL_PREFIX = "/_protected/";
/**
 * Longest life of a presigned URL handed out by a redirect (never past the signed link's own
 * expiry): long enough for a player's range requests over a long video, which follow the
 * redirected URL, short enough that a moderated file's old URLs die soon.
 */
export const REDIRECT_MAX_SECONDS = 3600;

const OFF: Offload = { mode: "off" };

/** The mode of these settings; throws when it does not fit the storage. */
export function offloadOf(settings: Pick<Env, "DELIVERY_OFFLOAD" | "X_ACCEL_PREFIX" | "S3_PUBLIC_URL" | "STORAGE">): Offload {
  switch (settings.DELIVERY_OFFLOAD ?? "off") {
    case "x-accel":
      if (settings.STORAGE !== "disk")
        throw new Error("Invalid setting DELIVERY_OFFLOAD: x-accel needs STORAGE=disk (the proxy reads DATA_DIR/files)");
      return { mode: "x-accel", prefix: settings.X_ACCEL_PREFIX ?? DEFAULT_X_ACCEL_PREFIX };
    case "redirect":
      if (settings.STORAGE !== "s3") throw new Error("Invalid setting DELIVERY_OFFLOAD: redirect needs STORAGE=s3");
      return { mode: "redirect", publicUrl: settings.S3_PUBLIC_URL ?? null };
    default:
      return OFF;
  }
}

let configured: { from: Env; offload: Offload } | undefined;

/** The configured mode (checked at start by lib/server/settings.ts); no allocation per request. */
export function configuredOffload(): Offload {
  const current = env();
  if (configured?.from !== current) configured = { from: current, offload: offloadOf(current) };
  return configured.offload;
}

/** A header as Node or a Web Request gives it; null or undefined: absent. */
type HeaderValue = string | readonly string[] | null | undefined;

/** The request headers proxyMaySend reads. */
export interface OffloadPreconditions {
  range: string | null | undefined;
  ifRange: HeaderValue;
  ifMatch: HeaderValue;
  ifUnmodifiedSince: HeaderValue;
}

/** One range in the form every proxy and S3 read alike: `bytes=<first>-[<last>]` or `bytes=-<suffix>`. */
const PLAIN_RANGE = /^bytes=(?:\d+-\d*|-\d+)$/;

/**
 * Whether the bytes of a GET the service would answer with 200 (the whole file) or 206
 * (`decision`) may be sent by the proxy or bucket: only when it would send exactly those.
 * Not when the request has If-Range, If-Match or If-Unmodified-Since, which nginx, Caddy or
 * S3 would judge by validators of their own (the service ignores the last two); nor for a
 * Range the service answers with the whole file (malformed, several ranges) or one written
 * in a form a proxy parses otherwise. Those few are served by the service, as without offload.
 */
export function proxyMaySend(request: OffloadPreconditions, decision: RangeDecision): boolean {
  if (request.ifRange != null || request.ifMatch != null || request.ifUnmodifiedSince != null) return false;
  if (request.range == null) return decision.kind === "full";
  return decision.kind === "partial" && PLAIN_RANGE.test(request.range);
}

/** The presigned URL's lifetime: until `cacheUntil` (a signed link's or the post's expiry) at most, never over the cap. */
export function redirectSeconds(cacheUntil: number | undefined, now: number): number {
  const left = cacheUntil === undefined ? REDIRECT_MAX_SECONDS : Math.floor(cacheUntil - now);
  return Math.max(1, Math.min(REDIRECT_MAX_SECONDS, left));
}
