/** An account's embed style (JSON on `User.embedStyle`) and the operator's templates (docs/embeds.md). */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { COLOR_PATTERN, EMBED_LIMITS, type EmbedTemplates, NO_TEMPLATES } from "./template";

/** The stored JSON, read leniently: a field that no longer fits is "not set", never an error on a share page. */
const Stored = z.object({
  title: z.string().max(EMBED_LIMITS.title).nullable().catch(null),
  description: z.string().max(EMBED_LIMITS.description).nullable().catch(null),
  site_name: z.string().max(EMBED_LIMITS.site_name).nullable().catch(null),
  author: z.string().max(EMBED_LIMITS.author).nullable().catch(null),
  color: z.string().regex(COLOR_PATTERN).nullable().catch(null),
});

export function parseStoredStyle(json: string | null): EmbedTemplates {
  if (!json) return NO_TEMPLATES;
  try {
    const parsed = Stored.safeParse({ ...NO_TEMPLATES, ...(JSON.parse(json) as object) });
    return parsed.success ? parsed.data : NO_TEMPLATES;
  } catch {
    return NO_TEMPLATES;
  }
}

export async function readEmbedStyle(userId: string | null): Promise<EmbedTemplates> {
  if (!userId) return NO_TEMPLATES;
  const row = await db().user.findUnique({ where: { id: userId }, select: { embedStyle: true } });
  return parseStoredStyle(row?.embedStyle ?? null);
}

/** Blank text is "not set"; all unset clears the column, so the account is back on defaults. */
export async function saveEmbedStyle(userId: string, style: EmbedTemplates): Promise<EmbedTemplates> {
  const blank = (value: string | null) => (value?.trim() ? value : null);
  const saved: EmbedTemplates = {
    title: blank(style.title),
    description: blank(style.description),
    site_name: blank(style.site_name),
    author: blank(style.author),
    color: style.color ? style.color.toLowerCase() : null,
  };
  const empty = Object.values(saved).every((v) => v === null);
  await db().user.update({ where: { id: userId }, data: { embedStyle: empty ? null : JSON.stringify(saved) } });
  return saved;
}

/** The operator's templates, for accounts that set none; site name and colour are the defaults themselves. */
export function operatorTemplates(): EmbedTemplates {
  const e = env();
  return { ...NO_TEMPLATES, title: e.EMBED_TITLE ?? null, description: e.EMBED_DESCRIPTION ?? null, author: e.EMBED_AUTHOR ?? null };
}
