/** The embed a share page unfurls with (docs/embeds.md), read by the tags and oEmbed alike. */
import { env } from "@/lib/config/env";
import { operatorTemplates, readEmbedStyle } from "@/lib/embeds/style";
import { type EmbedFacts, type EmbedText, renderEmbed } from "@/lib/embeds/template";
import { displayTitle } from "@/lib/presenters/title";
import { type PostJson, primaryKind } from "./share";

export function embedFacts(post: PostJson): EmbedFacts {
  const file = post.files[0];
  return {
    code: post.code,
    url: post.url,
    title: post.title,
    description: post.description,
    created_at: post.created_at,
    view_count: post.view_count,
    like_count: post.like_count,
    file_count: post.file_count,
    file: file ? { name: file.name, size: file.size, mime_type: file.mime_type, width: file.width, height: file.height } : null,
    author: post.author ? { username: post.author.username, nickname: post.author.nickname } : null,
  };
}

/** The unstyled description: the post's own, a text post's first lines, else what it holds. */
export function defaultDescription(post: PostJson, textPreview?: string): string {
  if (post.description) return post.description;
  // A text post unfurls with its first lines (Discord and Slack show og:description).
  if (textPreview) return textPreview;
  const kind =
    post.file_count > 1
      ? `An album of ${post.file_count} files`
      : post.kind === "file"
        ? `A file (${post.files[0]?.name ?? "download"})`
        : primaryKind(post) === "video"
          ? "A video"
          : "An image";
  return post.author ? `${kind} by ${post.author.username}` : kind;
}

/** Private or gated posts style only the colour: a template could name the file. */
export async function shareEmbed(post: PostJson, ownerId: string | null, guarded: boolean, textPreview?: string): Promise<EmbedText> {
  const e = env();
  const defaults: EmbedText = {
    title: displayTitle(post),
    description: defaultDescription(post, textPreview),
    site_name: e.SITE_NAME,
    author: post.author?.username ?? null,
    color: e.EMBED_COLOR,
  };
  const account = await readEmbedStyle(ownerId);
  if (guarded) return { ...defaults, color: account.color ?? defaults.color };
  return renderEmbed(account, operatorTemplates(), embedFacts(post), defaults);
}

/** The colour alone, for pages without a post (not found, held): the operator's. */
export const operatorColor = (): string => env().EMBED_COLOR;
