/**
 * Every environment variable the service reads, parsed once with zod. `||` semantics: an
 * empty value means the default. README's Configuration table lists the same names.
 */
import { z } from "zod";

const flag = z
  .string()
  .optional()
  .transform((v) => /^(1|true|yes|on)$/i.test((v ?? "").trim()));
const optional = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v.trim() : undefined));
const stripSlash = (v: string) => v.replace(/\/+$/, "");

const schema = z.object({
  NODE_ENV: optional,
  PORT: optional.transform((v) => Number(v || 3000)),
  HOST: optional,
  PUBLIC_URL: optional.transform((v) => stripSlash(v || "http://localhost:3000")),
  API_URL: optional,
  RELAY_URL: optional,
  CDN_URL: optional,
  SHARE_URL: optional,
  DATA_DIR: optional,
  DATABASE_URL: optional,
  REDIS_URL: optional,
  TRUST_PROXY: flag,
  /**
   * Multiplies every rate limit. For load tests and benchmarks only (bench:serve sets it so
   * 50 connections measure reads, not 429s); the spec's limits hold at the default 1.
   */
  RATE_LIMIT_SCALE: optional.transform((v) => {
    const n = Number(v || 1);
    return Number.isFinite(n) && n >= 1 ? n : 1;
  }),
  STORAGE: optional.transform((v) => (v || "disk") as "disk" | "s3" | "blob"),
  SIGNING_SECRET: optional,
  REGISTRATION: optional.transform((v) => (v || "open") as "open" | "invite" | "closed"),
  /** Bearer token of GET /metrics; unset, metrics are off (nothing recorded, /metrics is 404). */
  METRICS_TOKEN: optional,
});

export type Env = z.infer<typeof schema> & {
  apiUrl: string;
  relayUrl: string;
  cdnUrl: string;
  shareUrl: string;
};

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const env = schema.parse(source);
  const base = env.PUBLIC_URL;
  return {
    ...env,
    apiUrl: stripSlash(env.API_URL || `${base}/api`),
    relayUrl: stripSlash(env.RELAY_URL || `${base}/relay`),
    cdnUrl: stripSlash(env.CDN_URL || `${base}/cdn`),
    shareUrl: stripSlash(env.SHARE_URL || `${base}/p`),
  };
}

let cached: Env | undefined;
/** The process environment, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
/** Tests change process.env and call this to re-read it. */
export function resetEnv(): void {
  cached = undefined;
}
