/**
 * The one declaration of the operator's settings (issue 38 §2): what each is, how it is
 * checked, how the console asks for it, and the table in docs/configuration.md
 * (`npm run -s settings:doc` prints it; tests/config/settings-catalog.test.ts keeps the doc
 * current). Each setting is named after the environment variable it mirrors and parsed by
 * that variable's own rule (env.ts, plans.ts), so a value is accepted in the console exactly
 * when it would be accepted in the environment.
 *
 * `runtime` settings may be stored in the database and changed while the service runs;
 * the others are read at start-up only and shown read-only. A value set in the
 * environment always wins and shows as locked.
 */
import { PLAN_DEFAULTS, PLAN_SETTING_FIELDS, PLANS, type PlanLimits, planLimits } from "@/lib/plans";
import { formatDomains, type InstanceDomain } from "./domains";
import { setting } from "./env";

export type SettingSection =
  | "uploads"
  | "accounts"
  | "limits"
  | "embeds"
  | "ocr"
  | "links"
  | "delivery"
  | "mail"
  | "moderation"
  | "retention"
  | "startup";

export const SECTIONS: readonly { id: SettingSection; title: string; intro: string }[] = [
  { id: "uploads", title: "Uploads", intro: "What the instance hosts, and what new uploads default to." },
  { id: "accounts", title: "Accounts", intro: "Who may sign up. Invite codes are made on the Invites page." },
  { id: "limits", title: "Plan limits", intro: "Upload sizes and weekly quotas of each plan (docs/plans.md)." },
  { id: "embeds", title: "Embeds", intro: "How share pages look when a chat app unfurls them." },
  { id: "ocr", title: "Text in images", intro: "Reading text in screenshots for search and alt text (docs/ocr.md)." },
  { id: "links", title: "Links", intro: "The addresses of share pages and short links." },
  {
    id: "delivery",
    title: "Delivery",
    intro: 'How long a caching proxy or CDN in front of the service keeps public files (docs/operations.md, "Caching public files").',
  },
  { id: "mail", title: "Mail", intro: "Password resets and e-mail confirmation. The SMTP URL is never shown again once saved." },
  { id: "moderation", title: "Moderation", intro: "Words that hold an upload for review (docs/admin.md)." },
  { id: "retention", title: "Retention", intro: "How long unfinished uploads, idle sessions and logs are kept." },
  { id: "startup", title: "Start-up settings", intro: "Read when the service starts; change them in its environment and restart." },
];

export type SettingInput =
  | { kind: "select"; options: readonly { value: string; label: string }[] }
  | { kind: "text"; placeholder?: string }
  | { kind: "number"; min: number; unit?: string }
  | { kind: "bytes" }
  | { kind: "color" }
  | { kind: "secret" };

export interface SettingDeclaration {
  /** The environment variable it mirrors, also its name in the CLI and the database. */
  name: string;
  section: SettingSection;
  label: string;
  /** One sentence or two: the console's hint and the doc's meaning. */
  help: string;
  /** The default, as the doc and the console describe it. */
  defaultText: string;
  input: SettingInput;
  /** False: read at start-up only; shown, never stored. */
  runtime: boolean;
  /** Never shown, never written to the audit log in clear (SMTP passwords, database URLs). */
  secret?: boolean;
  /**
   * The value as it will be stored (trimmed, canonical), or an Error whose message names
   * the setting. "" is never checked: it means "back to the default".
   */
  check(value: string): string;
}

/** The env.ts rule of `name`, applied to `value` alone. */
const envRule =
  (name: Parameters<typeof setting>[0], canonical?: (parsed: unknown) => string) =>
  (value: string): string => {
    const parsed = setting(name, { [name]: value });
    return canonical ? canonical(parsed) : value.trim();
  };

const options = (pairs: readonly [string, string][]) => ({
  kind: "select" as const,
  options: pairs.map(([value, label]) => ({ value, label })),
});

const httpUrl = (name: string) => (value: string) => {
  const text = value.trim().replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`Invalid setting ${name}: must be an http(s) URL such as https://i.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`Invalid setting ${name}: must be an http(s) URL`);
  if (url.search || url.hash || url.username) throw new Error(`Invalid setting ${name}: must have no query, fragment or user name`);
  return text;
};

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
/** 5368709120 → "5GB": the doc's and the console's way to show a default. */
export function formatBytes(bytes: number): string {
  if (bytes % GIB === 0) return `${bytes / GIB}GB`;
  if (bytes % MIB === 0) return `${bytes / MIB}MB`;
  return String(bytes);
}

const PLAN_FIELD_LABELS: Partial<Record<keyof PlanLimits, string>> = {
  uploadFileBytes: "largest file",
  uploadRequestBytes: "largest upload request",
  weeklyQuotaBytes: "weekly quota",
  priorityMinutes: "priority minutes",
};

function planSettings(): SettingDeclaration[] {
  return [...PLANS, "team" as const].flatMap((plan) =>
    (Object.keys(PLAN_FIELD_LABELS) as (keyof PlanLimits)[]).map((field): SettingDeclaration => {
      const name = `PLAN_${plan.toUpperCase()}_${PLAN_SETTING_FIELDS[field]}`;
      const minutes = field === "priorityMinutes";
      const fallback = PLAN_DEFAULTS[plan][field];
      return {
        name,
        section: "limits",
        label: `${plan === "team" ? "Team keys" : `${plan[0].toUpperCase()}${plan.slice(1)} plan`}: ${PLAN_FIELD_LABELS[field]}`,
        help: minutes ? "Minutes of adaptive (HLS) delivery granted each period." : "A byte count such as 100MB or 5GB.",
        defaultText: minutes ? String(fallback) : formatBytes(fallback),
        input: minutes ? { kind: "number", min: 0, unit: "minutes" } : { kind: "bytes" },
        runtime: true,
        check: (value) => {
          planLimits(plan, { [name]: value.trim() });
          return value.trim().replace(/\s+/g, "");
        },
      };
    }),
  );
}

const startup = (name: string, label: string, help: string, defaultText: string, secret = false): SettingDeclaration => ({
  name,
  section: "startup",
  label,
  help,
  defaultText,
  input: secret ? { kind: "secret" } : { kind: "text" },
  runtime: false,
  secret,
  check: () => {
    throw new Error(`${name} is read at start-up: set it in the service's environment and restart.`);
  },
});

export const SETTINGS: readonly SettingDeclaration[] = [
  {
    name: "UPLOAD_FILES",
    section: "uploads",
    label: "What this instance hosts",
    help: "Images and videos are always taken. Text adds pastes and source files (shown highlighted); any file adds downloads of every other kind.",
    defaultText: "media",
    input: options([
      ["media", "Images and videos"],
      ["media,text", "Images, videos and text"],
      ["all", "Any file"],
    ]),
    runtime: true,
    check: envRule("UPLOAD_FILES", String),
  },
  {
    name: "DEFAULT_UPLOAD_PRIVACY",
    section: "uploads",
    label: "Default privacy of web and phone uploads",
    help: "What the dashboard's uploader and the phone's share sheet use unless the account chose its own. API uploads stay private unless the request says otherwise.",
    defaultText: "unlisted",
    input: options([
      ["unlisted", "Unlisted (anyone with the link)"],
      ["private", "Private (only the owner)"],
      ["public", "Public (also on Discover)"],
    ]),
    runtime: true,
    check: envRule("DEFAULT_UPLOAD_PRIVACY", String),
  },
  {
    name: "GUEST_UPLOADS",
    section: "uploads",
    label: "Guest uploads into folders",
    help: "Folders: an owner may open a folder to uploads from people without an account (off on every folder until its owner turns it on). Off: no folder takes guest uploads, whatever its owner chose (docs/guest-uploads.md).",
    defaultText: "folders",
    input: options([
      ["folders", "Owners may open a folder to guests"],
      ["off", "Off on this instance"],
    ]),
    runtime: true,
    check: envRule("GUEST_UPLOADS", String),
  },
  {
    name: "REGISTRATION",
    section: "accounts",
    label: "Registration",
    help: "Open: anyone may sign up. Invite: sign-up needs an invite code. Closed: only an admin creates accounts.",
    defaultText: "open",
    input: options([
      ["open", "Open"],
      ["invite", "By invite"],
      ["closed", "Closed"],
    ]),
    runtime: true,
    check: envRule("REGISTRATION", String),
  },
  ...planSettings(),
  {
    name: "SITE_NAME",
    section: "embeds",
    label: "Site name",
    help: "Shown by Discord, Slack and Telegram above an unfurled share page, and in its title.",
    defaultText: "Mediahost",
    input: { kind: "text", placeholder: "Mediahost" },
    runtime: true,
    check: envRule("SITE_NAME", String),
  },
  {
    name: "EMBED_COLOR",
    section: "embeds",
    label: "Embed colour",
    help: "The colour of the side bar in Discord's embed (theme-color).",
    defaultText: "#3552e3",
    input: { kind: "color" },
    runtime: true,
    check: envRule("EMBED_COLOR", String),
  },
  {
    name: "EMBED_TITLE",
    section: "embeds",
    label: "Embed title",
    help: "The title of unfurled share pages for accounts that set none; template variables such as {file.name} and {user.name} (docs/embeds.md). Empty: the post's title.",
    defaultText: "unset",
    input: { kind: "text", placeholder: "{post.title}" },
    runtime: true,
    check: envRule("EMBED_TITLE", String),
  },
  {
    name: "EMBED_DESCRIPTION",
    section: "embeds",
    label: "Embed description",
    help: "Their description, with the same variables. Empty: the post's description, or what it holds.",
    defaultText: "unset",
    input: { kind: "text", placeholder: "{file.size} · {post.views} views" },
    runtime: true,
    check: envRule("EMBED_DESCRIPTION", String),
  },
  {
    name: "EMBED_AUTHOR",
    section: "embeds",
    label: "Embed author line",
    help: "The author line Discord and Slack show above the title (oEmbed), with the same variables. Empty: the uploader's user name.",
    defaultText: "unset",
    input: { kind: "text", placeholder: "{user.nickname}" },
    runtime: true,
    check: envRule("EMBED_AUTHOR", String),
  },
  {
    name: "OCR",
    section: "ocr",
    label: "Read text in images",
    help: "On: screenshots are read by Tesseract when it is installed, for the owner's search and alt text.",
    defaultText: "on",
    input: options([
      ["on", "On"],
      ["off", "Off"],
    ]),
    runtime: true,
    check: envRule("OCR", String),
  },
  {
    name: "OCR_LANGUAGE",
    section: "ocr",
    label: "Languages",
    help: "Tesseract languages joined with +, such as eng or eng+deu; each needs its traineddata installed.",
    defaultText: "eng",
    input: { kind: "text", placeholder: "eng" },
    runtime: true,
    check: (value) => {
      const text = value.trim();
      if (!/^[A-Za-z_]{3,20}(?:\+[A-Za-z_]{3,20}){0,7}$/.test(text))
        throw new Error("Invalid setting OCR_LANGUAGE: must be Tesseract language codes joined with +, such as eng+deu");
      return text;
    },
  },
  {
    name: "SHARE_URL",
    section: "links",
    label: "Share page address",
    help: "Base URL of share pages, when they are served on another host name that reaches this service.",
    defaultText: "PUBLIC_URL/p",
    input: { kind: "text", placeholder: "https://i.example.com/p" },
    runtime: true,
    check: httpUrl("SHARE_URL"),
  },
  {
    name: "SHORT_URL",
    section: "links",
    label: "Short link address",
    help: "Base URL of short links (docs/short-links.md).",
    defaultText: "PUBLIC_URL/s",
    input: { kind: "text", placeholder: "https://go.example.com" },
    runtime: true,
    check: httpUrl("SHORT_URL"),
  },
  {
    name: "DOMAINS",
    section: "links",
    label: "Other domains",
    help: "Host names this instance also answers on, each serving all, or pages, files and links joined with +, such as img.example.com, cdn.example.com=files. Set, a request on any other name gets 404 (docs/domains.md).",
    defaultText: "none",
    input: { kind: "text", placeholder: "img.example.com, cdn.example.com=files" },
    runtime: true,
    check: envRule("DOMAINS", (parsed) => formatDomains(parsed as InstanceDomain[])),
  },
  {
    name: "SHARED_CACHE_SECONDS",
    section: "delivery",
    label: "Shared cache lifetime of public files (seconds)",
    help: "How long a caching proxy or CDN may answer for a public file before it asks again (s-maxage); a privacy change, deletion or expiry shows there within this. Browsers keep public files longer. 0: a cache asks every time.",
    defaultText: "60",
    input: { kind: "number", min: 0, unit: "seconds" },
    runtime: true,
    check: envRule("SHARED_CACHE_SECONDS", String),
  },
  {
    name: "SMTP_URL",
    section: "mail",
    label: "SMTP server",
    help: "smtp://user:password@host:587 or smtps://…; write-only: a saved value is never shown again.",
    defaultText: "unset (no mail)",
    input: { kind: "secret" },
    runtime: true,
    secret: true,
    check: (value) => {
      const text = value.trim();
      let url: URL | null = null;
      try {
        url = new URL(text);
      } catch {}
      if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname)
        throw new Error("Invalid setting SMTP_URL: must be an smtp:// or smtps:// URL with a host");
      return text;
    },
  },
  {
    name: "MAIL_FROM",
    section: "mail",
    label: "Sender",
    help: "The From of the service's mail, such as Media host <noreply@example.com>.",
    defaultText: "unset",
    input: { kind: "text", placeholder: "Media host <noreply@example.com>" },
    runtime: true,
    check: (value) => {
      const text = value.trim();
      if (text.length > 200 || !/^(?:[^<>@\r\n]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/.test(text))
        throw new Error("Invalid setting MAIL_FROM: must be an address, or a name and <address>");
      return text;
    },
  },
  {
    name: "MODERATION_WORDS",
    section: "moderation",
    label: "Words held for review",
    help: "Comma-separated words (whole words, any case): an upload whose title or description has one waits in Moderation.",
    defaultText: "none",
    input: { kind: "text", placeholder: "word, another word" },
    runtime: true,
    check: (value) => {
      const words = value
        .split(",")
        .map((word) => word.trim())
        .filter(Boolean);
      if (value.length > 10_000) throw new Error("Invalid setting MODERATION_WORDS: at most 10000 characters");
      return words.join(",");
    },
  },
  {
    name: "TUS_EXPIRY_SECONDS",
    section: "retention",
    label: "Unfinished resumable uploads kept (seconds)",
    help: "An upload not finished within this time is removed with its bytes.",
    defaultText: "86400",
    input: { kind: "number", min: 1, unit: "seconds" },
    runtime: true,
    check: envRule("TUS_EXPIRY_SECONDS", String),
  },
  {
    name: "SESSION_IDLE_DAYS",
    section: "retention",
    label: "Idle sessions end after (days)",
    help: "A Relay or web session unused this long ends; 0: never.",
    defaultText: "30",
    input: { kind: "number", min: 0, unit: "days" },
    runtime: true,
    check: envRule("SESSION_IDLE_DAYS", String),
  },
  {
    name: "SESSION_MAX_DAYS",
    section: "retention",
    label: "Sessions end after (days)",
    help: "A session ends this long after its sign-in, used or not; 0: never.",
    defaultText: "365",
    input: { kind: "number", min: 0, unit: "days" },
    runtime: true,
    check: envRule("SESSION_MAX_DAYS", String),
  },
  {
    name: "VIEW_LIMIT_GRACE_SECONDS",
    section: "retention",
    label: "Files of a used-up view limit reachable for (seconds)",
    help: "How long the files of a post stay reachable after its last allowed view (docs/expiry.md).",
    defaultText: "600",
    input: { kind: "number", min: 0, unit: "seconds" },
    runtime: true,
    check: envRule("VIEW_LIMIT_GRACE_SECONDS", String),
  },
  {
    name: "WEBHOOK_LOG_KEEP",
    section: "retention",
    label: "Deliveries kept per webhook",
    help: "Attempts kept in each webhook's delivery log.",
    defaultText: "50",
    input: { kind: "number", min: 1 },
    runtime: true,
    check: envRule("WEBHOOK_LOG_KEEP", String),
  },
  startup("PUBLIC_URL", "Public URL", "The origin users reach the service at.", "http://localhost:PORT"),
  startup("PORT", "Port", "The port the service listens on.", "3000"),
  startup("HOST", "Listen address", "The address the service binds; unset, every interface (IPv4 and IPv6).", "all interfaces"),
  startup("DATA_DIR", "Data folder", "The embedded database, local files and temporary uploads.", "./data"),
  startup("DATABASE_URL", "Database", "SQLite in the data folder, or a PostgreSQL URL.", "SQLite in DATA_DIR", true),
  startup("STORAGE", "File storage", "disk, s3 or blob.", "disk"),
  startup("REDIS_URL", "Redis", "Shared rate limits and counters for several instances.", "unset (in-process)", true),
  startup("BACKGROUND_WORK", "Background work", "off: this process only serves; a worker does the jobs.", "on"),
];

const BY_NAME = new Map(SETTINGS.map((declaration) => [declaration.name, declaration]));

export function settingDeclaration(name: string): SettingDeclaration | undefined {
  return BY_NAME.get(name.trim().toUpperCase());
}

/** The names that may be stored (runtime settings). */
export const RUNTIME_SETTING_NAMES: readonly string[] = SETTINGS.filter((d) => d.runtime).map((d) => d.name);
