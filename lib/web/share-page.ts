/**
 * The share page's loader (docs/share-pages.md): every decision behind /p/{code}, the post read once
 * per request (React's `cache`) for generateMetadata and the page.
 */
import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { cache } from "react";
import { env } from "@/lib/config/env";
import { requestClientIp } from "@/lib/http/client-ip";
import { isShareCode } from "@/lib/posts/codes";
import { isGated } from "@/lib/posts/expiry-rules";
import { autoAltsOf } from "@/lib/posts/text-lines";
import type { EmbedText } from "@/lib/embeds/template";
import { displayTitle, oembedUrl } from "./oembed";
import { isRobot } from "./robots";
import { countShareView, loadSharePost, type PostJson, primaryKind } from "./share";
import { operatorColor, shareEmbed } from "./share-embed";
import { type ShareText, shareTexts } from "./share-text";
import { unlockCookieName } from "./share-unlock";
import { getViewer } from "./viewer";

export type { PostJson };

const siteName = (): string => env().SITE_NAME;

/** The theme-color Discord colours its embed with (docs/embeds.md). */
export async function shareThemeColor(code: string): Promise<string> {
  const page = await loadSharePage(code);
  return page.kind === "post" ? page.embed.color : operatorColor();
}

export interface ShownPost {
  kind: "post";
  post: PostJson;
  owner: boolean;
  title: string;
  embed: EmbedText;
  /** Hidden from unfurlers (no media tags): private, or gated by a view limit or a password. */
  guarded: boolean;
  video: PostJson["files"][number] | undefined;
  texts: ShareText[];
  autoAlts: ReturnType<typeof autoAltsOf>;
  signedIn: boolean;
  /** Not awaited; robots and prefetches are left out. */
  countView: () => void;
}

export type SharePage = ShownPost | { kind: "not_found" } | { kind: "moderated" } | { kind: "held" } | { kind: "password"; code: string };

const isPrefetch = (requestHeaders: Headers): boolean =>
  requestHeaders.has("next-router-prefetch") || requestHeaders.get("purpose") === "prefetch";

export const loadSharePage = cache(async (code: string): Promise<SharePage> => {
  if (!isShareCode(code)) return { kind: "not_found" };
  const [viewer, requestHeaders, cookieStore] = await Promise.all([getViewer(), headers(), cookies()]);
  const linkDomain = requestHeaders.get("x-link-domain");
  const prefetch = isPrefetch(requestHeaders);
  const person = !prefetch && !isRobot(requestHeaders.get("user-agent"));
  const unlock = cookieStore.get(unlockCookieName(code))?.value ?? null;
  const result = await loadSharePost(code, viewer?.id ?? null, linkDomain ? linkDomain.toLowerCase() : null, person, unlock);
  if (result.kind !== "post") return result;
  const { post, owner, record } = result;
  const guarded = post.privacy === "private" || isGated(record);
  const texts = post.files.some((f) => f.kind === "text") ? await shareTexts(record) : [];
  // Private and gated posts' text stays out of the tags, like their media.
  const preview = post.kind === "text" && !guarded ? texts[0]?.preview : undefined;
  return {
    kind: "post",
    post,
    owner,
    title: displayTitle(post),
    embed: await shareEmbed(post, record.userId, guarded, preview),
    guarded,
    video: primaryKind(post) === "video" && !guarded ? post.files[0] : undefined,
    texts,
    autoAlts: autoAltsOf(post.description, record.files),
    signedIn: viewer !== null,
    // A view-limited post counted its view in loadSharePost; countShareView leaves it out.
    countView: () => countShareView(record, requestClientIp(requestHeaders), requestHeaders.get("user-agent"), prefetch),
  };
});

export async function sharePageMetadata(code: string): Promise<Metadata> {
  const page = await loadSharePage(code);
  if (page.kind === "not_found") return { title: "Post not found", robots: { index: false } };
  if (page.kind === "moderated") return { title: "Post under moderation", robots: { index: false } };
  // No title, description or media of a locked post reaches an unfurler.
  if (page.kind === "password") return { title: "Password required", robots: { index: false, follow: false } };
  if (page.kind === "held") return { title: siteName(), robots: { index: false, follow: false } };
  const { post, title, guarded, embed } = page;
  return {
    title: { absolute: `${embed.title} · ${embed.site_name}` },
    description: embed.description,
    ...mediaMetadata(post, title, embed, guarded),
    alternates: {
      canonical: post.url,
      ...(guarded ? {} : { types: { "application/json+oembed": [{ url: oembedUrl(post.url), title: embed.title }] } }),
    },
    // Only public posts belong in search engines; unlisted ones are for people with the link.
    robots: post.privacy === "public" ? undefined : { index: false, follow: false },
  };
}

function mediaMetadata(post: PostJson, alt: string, embed: EmbedText, guarded: boolean): Pick<Metadata, "openGraph" | "twitter"> {
  const file = post.files[0];
  const { title, description } = embed;
  const base = { title, description, siteName: embed.site_name, url: post.url };
  // Gated posts (view limit, password) too: their signed, counted links must not sit in chat caches.
  if (!file || guarded) {
    return { openGraph: { ...base, type: "website" }, twitter: { card: "summary", title, description } };
  }
  const size = file.width && file.height ? { width: file.width, height: file.height } : {};
  if (primaryKind(post) === "video") {
    const poster = file.thumbnail_url ? [{ url: file.thumbnail_url, ...size, alt }] : [];
    return {
      openGraph: {
        ...base,
        type: "video.other",
        images: poster,
        videos: [{ url: file.url, ...(file.url.startsWith("https:") ? { secureUrl: file.url } : {}), type: file.mime_type, ...size }],
      },
      twitter: {
        card: "player",
        title,
        description,
        images: poster.map((p) => p.url),
        players: [{ playerUrl: post.url, streamUrl: file.url, width: file.width ?? 1280, height: file.height ?? 720 }],
      },
    };
  }
  // A `file` (AVIF, TIFF...) is a download: its card shows the WebP rendition, never the file.
  if (post.kind === "file" && file.thumbnail_url) {
    return {
      openGraph: { ...base, type: "website", images: [{ url: file.thumbnail_url, alt }] },
      twitter: { card: "summary_large_image", title, description, images: [file.thumbnail_url] },
    };
  }
  if (primaryKind(post) === "image" && post.kind === "image") {
    return {
      openGraph: { ...base, type: "website", images: [{ url: file.url, ...size, type: file.mime_type, alt }] },
      twitter: { card: "summary_large_image", title, description, images: [file.url] },
    };
  }
  return { openGraph: { ...base, type: "website" }, twitter: { card: "summary", title, description } };
}
