/**
 * The service-wide environment variables, parsed once with zod. `||` semantics: an empty
 * value means the default; any other value that does not parse is refused, naming the
 * variable. docs/configuration.md lists every variable (tests/project/configuration-doc.test.ts).
 *
 * Settings of one subsystem are parsed beside it by a function that takes the environment
 * as a parameter (tests pass their own) and throws `Invalid setting NAME: ...` on a bad
 * value: media tools and queue (lib/media/config.ts), HLS (lib/media/hls.ts), conversion
 * (lib/convert/config.ts), plan limits (lib/plans.ts), moderation lists
 * (lib/moderation/moderator.ts), the receive gate (lib/uploads/receive-gate.ts), the storage
 * adapters (lib/storage/config.ts) and the database location (lib/db/config.ts).
 * lib/server/settings.ts lists them and runs every one before the server starts. No other
 * module reads `process.env` (tests/config/env.test.ts), and only lib/config/process-env.ts
 * writes it (tests/config/settings.test.ts).
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

/**
 * Without PUBLIC_URL the links point at the port the server listens on: `PORT=3999 npm
 * start` answers uploads with http://localhost:3999/... (issue 20). PORT=0 (any free port)
 * is not known until the server listens; scripts/start.ts then sets PUBLIC_URL itself.
 */
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

/** The media queue's bounds (docs/media.md, "Limits"), read by lib/media/config.ts through `setting`. */
const mediaQueueFields = {
  /** Input bytes of the jobs waiting for a media slot; past it 503 `unavailable`. */
  MEDIA_QUEUE_BYTES: optionalBytes,
  /** Seconds a job may wait for a media slot before 503 `unavailable`; 0 turns the bound off. */
  MEDIA_QUEUE_WAIT_SECONDS: optionalInt(0),
};

/** Crash recovery (docs/crash-recovery.md). */
const recoveryFields = {
  /** Seconds between sweeps of what dead processes left behind; 0: only at start-up. */
  RECOVERY_INTERVAL_SECONDS: optionalInt(0),
  /** Age past which leftovers whose owner cannot be checked (another machine) are removed. */
  RECOVERY_ORPHAN_AGE_SECONDS: optionalInt(60),
  /** Seconds the files of a view-limited post stay reachable after its last view (docs/expiry.md). */
  VIEW_LIMIT_GRACE_SECONDS: optionalInt(0),
};

/** Webhooks (docs/webhooks.md). */
const webhookFields = {
  /**
   * `1`: deliveries may go to private, loopback and link-local addresses; or a
   * comma-separated allow-list of addresses and CIDR ranges (`10.0.0.0/8,fd00::/8`).
   * Unset: only public addresses.
   */
  WEBHOOK_ALLOW_PRIVATE: optional,
  /** Attempts per event (first try included). */
  WEBHOOK_ATTEMPTS: optionalInt(1),
  /** Delay before the first retry; each next one is 4 times longer (at most an hour). */
  WEBHOOK_RETRY_BASE_MS: optionalInt(0),
  /** Events in a row that failed every attempt before the webhook is disabled. */
  WEBHOOK_DISABLE_AFTER: optionalInt(1),
  /** Time limit of one attempt (connect to end of response). */
  WEBHOOK_TIMEOUT_MS: optionalInt(100),
  /** Attempts kept in each webhook's delivery log. */
  WEBHOOK_LOG_KEEP: optionalInt(1),
  /** Time limit of one upload from a URL, first byte to last (docs/url-uploads.md); unset: 60000. */
  URL_UPLOAD_TIMEOUT_MS: optionalInt(100),
  /** Redirects an upload from a URL follows (docs/url-uploads.md); unset: 3. */
  URL_UPLOAD_MAX_REDIRECTS: optionalInt(0),
};

/** Accounts (docs/web-auth.md): session lifetimes, password mail, link-domain proof. */
const accountFields = {
  /** Days a Relay or web session may go unused before it ends; unset: 30, 0: never. */
  SESSION_IDLE_DAYS: optionalInt(0),
  /** Days a Relay or web session lasts from its sign-in, used or not; unset: 365, 0: never. */
  SESSION_MAX_DAYS: optionalInt(0),
  /** Password-reset and email-confirmation mail (nodemailer): `smtp://user:pass@host:587`, `smtps://...`; needs MAIL_FROM. */
  SMTP_URL: optional,
  /** The sender of that mail: `Media host <noreply@example.com>`. */
  MAIL_FROM: optional,
  /** The DNS server asked for link-domain TXT proofs (`host` or `host:port`); unset: the system's resolvers. */
  DNS_RESOLVER: optional,
};

/** Background jobs (docs/priority-delivery.md). */
const jobFields = {
  /** BullMQ queue name; unset: "mediahost-jobs". Separates deployments (or test servers) sharing one Redis. */
  JOB_QUEUE_NAME: optional,
  /** How often a worker polls the job table; unset: 2 s, 15 s when Redis carries the wake-ups. */
  JOB_POLL_MS: optionalInt(1),
  /** The first retry's delay (each next one is 4 times longer); unset: 10 s. */
  JOB_RETRY_BASE_MS: optionalInt(0),
};

/**
 * UPLOAD_FILES (docs/file-kinds.md): which files become posts. Grammar: comma-separated
 * items from `media`, `text`, `all`, case-insensitive, blanks around items ignored; `media`
 * is always on (the interface's types); `text` adds text and source files; `all` adds every
 * other file (and text). Unset or empty: `media`. Anything else stops the start.
 */
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
  /** `off` turns text reading off (no job is queued, nothing is read); unset or `on`: on when Tesseract is found. */
  OCR: optional.pipe(z.enum(["on", "off"], { error: "must be on or off" }).optional()),
  /** The tesseract binary; unset: `tesseract` on PATH (Debian's tesseract-ocr). */
  TESSERACT_PATH: optional,
  /** Tesseract language(s) (`eng`, `eng+deu`); unset: eng. Its traineddata must be installed. */
  OCR_LANGUAGE: optional,
  /** Images read at once; unset: 1 (each Tesseract uses one core, at a lower priority than the server). */
  OCR_CONCURRENCY: optionalInt(1),
  /** Time limit of one image; unset: 60. */
  OCR_TIMEOUT_SECONDS: optionalInt(1),
  /** Images larger than this (stored bytes) are not read; unset: 50MB. */
  OCR_MAX_BYTES: optionalBytes,
};

const schema = z.object({
  NODE_ENV: optional,
  PORT: optional.transform((v) => Number(v || DEFAULT_PORT)),
  HOST: optional,
  /** Unset: http://localhost:PORT (publicUrlDefault). */
  PUBLIC_URL: optional.transform((v) => (v ? stripSlash(v) : undefined)),
  API_URL: optional,
  RELAY_URL: optional,
  CDN_URL: optional,
  SHARE_URL: optional,
  /** Base URL of short links (docs/short-links.md); unset: PUBLIC_URL/s. */
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
  /** PostgreSQL connections per process (lib/db/adapter.ts); unset: 10. */
  DATABASE_POOL_SIZE: optionalInt(1),
  /** PostgreSQL: ms to open a connection or wait for a free one of the pool (docs/faults.md); unset: 2000, 0: no bound. */
  DATABASE_CONNECT_TIMEOUT_MS: optionalInt(0),
  /** PostgreSQL: ms a statement may take before it fails as "database unavailable" (docs/faults.md); unset: 3000, 0: no bound. */
  DATABASE_QUERY_TIMEOUT_MS: optionalInt(0),
  /** SQLite: ms a statement waits for another connection's write lock (docs/faults.md); unset: 15000. */
  DATABASE_BUSY_TIMEOUT_MS: optionalInt(0),
  /** ms /healthz waits for each dependency before it names it down (docs/faults.md); unset: 2000. */
  HEALTHZ_TIMEOUT_MS: optionalInt(1),
  /** Seconds a public file's last delivery decision keeps it served while the database is away (docs/faults.md); unset: 60, 0: off. */
  DELIVERY_STALE_SECONDS: optionalInt(0),
  /**
   * Seconds a shared cache (a caching proxy, a CDN) may keep a public file before it asks
   * again with its ETag (`s-maxage`, docs/operations.md "Caching public files"); unset: 60.
   */
  SHARED_CACHE_SECONDS: optionalInt(0),
  REDIS_URL: optional,
  /** Start of every Redis key of ours (rate limits, abuse counters); unset: "mh:". Separates deployments sharing one Redis. */
  REDIS_PREFIX: optional,
  /**
   * `off`: `npm start` serves only, running no media jobs, webhook deliveries or periodic
   * sweeps (docs/deploy.md): `npm run worker` or the cron endpoint does that work. Unset: on.
   */
  BACKGROUND_WORK: optional.transform((v) => !/^(0|false|no|off)$/i.test(v ?? "")),
  /** Bearer secret of GET /cron (docs/deploy.md); unset: the endpoint answers 404. */
  CRON_SECRET: optional,
  /** Which proxies' client addresses to believe (lib/config/trust-proxy.ts; docs/operations.md). */
  TRUST_PROXY: optional,
  /** A header carrying the client address from a trusted proxy (CF-Connecting-IP...); needs TRUST_PROXY. */
  TRUST_PROXY_HEADER: optional,
  /**
   * Multiplies every rate limit. For load tests only, whose client cannot spread its requests
   * over many keys (bench:serve does: it rotates reader keys and keeps the limits as they
   * are); the documented limits hold at the default 1.
   */
  RATE_LIMIT_SCALE: optional.transform((v) => {
    const n = Number(v || 1);
    return Number.isFinite(n) && n >= 1 ? n : 1;
  }),
  STORAGE: optional.transform((v) => (v || "disk") as "disk" | "s3" | "blob"),
  /** STORAGE=s3 (lib/storage/config.ts checks the combinations: bucket required, both keys or neither). */
  S3_BUCKET: optional,
  S3_REGION: optional,
  S3_ENDPOINT: optional,
  S3_ACCESS_KEY_ID: optional,
  S3_SECRET_ACCESS_KEY: optional,
  /** Unset: on when S3_ENDPOINT is set (lib/storage/s3.ts). */
  S3_FORCE_PATH_STYLE: optional.transform((v) => (v === undefined ? undefined : /^(1|true|yes|on)$/i.test(v))),
  S3_PREFIX: optional,
  /**
   * Who sends a /cdn file's bytes (docs/delivery-offload.md): unset or `off`, the service;
   * `x-accel` (disk storage behind nginx or Caddy), the proxy through X-Accel-Redirect;
   * `redirect` (S3 storage), the bucket through a redirect to a presigned or public URL.
   */
  DELIVERY_OFFLOAD: optional.pipe(z.enum(["off", "x-accel", "redirect"], { error: "must be off, x-accel or redirect" }).optional()),
  /** DELIVERY_OFFLOAD=x-accel: the proxy's internal location in front of DATA_DIR/files; default /_protected/. */
  X_ACCEL_PREFIX: optional.pipe(
    z
      .string()
      .regex(/^\/(?:(?!\.\.?\/)[A-Za-z0-9._~-]+\/)+$/, { error: "must be a path starting and ending with / (e.g. /_protected/)" })
      .optional(),
  ),
  /** DELIVERY_OFFLOAD=redirect: the public base URL of the bucket or its CDN; unset, public files get presigned URLs too. */
  S3_PUBLIC_URL: optional
    .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional())
    .transform((v) => (v ? stripSlash(v) : undefined)),
  SIGNING_SECRET: optional,
  /** A system ffmpeg/ffprobe (the container image's); unset: the @ffmpeg-installer builds (lib/media/config.ts). */
  FFMPEG_PATH: optional,
  FFPROBE_PATH: optional,
  /** Signs the web sign-in cookie; unset: derived from the signing secret (lib/auth/web-session.ts). */
  NEXTAUTH_SECRET: optional,
  /** Who may sign up: open, invite or closed (docs/web-auth.md); unset: open. */
  REGISTRATION: optional
    .pipe(z.enum(["open", "invite", "closed"], { error: "must be open, invite or closed" }).optional())
    .transform((v) => v ?? "open"),
  /** What web and share-target uploads get unless the account chose (docs/uploads.md); unset: unlisted. */
  DEFAULT_UPLOAD_PRIVACY: optional
    .refine((v) => v === undefined || isPrivacy(v), { error: `must be ${PRIVACY_CHOICES}` })
    .transform((v): Privacy => (isPrivacy(v) ? v : "unlisted")),
  /** The name share pages and their unfurls carry (og:site_name, oEmbed's provider); unset: Mediahost. */
  SITE_NAME: optional.pipe(z.string().max(64, { error: "must be at most 64 characters" }).optional()).transform((v) => v ?? "Mediahost"),
  /** Share pages' unfurl title for accounts that set none, with template variables (docs/embeds.md); unset: the post's title. */
  EMBED_TITLE: optional.pipe(z.string().max(256, { error: "must be at most 256 characters" }).optional()),
  /** Their description, the same way; unset: the post's description or what it holds. */
  EMBED_DESCRIPTION: optional.pipe(z.string().max(1000, { error: "must be at most 1000 characters" }).optional()),
  /** Their author line (oEmbed's author_name), the same way; unset: the uploader's user name. */
  EMBED_AUTHOR: optional.pipe(z.string().max(256, { error: "must be at most 256 characters" }).optional()),
  /** The colour of share pages' unfurls (theme-color, the embed's side bar); unset: #3552e3. */
  EMBED_COLOR: optional
    .pipe(
      z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/, { error: "must be a colour such as #3552e3" })
        .optional(),
    )
    .transform((v) => (v ?? "#3552e3").toLowerCase()),
  /** Sign-in with GitHub and with Discord (docs/web-auth.md): each shown only when its id and secret are both set. */
  GITHUB_CLIENT_ID: optional,
  GITHUB_CLIENT_SECRET: optional,
  DISCORD_CLIENT_ID: optional,
  DISCORD_CLIENT_SECRET: optional,
  /**
   * A generic OpenID Connect sign-in beside GitHub and Discord (docs/web-auth.md): the issuer
   * URL (its /.well-known/openid-configuration is read), client id and secret; shown only
   * when all three are set. OIDC_NAME labels the button ("Continue with ...").
   */
  OIDC_ISSUER: optional.transform((v) => (v ? stripSlash(v) : undefined)),
  OIDC_CLIENT_ID: optional,
  OIDC_CLIENT_SECRET: optional,
  OIDC_NAME: optional,
  /** Bearer token of GET /metrics; unset, metrics are off (nothing recorded, /metrics is 404). */
  METRICS_TOKEN: optional,
  /** Seconds an unfinished resumable (tus) upload is kept; default 86400 (docs/resumable-uploads.md). */
  TUS_EXPIRY_SECONDS: optionalInt(1),
  /** V8's --heap-growing-percent, set by scripts/start.ts; unset: 50, 0 leaves V8's default (README, docs/performance.md "Read path"). */
  HEAP_GROWING_PERCENT: optionalInt(0),
  /** The project folder holding prisma/ (the migrator's schemas and migrations); unset: the working directory. */
  APP_ROOT: optional,
  /** Any value: the schema engine's log goes to stderr (docs/database.md). */
  MIGRATE_DEBUG: optional,
  /** Which files become posts: media (default), media,text or all (docs/file-kinds.md). */
  UPLOAD_FILES: uploadFiles,
  ...mediaQueueFields,
  ...recoveryFields,
  ...webhookFields,
  ...jobFields,
  ...ocrFields,
  ...accountFields,
});

/** The names of every variable above: the container recipe's test checks against them. */
export const ENV_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type Env = Omit<z.infer<typeof schema>, "PUBLIC_URL"> & {
  PUBLIC_URL: string;
  /** TRUST_PROXY and TRUST_PROXY_HEADER as one rule. */
  trustProxy: TrustProxy;
  /** PUBLIC_URL was unset: it is http://localhost:PORT (scripts/start.ts fixes it once PORT=0 has a port). */
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
 * One variable, parsed by this module's rule for it, from `source`. For the subsystems that
 * read a service-wide variable at call time (the data directory, which tests move) or beside
 * settings of their own (the media queue's bounds): parsing the whole schema there would cost
 * every call, and a second rule for the same variable could drift from this one.
 */
export function setting<K extends keyof Fields>(name: K, source: Environment = settingsSource()): z.output<Fields[K]> {
  const parsed = schema.shape[name].safeParse(source[name]);
  if (parsed.success) return parsed.data as z.output<Fields[K]>;
  throw new Error(`Invalid setting ${name}: ${parsed.error.issues[0]?.message ?? "not accepted"}`);
}

let cached: { env: Env; version: number } | undefined;
/** The process environment over the stored settings, parsed on first use and again after a stored change. */
export function env(): Env {
  const version = storedVersion();
  if (cached?.version !== version) cached = { env: parseEnv(), version };
  return cached.env;
}
/** Tests change process.env and call this to re-read it. */
export function resetEnv(): void {
  cached = undefined;
  forgetMergedSource();
}
