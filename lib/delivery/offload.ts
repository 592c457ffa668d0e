/**
 * Delivery offload (docs/delivery-offload.md): /cdn judges every request as always, and only the
 * sending of a 200's or 206's bytes moves to the proxy (`x-accel`) or the bucket (`redirect`).
 */
import { env, type Env } from "@/lib/config/env";
import type { RangeDecision } from "./conditional";

export type Offload = { mode: "off" } | { mode: "x-accel"; prefix: string } | { mode: "redirect"; publicUrl: string | null };

export const DEFAULT_X_ACCEL_PREFIX = "/_protected/";
/** Long enough for a player's range requests over a long video, short enough that a moderated file's old URLs die soon. */
export const REDIRECT_MAX_SECONDS = 3600;

const OFF: Offload = { mode: "off" };

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

type HeaderValue = string | readonly string[] | null | undefined;

export interface OffloadPreconditions {
  range: string | null | undefined;
  ifRange: HeaderValue;
  ifMatch: HeaderValue;
  ifUnmodifiedSince: HeaderValue;
}

/** One range in the form every proxy and S3 read alike: `bytes=<first>-[<last>]` or `bytes=-<suffix>`. */
const PLAIN_RANGE = /^bytes=(?:\d+-\d*|-\d+)$/;

/**
 * Whether the proxy or bucket would send exactly the bytes we would. Not with If-Range, If-Match
 * or If-Unmodified-Since (they judge by validators of their own), nor for a Range we answer
 * with the whole file or one a proxy parses otherwise.
 */
export function proxyMaySend(request: OffloadPreconditions, decision: RangeDecision): boolean {
  if (request.ifRange != null || request.ifMatch != null || request.ifUnmodifiedSince != null) return false;
  if (request.range == null) return decision.kind === "full";
  return decision.kind === "partial" && PLAIN_RANGE.test(request.range);
}

/** Until `cacheUntil` at most, never over the cap. */
export function redirectSeconds(cacheUntil: number | undefined, now: number): number {
  const left = cacheUntil === undefined ? REDIRECT_MAX_SECONDS : Math.floor(cacheUntil - now);
  return Math.max(1, Math.min(REDIRECT_MAX_SECONDS, left));
}
