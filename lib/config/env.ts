/**
 * The service-wide environment variables, parsed once with zod: an empty value means the
 * default, any other value that does not parse is refused, naming the variable. Every
 * variable is in docs/configuration.md; a subsystem's own settings are parsed beside it and
 * listed in lib/server/settings.ts. Only lib/config/process-env.ts writes `process.env`.
 */
import { z } from "zod";
import { parseBytes } from "@/lib/plans";
import { isPrivacy, PRIVACY_CHOICES, type Privacy } from "@/lib/types/privacy";
import { parseDomains } from "./domains";
import { optionalInt } from "./env-fields";
import { type Environment, forgetMergedSource, settingsSource, storedVersion } from "./stored-settings";
import { parseTrustProxy, type TrustProxy } from "./trust-proxy";

const optional = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));
const stripSlash = (v: string) => v.replace(/\/+$/, "");
const DEFAULT_PORT = 3000;

/** PORT=0 (any free port) is not known until the server listens; scripts/start.ts then sets PUBLIC_URL itself. */
export function publicUrlDefault(port: number): string {
  return `http://localhost:${Number.isInteger(port) && port > 0 ? port : DEFAULT_PORT}`;
}

/** A byte count ("4GB", "512 MB", "1048576"), or undefined when unset. */
const optionalBytes = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (!v?.trim()) return undefined;
    const n = parseBytes(v);
    if (n === null) {
      ctx.addIssue({ code: "custom", message: "must be a byte count such as 4GB, 512MB or 1048576" });
      return z.NEVER;
    }
    return n;
  });

/** Read by lib/media/config.ts through `setting` (docs/media.md, "Limits"). */
const mediaQueueFields = {
  MEDIA_QUEUE_BYTES: optionalBytes,
  MEDIA_QUEUE_WAIT_SECONDS: optionalInt(0),
};

/** Crash recovery (docs/crash-recovery.md). */
const recoveryFields = {
  RECOVERY_INTERVAL_SECONDS: optionalInt(0),
  RECOVERY_ORPHAN_AGE_SECONDS: optionalInt(60),
  VIEW_LIMIT_GRACE_SECONDS: optionalInt(0),
};

/** Webhooks (docs/webhooks.md). */
const webhookFields = {
  WEBHOOK_ALLOW_PRIVATE: optional,
  WEBHOOK_ATTEMPTS: optionalInt(1),
  WEBHOOK_RETRY_BASE_MS: optionalInt(0),
  WEBHOOK_DISABLE_AFTER: optionalInt(1),
  WEBHOOK_TIMEOUT_MS: optionalInt(100),
  WEBHOOK_LOG_KEEP: optionalInt(1),
  URL_UPLOAD_TIMEOUT_MS: optionalInt(100),
  URL_UPLOAD_MAX_REDIRECTS: optionalInt(0),
};

/** Accounts (docs/web-auth.md). */
const accountFields = {
  SESSION_IDLE_DAYS: optionalInt(0),
  SESSION_MAX_DAYS: optionalInt(0),
  SMTP_URL: optional,
  MAIL_FROM: optional,
  DNS_RESOLVER: optional,
};

/** Background jobs (docs/priority-delivery.md). */
const jobFields = {
  JOB_QUEUE_NAME: optional,
  JOB_POLL_MS: optionalInt(1),
  JOB_RETRY_BASE_MS: optionalInt(0),
};

/** UPLOAD_FILES (docs/file-kinds.md): `media` is always on; `text` adds text files, `all` every file. */
export type UploadFiles = "media" | "media,text" | "all";
const uploadFiles = z
  .string()
  .optional()
  .transform((v, ctx): UploadFiles => {
    const items = (v ?? "")
      .split(",")
      .map((item) => item.trim().toLowerCase())
      .filter(Boolean);
    const unknown = items.find((item) => item !== "media" && item !== "text" && item !== "all");
    if (unknown !== undefined) {
      ctx.addIssue({ code: "custom", message: `UPLOAD_FILES must be media, media,text or all (got "${unknown}")` });
      return z.NEVER;
    }
    return items.includes("all") ? "all" : items.includes("text") ? "media,text" : "media";
  });

/** Reading text in images with Tesseract (docs/ocr.md). */
const ocrFields = {
  OCR: optional.pipe(z.enum(["on", "off"], { error: "must be on or off" }).optional()),
  TESSERACT_PATH: optional,
  OCR_LANGUAGE: optional,
  OCR_CONCURRENCY: optionalInt(1),
  OCR_TIMEOUT_SECONDS: optionalInt(1),
  OCR_MAX_BYTES: optionalBytes,
};

const schema = z.object({
  NODE_ENV: optional,
  PORT: optional.transform((v) => Number(v || DEFAULT_PORT)),
  HOST: optional,
  PUBLIC_URL: optional.transform((v) => (v ? stripSlash(v) : undefined)),
  API_URL: optional,
  RELAY_URL: optional,
  CDN_URL: optional,
  SHARE_URL: optional,
  SHORT_URL: optional,
  /** The other host names the instance answers on, and what each serves (domains.ts, docs/domains.md); unset: none. */
  DOMAINS: optional.transform((v, ctx) => {
    try {
      return v ? parseDomains(v) : [];
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  DATA_DIR: optional,
  DATABASE_URL: optional,
  DATABASE_POOL_SIZE: optionalInt(1),
  DATABASE_CONNECT_TIMEOUT_MS: optionalInt(0),
  DATABASE_QUERY_TIMEOUT_MS: optionalInt(0),
  DATABASE_BUSY_TIMEOUT_MS: optionalInt(0),
  HEALTHZ_TIMEOUT_MS: optionalInt(1),
  DELIVERY_STALE_SECONDS: optionalInt(0),
  SHARED_CACHE_SECONDS: optionalInt(0),
  REDIS_URL: optional,
  REDIS_PREFIX: optional,
  BACKGROUND_WORK: optional.transform((v) => !/^(0|false|no|off)$/i.test(v ?? "")),
  CRON_SECRET: optional,
  TRUST_PROXY: optional,
  TRUST_PROXY_HEADER: optional,
  /** For load tests whose client cannot spread its requests over many keys; the documented limits hold at 1. */
  RATE_LIMIT_SCALE: optional.transform((v) => {
    const n = Number(v || 1);
    return Number.isFinite(n) && n >= 1 ? n : 1;
  }),
  STORAGE: optional.transform((v) => (v || "disk") as "disk" | "s3" | "blob"),
  /** lib/storage/config.ts checks the S3 combinations. */
  S3_BUCKET: optional,
  S3_REGION: optional,
  S3_ENDPOINT: optional,
  S3_ACCESS_KEY_ID: optional,
  S3_SECRET_ACCESS_KEY: optional,
  S3_FORCE_PATH_STYLE: optional.transform((v) => (v === undefined ? undefined : /^(1|true|yes|on)$/i.test(v))),
  S3_PREFIX: optional,
  DELIVERY_OFFLOAD: optional.pipe(z.enum(["off", "x-accel", "redirect"], { error: "must be off, x-accel or redirect" }).optional()),
  X_ACCEL_PREFIX: optional.pipe(
    z
      .string()
      .regex(/^\/(?:(?!\.\.?\/)[A-Za-z0-9._~-]+\/)+$/, { error: "must be a path starting and ending with / (e.g. /_protected/)" })
      .optional(),
  ),
  S3_PUBLIC_URL: optional
    .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional())
    .transform((v) => (v ? stripSlash(v) : undefined)),
  SIGNING_SECRET: optional,
  FFMPEG_PATH: optional,
  FFPROBE_PATH: optional,
  NEXTAUTH_SECRET: optional,
  REGISTRATION: optional
    .pipe(z.enum(["open", "invite", "closed"], { error: "must be open, invite or closed" }).optional())
    .transform((v) => v ?? "open"),
  GUEST_UPLOADS: optional.pipe(z.enum(["folders", "off"], { error: "must be folders or off" }).optional()).transform((v) => v ?? "folders"),
  DEFAULT_UPLOAD_PRIVACY: optional
    .refine((v) => v === undefined || isPrivacy(v), { error: `must be ${PRIVACY_CHOICES}` })
    .transform((v): Privacy => (isPrivacy(v) ? v : "unlisted")),
  SITE_NAME: optional.pipe(z.string().max(64, { error: "must be at most 64 characters" }).optional()).transform((v) => v ?? "Mediahost"),
  EMBED_TITLE: optional.pipe(z.string().max(256, { error: "must be at most 256 characters" }).optional()),
  EMBED_DESCRIPTION: optional.pipe(z.string().max(1000, { error: "must be at most 1000 characters" }).optional()),
  EMBED_AUTHOR: optional.pipe(z.string().max(256, { error: "must be at most 256 characters" }).optional()),
  EMBED_COLOR: optional
    .pipe(
      z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/, { error: "must be a colour such as #3552e3" })
        .optional(),
    )
    .transform((v) => (v ?? "#3552e3").toLowerCase()),
  GITHUB_CLIENT_ID: optional,
  GITHUB_CLIENT_SECRET: optional,
  DISCORD_CLIENT_ID: optional,
  DISCORD_CLIENT_SECRET: optional,
  OIDC_ISSUER: optional.transform((v) => (v ? stripSlash(v) : undefined)),
  OIDC_CLIENT_ID: optional,
  OIDC_CLIENT_SECRET: optional,
  OIDC_NAME: optional,
  METRICS_TOKEN: optional,
  TUS_EXPIRY_SECONDS: optionalInt(1),
  HEAP_GROWING_PERCENT: optionalInt(0),
  APP_ROOT: optional,
  MIGRATE_DEBUG: optional,
  UPLOAD_FILES: uploadFiles,
  ...mediaQueueFields,
  ...recoveryFields,
  ...webhookFields,
  ...jobFields,
  ...ocrFields,
  ...accountFields,
});

/** The container recipe's test checks against these names. */
export const ENV_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type Env = Omit<z.infer<typeof schema>, "PUBLIC_URL"> & {
  PUBLIC_URL: string;
  trustProxy: TrustProxy;
  /** PUBLIC_URL was unset (scripts/start.ts fixes it once PORT=0 has a port). */
  publicUrlFromPort: boolean;
  apiUrl: string;
  relayUrl: string;
  cdnUrl: string;
  shareUrl: string;
  shortUrl: string;
};

export function parseEnv(source: Environment = settingsSource()): Env {
  const env = schema.parse(source);
  const base = env.PUBLIC_URL ?? publicUrlDefault(env.PORT);
  return {
    ...env,
    trustProxy: parseTrustProxy(env.TRUST_PROXY, env.TRUST_PROXY_HEADER),
    PUBLIC_URL: base,
    publicUrlFromPort: env.PUBLIC_URL === undefined,
    apiUrl: stripSlash(env.API_URL || `${base}/api`),
    relayUrl: stripSlash(env.RELAY_URL || `${base}/relay`),
    cdnUrl: stripSlash(env.CDN_URL || `${base}/cdn`),
    shareUrl: stripSlash(env.SHARE_URL || `${base}/p`),
    shortUrl: stripSlash(env.SHORT_URL || `${base}/s`),
  };
}

type Fields = typeof schema.shape;
export type { Environment } from "./stored-settings";

/**
 * One variable, parsed by this module's rule, for subsystems that read it at call time:
 * parsing the whole schema there would cost every call, and a second rule could drift.
 */
export function setting<K extends keyof Fields>(name: K, source: Environment = settingsSource()): z.output<Fields[K]> {
  const parsed = schema.shape[name].safeParse(source[name]);
  if (parsed.success) return parsed.data as z.output<Fields[K]>;
  throw new Error(`Invalid setting ${name}: ${parsed.error.issues[0]?.message ?? "not accepted"}`);
}

let cached: { env: Env; version: number } | undefined;
export function env(): Env {
  const version = storedVersion();
  if (cached?.version !== version) cached = { env: parseEnv(), version };
  return cached.env;
}
export function resetEnv(): void {
  cached = undefined;
  forgetMergedSource();
}
