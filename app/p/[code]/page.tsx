/**
 * The share page of a post: its media, details and the unfurl tags link previews read.
 * Everything comes from one read of the post per request (lib/web/share.ts); no client
 * fetching, so crawlers get the whole page at once. See docs/share-pages.md.
 */
import type { Metadata, Viewport } from "next";
import { cookies, headers } from "next/headers";
import { notFound } from "next/navigation";
import { PostDetails } from "@/components/share/PostDetails";
import { PostMedia } from "@/components/share/PostMedia";
import { autoAltsOf } from "@/lib/posts/text-lines";
import { env } from "@/lib/config/env";
import { isShareCode } from "@/lib/posts/codes";
import { requestClientIp } from "@/lib/http/client-ip";
import { displayTitle, oembedUrl } from "@/lib/web/oembed";
import { countShareView, loadSharePost, primaryKind, type PostJson, type ShareResult } from "@/lib/web/share";
import { getViewer } from "@/lib/web/viewer";
import { isRobot } from "@/lib/web/robots";
import { isGated } from "@/lib/posts/expiry-rules";
import { unlockCookieName } from "@/lib/web/share-unlock";
import { PasswordForm } from "@/components/share/PasswordForm";
import { countOf } from "@/components/plural";
import { shareTexts } from "@/lib/web/share-text";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ code: string }>; searchParams: Promise<{ password?: string | string[] }> };

/** The operator's embed defaults (EMBED_COLOR, SITE_NAME; console settings): Discord colours its embed with theme-color, in both themes. */
const embedColor = (): string => env().EMBED_COLOR;
const siteName = (): string => env().SITE_NAME;

async function load(params: Props["params"]): Promise<ShareResult> {
  const { code } = await params;
  if (!isShareCode(code)) return { kind: "not_found" };
  const [viewer, requestHeaders, cookieStore] = await Promise.all([getViewer(), headers(), cookies()]);
  // Set by proxy.ts when the request came in on a custom link domain.
  const linkDomain = requestHeaders.get("x-link-domain");
  // Robots and prefetches spend no view and get no media of a gated post (docs/expiry.md).
  const person = !isPrefetch(requestHeaders) && !isRobot(requestHeaders.get("user-agent"));
  const unlock = cookieStore.get(unlockCookieName(code))?.value ?? null;
  return loadSharePost(code, viewer?.id ?? null, linkDomain ? linkDomain.toLowerCase() : null, person, unlock);
}

function isPrefetch(requestHeaders: Headers): boolean {
  return requestHeaders.has("next-router-prefetch") || requestHeaders.get("purpose") === "prefetch";
}

function describe(post: PostJson, textPreview?: string): string {
  if (post.description) return post.description;
  // A text post unfurls with its first lines (Discord and Slack show og:description).
  if (textPreview) return textPreview;
  const kind =
    post.file_count > 1
      ? `An album of ${countOf(post.file_count, "file")}`
      : post.kind === "file"
        ? `A file (${post.files[0]?.name ?? "download"})`
        : primaryKind(post) === "video"
          ? "A video"
          : "An image";
  return post.author ? `${kind} by ${post.author.username}` : kind;
}

/** The media tags of a post anyone with the link may see; none for private posts. */
function mediaMetadata(post: PostJson, title: string, description: string, gated: boolean): Pick<Metadata, "openGraph" | "twitter"> {
  const file = post.files[0];
  const base = { title, description, siteName: siteName(), url: post.url };
  // Gated posts (view limit, password) too: their signed, counted links must not sit in chat caches.
  if (!file || post.privacy === "private" || gated) {
    return { openGraph: { ...base, type: "website" }, twitter: { card: "summary", title, description } };
  }
  const size = file.width && file.height ? { width: file.width, height: file.height } : {};
  if (primaryKind(post) === "video") {
    const poster = file.thumbnail_url ? [{ url: file.thumbnail_url, ...size, alt: title }] : [];
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
      openGraph: { ...base, type: "website", images: [{ url: file.thumbnail_url, alt: title }] },
      twitter: { card: "summary_large_image", title, description, images: [file.thumbnail_url] },
    };
  }
  if (primaryKind(post) === "image" && post.kind === "image") {
    return {
      openGraph: { ...base, type: "website", images: [{ url: file.url, ...size, type: file.mime_type, alt: title }] },
      twitter: { card: "summary_large_image", title, description, images: [file.url] },
    };
  }
  return { openGraph: { ...base, type: "website" }, twitter: { card: "summary", title, description } };
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const result = await load(params);
  if (result.kind === "not_found") return { title: "Post not found", robots: { index: false } };
  if (result.kind === "moderated") return { title: "Post under moderation", robots: { index: false } };
  // No title, description or media of a locked post reaches an unfurler.
  if (result.kind === "password") return { title: "Password required", robots: { index: false, follow: false } };
  if (result.kind === "held") return { title: siteName(), robots: { index: false, follow: false } };
  const { post } = result;
  const gated = isGated(result.record);
  const title = displayTitle(post);
  // Private posts' text stays out of the tags, like their media.
  const texts = post.kind === "text" && post.privacy !== "private" && !gated ? await shareTexts(result.record) : [];
  const description = describe(post, texts[0]?.preview);
  return {
    title: { absolute: `${title} · ${siteName()}` },
    description,
    ...mediaMetadata(post, title, description, gated),
    alternates: {
      canonical: post.url,
      ...(post.privacy === "private" || gated ? {} : { types: { "application/json+oembed": [{ url: oembedUrl(post.url), title }] } }),
    },
    // Only public posts belong in search engines; unlisted ones are for people with the link.
    robots: post.privacy === "public" ? undefined : { index: false, follow: false },
  };
}

export const generateViewport = (): Viewport => ({ themeColor: embedColor() });

export default async function SharePage({ params, searchParams }: Props) {
  const result = await load(params);
  if (result.kind === "not_found") notFound();
  if (result.kind === "password") return <PasswordForm code={result.code} problem={(await searchParams).password} />;
  if (result.kind === "held") {
    return (
      <section className="mx-auto max-w-md space-y-3 py-16 text-center">
        <h1 className="text-2xl font-bold tracking-tight">Open this link in a browser</h1>
        <p className="text-zinc-600 dark:text-zinc-300">This post is shown to people only.</p>
      </section>
    );
  }
  if (result.kind === "moderated") {
    return (
      <section className="mx-auto max-w-md space-y-3 py-16 text-center">
        <h1 className="text-2xl font-bold tracking-tight">This post is under moderation</h1>
        <p className="text-zinc-600 dark:text-zinc-300">It was reported or flagged and is hidden while a moderator looks at it.</p>
      </section>
    );
  }
  const { post, owner, record } = result;
  const requestHeaders = await headers();
  // A view-limited post counted its view in loadSharePost; countShareView leaves it out.
  countShareView(
    record,
    requestClientIp(requestHeaders),
    requestHeaders.get("user-agent"),
    requestHeaders.has("next-router-prefetch") || requestHeaders.get("purpose") === "prefetch",
  );
  const title = displayTitle(post);
  const video = primaryKind(post) === "video" && post.privacy !== "private" && !isGated(record) ? post.files[0] : undefined;
  return (
    <article className="mx-auto max-w-5xl space-y-6">
      {/* Next's openGraph.videos writes og:video but not og:video:url, which some unfurlers
          read (notes/clients.md); React hoists this tag into <head> with the others. */}
      {video ? <meta property="og:video:url" content={video.url} /> : null}
      <PostMedia
        post={post}
        title={title}
        texts={post.files.some((f) => f.kind === "text") ? await shareTexts(record) : []}
        autoAlts={autoAltsOf(post.description, record.files)}
      />
      <PostDetails post={post} title={title} owner={owner} signedIn={!!(await getViewer())} />
    </article>
  );
}
