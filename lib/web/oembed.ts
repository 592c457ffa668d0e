/**
 * oEmbed for share pages. Only posts anyone with the link may see: consumers are servers, so
 * private posts are 404 whoever asks.
 */
import { displayTitle as titleOrFileName } from "@/lib/presenters/title";
import { env } from "@/lib/config/env";
import { pagesOrigin } from "@/lib/domains/domains";
import { isShareCode } from "@/lib/posts/codes";
import type { EmbedText } from "@/lib/embeds/template";
import { profileUrl } from "./profile";
import { shareEmbed } from "./share-embed";
import { loadSharePost, primaryKind, type PostJson } from "./share";

export const OEMBED_PATH = "/oembed";

export interface OEmbed {
  version: "1.0";
  type: "photo" | "video" | "link";
  title: string;
  author_name?: string;
  author_url?: string;
  provider_name: string;
  provider_url: string;
  url?: string;
  html?: string;
  width?: number;
  height?: number;
  thumbnail_url?: string;
  thumbnail_width?: number;
  thumbnail_height?: number;
  cache_age?: number;
}

/** On the share URL's domain when that is one of DOMAINS (docs/domains.md). */
export function oembedUrl(shareUrl: string): string {
  return `${pagesOrigin(shareUrl)}${OEMBED_PATH}?url=${encodeURIComponent(shareUrl)}&format=json`;
}

/** The share code in `.../p/{code}` or a link domain's `/{code}`; null when not ours in shape. */
export function codeFromShareUrl(raw: string): { code: string; linkDomain: string | null } | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const segments = url.pathname.split("/").filter(Boolean);
  const shareBase = new URL(env().shareUrl);
  const basePath = shareBase.pathname.split("/").filter(Boolean);
  const host = url.hostname.toLowerCase();
  if (
    segments.length === basePath.length + 1 &&
    basePath.every((segment, i) => segments[i] === segment) &&
    isShareCode(segments[segments.length - 1])
  ) {
    return { code: segments[segments.length - 1], linkDomain: null };
  }
  // `https://{link domain}/{code}`: the post must then belong to that domain's owner.
  if (segments.length === 1 && isShareCode(segments[0]) && host !== shareBase.hostname.toLowerCase()) {
    return { code: segments[0], linkDomain: host };
  }
  return null;
}

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The post's title, or its file's name (lib/presenters/title.ts). */
export function displayTitle(post: Pick<PostJson, "title" | "file_count" | "files">): string {
  return titleOrFileName(post);
}

function fit(width: number, height: number, maxWidth?: number, maxHeight?: number): [number, number] {
  let scale = 1;
  if (maxWidth && width > maxWidth) scale = Math.min(scale, maxWidth / width);
  if (maxHeight && height > maxHeight) scale = Math.min(scale, maxHeight / height);
  return [Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))];
}

/** `embed` carries the uploader's styled title, site name and author line (docs/embeds.md). */
export function buildOEmbed(post: PostJson, options: { maxWidth?: number; maxHeight?: number } = {}, embed?: EmbedText): OEmbed {
  const base: OEmbed = {
    version: "1.0",
    type: "link",
    title: embed?.title ?? displayTitle(post),
    provider_name: embed?.site_name ?? env().SITE_NAME,
    provider_url: env().PUBLIC_URL,
    cache_age: 3600,
    ...(post.author ? { author_name: embed?.author ?? post.author.username, author_url: profileUrl(post.author.username) } : {}),
  };
  const file = post.files[0];
  if (!file?.width || !file.height) return base;
  const [width, height] = fit(file.width, file.height, options.maxWidth, options.maxHeight);
  const kind = primaryKind(post);
  if (kind === "image" && post.kind === "image") {
    return { ...base, type: "photo", url: file.url, width, height };
  }
  if (kind === "video") {
    const poster = file.thumbnail_url ? ` poster="${escapeAttribute(file.thumbnail_url)}"` : "";
    return {
      ...base,
      type: "video",
      width,
      height,
      html: `<video src="${escapeAttribute(file.url)}"${poster} width="${width}" height="${height}" controls playsinline preload="metadata"></video>`,
      ...(file.thumbnail_url ? { thumbnail_url: file.thumbnail_url, thumbnail_width: file.width, thumbnail_height: file.height } : {}),
    };
  }
  return base;
}

export type OEmbedResult = { status: 200; body: OEmbed } | { status: 400 | 404 | 501; message: string };

export async function oembedFor(params: URLSearchParams): Promise<OEmbedResult> {
  const format = params.get("format");
  if (format && format !== "json") return { status: 501, message: "Only format=json is supported." };
  const raw = params.get("url");
  if (!raw) return { status: 400, message: "The url parameter is required." };
  const target = codeFromShareUrl(raw);
  if (!target) return { status: 404, message: "Not a share page of this service." };
  // An oEmbed consumer is a server: a view-limited or password-protected post is held from it (404 below).
  const result = await loadSharePost(target.code, null, target.linkDomain, false);
  // Unlisted posts are shareable by link; private ones never embed (no viewer here).
  if (result.kind !== "post" || result.post.privacy === "private") return { status: 404, message: "No such post." };
  const number = (name: string): number | undefined => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const embed = await shareEmbed(result.post, result.record.userId, false);
  return { status: 200, body: buildOEmbed(result.post, { maxWidth: number("maxwidth"), maxHeight: number("maxheight") }, embed) };
}
