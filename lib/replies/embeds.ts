/** An account's embed style (docs/embeds.md) with the view that builds it from lib/embeds/style.ts. */
import { z } from "zod";
import type { EmbedTemplates } from "@/lib/embeds/template";

const template = (what: string) =>
  z.string().nullable().describe(`${what}, with template variables such as {file.name} (docs/embeds.md); null: the operator's default`);

export const EmbedStyle = z
  .object({
    title: template("The unfurl's title"),
    description: template("Its description"),
    site_name: template("The site name above the title (og:site_name, oEmbed's provider_name)"),
    author: template("The author line (oEmbed's author_name)"),
    color: z.string().nullable().describe("#rrggbb: the embed's colour (theme-color); null: the operator's EMBED_COLOR"),
  })
  .meta({ id: "EmbedStyle" });

export const EmbedStyleReply = z.object({ embed: EmbedStyle });

export const embedStyleView = (style: EmbedTemplates): z.input<typeof EmbedStyle> => ({ ...style });
