/**
 * Embed templates (docs/embeds.md). Free of server code so the dashboard's live preview renders
 * through the same `renderEmbed` as the share loader and oEmbed. The output is plain text: HTML
 * escaping is the writer's (React escapes meta attributes, oEmbed is JSON).
 */

export const EMBED_LIMITS = { title: 256, description: 1000, site_name: 64, author: 256 } as const;

export type EmbedTextField = keyof typeof EMBED_LIMITS;

/** An account's or the operator's templates; null: not set (the next default applies). */
export interface EmbedTemplates {
  title: string | null;
  description: string | null;
  site_name: string | null;
  author: string | null;
  color: string | null;
}

export const NO_TEMPLATES: EmbedTemplates = { title: null, description: null, site_name: null, author: null, color: null };

/** What a template may read of a post: plain values, so the preview can pass sample ones. */
export interface EmbedFacts {
  code: string;
  url: string;
  title: string | null;
  description: string | null;
  created_at: string;
  view_count: number;
  like_count: number | null;
  file_count: number;
  file: { name: string; size: number; mime_type: string; width: number | null; height: number | null } | null;
  author: { username: string; nickname: string } | null;
}

export interface EmbedText {
  title: string;
  description: string;
  site_name: string;
  /** oEmbed's author_name; null: none (a team's post). */
  author: string | null;
  color: string;
}

/** What the tags say when nothing is styled (today's behaviour, computed by the share loader). */
export type EmbedDefaults = EmbedText;

/** 1536 → "1.5 KB": sizes as people read them (1024-based, like the dashboard). */
export function humanSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Every variable, its meaning and a sample value: the doc's table and the dashboard's list. */
export const EMBED_VARIABLES: readonly { name: string; meaning: string; read: (facts: EmbedFacts) => string }[] = [
  { name: "file.name", meaning: "the first file's name", read: (f) => f.file?.name ?? "" },
  { name: "file.size", meaning: "its size, as people read it (1.5 MB)", read: (f) => (f.file ? humanSize(f.file.size) : "") },
  { name: "file.size.bytes", meaning: "its size in bytes", read: (f) => (f.file ? String(f.file.size) : "") },
  { name: "file.type", meaning: "its media type (image/png)", read: (f) => f.file?.mime_type ?? "" },
  {
    name: "file.dimensions",
    meaning: "width × height in pixels, when it has them",
    read: (f) => (f.file?.width && f.file.height ? `${f.file.width}×${f.file.height}` : ""),
  },
  { name: "post.title", meaning: "the post's title, else its file's name", read: (f) => f.title ?? f.file?.name ?? "" },
  { name: "post.description", meaning: "the post's description", read: (f) => f.description ?? "" },
  { name: "post.views", meaning: "how often it was viewed", read: (f) => String(f.view_count) },
  { name: "post.likes", meaning: "its likes", read: (f) => String(f.like_count ?? 0) },
  { name: "post.files", meaning: "how many files it has", read: (f) => String(f.file_count) },
  { name: "post.date", meaning: "the day it was posted (2026-12-06, UTC)", read: (f) => f.created_at.slice(0, 10) },
  { name: "post.code", meaning: "its share code", read: (f) => f.code },
  { name: "post.url", meaning: "its share link", read: (f) => f.url },
  { name: "user.name", meaning: "the uploader's user name", read: (f) => f.author?.username ?? "" },
  { name: "user.nickname", meaning: "the uploader's display name", read: (f) => f.author?.nickname ?? "" },
];

const READERS = new Map(EMBED_VARIABLES.map((v) => [v.name, v.read]));

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

export function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/**
 * Fills `{name}` with the post's value; an unknown name stays as written (a typo shows in
 * the preview instead of vanishing). `{{` and `}}` write a literal brace.
 */
export function renderTemplate(template: string, facts: EmbedFacts): string {
  return template.replace(/\{\{|\}\}|\{([a-z.]+)\}/g, (whole, name: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    const read = name ? READERS.get(name) : undefined;
    return read ? read(facts) : whole;
  });
}

/** Null when unset or empty (the default applies). The description keeps its line breaks: Discord shows them. */
function field(template: string | null, facts: EmbedFacts, name: EmbedTextField): string | null {
  if (template === null) return null;
  const flat = renderTemplate(template, facts).replace(CONTROL, "").replace(/\t/g, " ");
  const text = (name === "description" ? flat : flat.replace(/\n/g, " ")).trim();
  return text ? cut(text, EMBED_LIMITS[name]) : null;
}

/** Per field: the account's template, else the operator's, else the default. */
export function renderEmbed(account: EmbedTemplates, operator: EmbedTemplates, facts: EmbedFacts, defaults: EmbedDefaults): EmbedText {
  const pick = (name: EmbedTextField): string | null => field(account[name], facts, name) ?? field(operator[name], facts, name);
  return {
    title: pick("title") ?? defaults.title,
    description: pick("description") ?? defaults.description,
    site_name: pick("site_name") ?? defaults.site_name,
    author: pick("author") ?? defaults.author,
    color: account.color ?? operator.color ?? defaults.color,
  };
}

export const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
