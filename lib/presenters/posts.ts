/** `Post` and `File` of the API and Relay, the views that build them, and the posts and media areas' replies. */
import { z } from "zod";
import { postCdnBase, postShareUrl } from "@/lib/domains/domains";
import { SIGNED_URL_TTL_SECONDS, signPath } from "@/lib/crypto/signing";
import { postOnAdaptiveDelivery } from "@/lib/posts/adaptive";
import { isGated } from "@/lib/posts/expiry-rules";
import { isHidden, type PostRecord } from "@/lib/posts/read";
import type { Surface } from "@/lib/types/surface";
import { type DomainError, errorBodyOf } from "@/lib/errors";
import { BATCH_ACTIONS } from "@/lib/posts/batch";
import { PRIVACIES, type Privacy } from "@/lib/posts/privacy";
import { failedFilesView, type FailedFileView } from "./failed-files";
import { deleted, iso, paged } from "./shared";
import { UserRef, userRef } from "./users";
import {
  GRID_RENDITION_WIDTH,
  RENDITION_EXTENSION,
  RENDITION_SEGMENT,
  offeredRenditions,
  renditionSourceKey,
  type RenditionWidth,
} from "@/lib/renditions";

/** What a file is (docs/file-kinds.md). */
export const FILE_KINDS = ["image", "video", "text", "file"] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export const FileObject = z
  .object({
    name: z.string(),
    url: z.url(),
    size: z.number().int(),
    mime_type: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    duration: z.number().nullable().optional(),
    thumbnail_url: z
      .url()
      .nullable()
      .describe(
        "Videos: the generated still frame (JPEG). Images: the grid-sized WebP rendition (640 px wide, or the image's own width when narrower; docs/renditions.md). For private posts it is signed with the same 24-hour expiry.",
      ),
    renditions: z
      .array(
        z.object({
          width: z.number().int().describe("Pixel width of this rendition (never more than the source's)"),
          url: z.url().describe("WebP rendition; signed like the file's url for private posts"),
        }),
      )
      .describe(
        "Sized WebP renditions of an image or of a video's still frame, smallest first, for srcset (320, 640, 960 and 1280 px; fewer when the source is narrower). Empty for files without pixels to show.",
      ),
    stream_url: z.url().nullable().describe("HLS master playlist (adaptive delivery); null until ready or on standard delivery"),
    stream_state: z
      .enum(["queued", "processing", "ready", "failed"])
      .nullable()
      .describe("Adaptive stream progress; null for images and standard delivery (docs/priority-delivery.md)"),
    kind: z
      .enum(FILE_KINDS)
      .describe(
        "image or video (the media types); text (a text or source file, shown highlighted on the share page; url serves it as text/plain) or file (any other file, served as an attachment). text and file exist only when the operator allows them (UPLOAD_FILES, docs/file-kinds.md); width and height are null for them.",
      ),
    language: z.string().nullable().describe("Text files: the highlighting language (a Shiki grammar id, or text); null otherwise"),
    text: z
      .object({
        content: z.string().describe("The words read, one line of the image per line; empty when the image has no readable text"),
        language: z.string().describe("Tesseract language code, e.g. eng"),
        confidence: z.number().describe("Mean confidence (0-100) of the words kept"),
      })
      .nullable()
      .optional()
      .describe(
        "Addition (docs/ocr.md): the text read from an image in the background. Present only for the post's owner; null until read, and for files that are not images.",
      ),
  })
  .meta({ id: "File" });

/** A tag as a post carries it (docs/tags.md); the tag object of GET /tags adds its post count. */
export const PostTag = z.object({ id: z.string(), name: z.string(), color: z.string().describe("#rrggbb") }).meta({ id: "PostTag" });

export const Post = z
  .object({
    code: z.string(),
    url: z.url(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    privacy: z.enum(PRIVACIES),
    created_at: iso,
    view_count: z.number().int(),
    like_count: z.number().int().nullable(),
    comment_count: z.number().int(),
    liked: z.boolean().nullable(),
    priority: z.boolean(),
    file_count: z.number().int(),
    files: z.array(FileObject),
    kind: z.enum(FILE_KINDS).describe("The first file's kind (docs/file-kinds.md)"),
    team_id: z.string().nullable(),
    author: UserRef.nullable(),
    moderated: z.boolean().optional(),
    restricted: z.boolean().optional(),
    access: z.array(UserRef).optional(),
    /** docs/expiry.md: when the post expires, and after how many counted views. */
    expires_at: iso.nullable(),
    max_views: z.number().int().nullable(),
    /** Present only for the owner: whether the share page asks for a password (docs/share-passwords.md). */
    password_protected: z.boolean().optional(),
    favorite: z.boolean().optional().describe("Present only for the owner: marked as a favourite (docs/tags.md)"),
    tags: z
      .array(PostTag)
      .optional()
      .describe("Present only for the owner: the owner's tags on the post, by name (docs/tags.md). Never shown to anyone else."),
  })
  .meta({ id: "Post" });

/** Path of a file below the CDN base: `<code>/<name>`; thumbnails `<code>/thumbs/<name>.jpg`. */
export const filePath = (code: string, name: string) => `${code}/${encodeURIComponent(name)}`;
export const thumbnailPath = (code: string, name: string) => `${code}/thumbs/${encodeURIComponent(name)}.jpg`;
/** A sized WebP rendition of an image or a video's still (docs/renditions.md). */
export const renditionPath = (code: string, name: string, width: RenditionWidth) =>
  `${code}/${RENDITION_SEGMENT}/${width}/${encodeURIComponent(name)}${RENDITION_EXTENSION}`;
/** The HLS master playlist of a video on priority delivery (lib/delivery/hls.ts). */
export const streamPath = (code: string, name: string) => `${code}/hls/${encodeURIComponent(name)}/master.m3u8`;
const STREAM_STATES = ["queued", "processing", "ready", "failed"] as const;
type StreamState = (typeof STREAM_STATES)[number];
const streamState = (v: string | null): StreamState | null =>
  (STREAM_STATES as readonly string[]).includes(v ?? "") ? (v as StreamState) : null;

function cdnUrl(cdnBase: string, path: string, signed: boolean, now: number, postExpiresAt: Date | null): string {
  const base = `${cdnBase}/${path}`;
  if (!signed) return base;
  // Never valid past the post's own expiry (docs/expiry.md).
  const ttlEnd = Math.floor(now / 1000) + SIGNED_URL_TTL_SECONDS;
  const end = postExpiresAt ? Math.min(ttlEnd, Math.ceil(postExpiresAt.getTime() / 1000)) : ttlEnd;
  const query = signPath(path, end).replace(/^\?/, "");
  return `${base}?${query}`;
}

/**
 * The share page on the post's domain (docs/domains.md); else `https://{link domain}/{code}`
 * when the author proved one (a pending claim keeps the share host, issue 27), else the share page.
 */
export function shareUrl(post: Pick<PostRecord, "code" | "domain" | "user">): string {
  return postShareUrl(post);
}

export interface PostViewOptions {
  owner: boolean;
  liked: boolean;
  surface: Surface;
  /** Discover and share unfurls show only the primary file. */
  primaryOnly?: boolean;
  now?: number;
}

/**
 * The renditions a file offers, smallest first: widths past the source's collapse into one
 * (never upscaled), so every entry has distinct pixels. Videos: of the still frame.
 */
function renditionsOf(
  post: PostRecord,
  file: PostRecord["files"][number],
  url: (path: string) => string,
): { width: number; url: string; urlWidth: RenditionWidth }[] {
  if (!renditionSourceKey(file)) return [];
  return offeredRenditions(file.width).map(({ width, pixels }) => ({
    width: pixels,
    url: url(renditionPath(post.code, file.name, width)),
    urlWidth: width,
  }));
}

/** `owner`: the text read from the image is the owner's alone (docs/ocr.md). */
export function fileView(post: PostRecord, file: PostRecord["files"][number], now: number, owner = false): z.infer<typeof FileObject> {
  // View-limited and password-protected posts hand out signed links only (docs/expiry.md).
  const signed = isHidden(post) || isGated(post);
  const cdnBase = postCdnBase(post);
  const url = (path: string) => cdnUrl(cdnBase, path, signed, now, post.expiresAt);
  const offered = renditionsOf(post, file, url);
  const renditions = offered.map(({ width, url }) => ({ width, url }));
  // A grid-sized preview (640 or narrower), as before the wider widths existed (docs/renditions.md).
  const thumbnail = offered.filter((r) => r.urlWidth <= GRID_RENDITION_WIDTH).at(-1)?.url ?? null;
  const isImage = file.mimeType.startsWith("image/");
  return {
    name: file.name,
    url: url(filePath(post.code, file.name)),
    size: Number(file.size),
    mime_type: file.mimeType,
    width: file.width,
    height: file.height,
    duration: file.duration,
    // Videos: the still frame as it was made at upload; images: their grid-sized rendition.
    thumbnail_url: isImage ? thumbnail : file.thumbnailKey ? url(thumbnailPath(post.code, file.name)) : null,
    renditions,
    stream_url: file.priority && file.streamState === "ready" ? url(streamPath(post.code, file.name)) : null,
    stream_state: file.priority ? streamState(file.streamState) : null,
    kind: fileKind(file),
    language: file.kind === "text" ? (file.language ?? "text") : null,
    ...(owner
      ? { text: file.text ? { content: file.text.text, language: file.text.language, confidence: file.text.confidence } : null }
      : {}),
  };
}

export function fileKind(file: Pick<PostRecord["files"][number], "kind" | "mimeType">): FileKind {
  if (file.kind === "text" || file.kind === "file") return file.kind;
  return file.mimeType.startsWith("video/") ? "video" : "image";
}

export function postView(post: PostRecord, options: PostViewOptions): z.infer<typeof Post> {
  const now = options.now ?? Date.now();
  const team = !!post.teamId;
  const files = options.primaryOnly ? post.files.slice(0, 1) : post.files;
  return {
    code: post.code,
    url: shareUrl(post),
    title: post.title,
    description: post.description,
    privacy: post.privacy as Privacy,
    created_at: post.createdAt.toISOString(),
    view_count: post.viewCount,
    like_count: team ? null : post.likeCount,
    comment_count: post.commentCount,
    liked: team ? null : options.liked,
    // From every file (an album counts even when only its primary file is shown), not the
    // column: the files are what stream_state is read from, so the two always agree.
    priority: postOnAdaptiveDelivery(post.files),
    file_count: post.fileCount,
    files: files.map((f) => fileView(post, f, now, options.owner)),
    kind: post.files[0] ? fileKind(post.files[0]) : "image",
    team_id: post.teamId,
    author: post.user ? userRef(post.user) : null,
    ...(options.owner ? { moderated: post.moderated, restricted: post.restricted } : {}),
    expires_at: post.expiresAt ? post.expiresAt.toISOString() : null,
    max_views: post.maxViews,
    ...(options.owner ? { password_protected: post.passwordHash !== null } : {}),
    // The owner's own labels: never in anyone else's view of the post (docs/tags.md).
    ...(options.owner
      ? { favorite: post.favorite, tags: post.tags.map(({ tag }) => ({ id: tag.id, name: tag.name, color: tag.color })) }
      : {}),
    ...(options.owner && options.surface === "relay" ? { access: post.access.map((a) => userRef(a.user)) } : {}),
  };
}

// ───────────────────────────── replies of the posts and media areas ─────────────────────────────

/** One post, and pages of posts (GET /posts, /users/{id}/posts, /gifs). */
export const PostReply = z.object({ post: Post });
export const PostPage = paged("posts", Post);
export const DeletedFile = deleted("name");
export const PostList = z.object({ posts: z.array(Post) });
/** The dashboard's share-page password (docs/share-passwords.md): whether the page now asks for one. */
export const SharePasswordReply = z.object({ password_protected: z.boolean() });

const failedEntry = z.object({ index: z.number().int(), error: z.looseObject({ type: z.string(), message: z.string() }) });

/** POST /upload: one post with its direct URL, or the list of posts (docs/uploads.md, "How files map to posts"). */
export const UploadReply = z.union([
  z.object({ url: z.url(), post: Post, failed: z.array(failedEntry).optional() }),
  z.object({ posts: z.array(Post), failed: z.array(failedEntry).optional() }),
]);
export const AddFilesReply = z.object({ post: Post, failed: z.array(failedEntry).optional() });

/** POST /posts/batch (docs/bulk-actions.md). */
export const BatchReply = z.object({
  action: z.enum(BATCH_ACTIONS),
  succeeded: z.array(
    z.object({
      index: z.number().int(),
      code: z.string(),
      privacy: z
        .enum(PRIVACIES)
        .optional()
        .describe("privacy action: the post's privacy afterwards (team posts stay private, restricted posts unlisted)"),
    }),
  ),
  failed: z.array(
    z.object({
      index: z.number().int().describe("Zero-based position of the code in `codes`"),
      code: z.string(),
      error: z.looseObject({ type: z.string(), message: z.string() }),
    }),
  ),
});

type PostView = z.infer<typeof Post>;

/** What a publish verb answers (lib/uploads/publish.ts): the posts made or grown, and the files refused. */
interface Published {
  posts: readonly PostRecord[];
  failed: readonly { index: number; error: DomainError }[];
}

/** The `failed` list of a reply, present only when some file failed (docs/uploads.md, "How files map to posts"). */
const failedPart = (failed: Published["failed"]): { failed?: FailedFileView[] } =>
  failed.length ? { failed: failedFilesView(failed) } : {};

export function uploadReply(outcome: Published, surface: Surface): z.input<typeof UploadReply> {
  const posts = outcome.posts.map((post) => postView(post, { owner: true, liked: false, surface }));
  if (posts.length === 1) return { url: posts[0].files[0].url, post: posts[0], ...failedPart(outcome.failed) };
  return { posts, ...failedPart(outcome.failed) };
}

export function appendReply(outcome: { post: PostRecord; failed: Published["failed"] }, surface: Surface): z.input<typeof AddFilesReply> {
  return { post: postView(outcome.post, { owner: true, liked: false, surface }), ...failedPart(outcome.failed) };
}

/**
 * A cached read's reply per post record and viewer kind (docs/performance.md, "The cached post
 * reply kept, cheaper cache hits and key hashes"): cached records are replaced, never changed,
 * so keying by the record follows every change. Frozen: the dispatcher keeps frozen replies' JSON text.
 */
type FrozenPostReply = Readonly<{ post: PostView }>;
const cachedViews = new WeakMap<PostRecord, (FrozenPostReply | undefined)[]>();
export function cachedPostReply(post: PostRecord, owner: boolean, liked: boolean): FrozenPostReply {
  let views = cachedViews.get(post);
  if (!views) cachedViews.set(post, (views = []));
  const slot = (owner ? 2 : 0) + (liked ? 1 : 0);
  return (views[slot] ??= Object.freeze({ post: postView(post, { owner, liked, surface: "api" }) }));
}

/** A batch's outcome: each failure as its error body (lib/errors.ts). */
export function batchView(
  action: (typeof BATCH_ACTIONS)[number],
  outcome: {
    succeeded: { index: number; code: string; privacy?: Privacy }[];
    failed: { index: number; code: string; error: DomainError }[];
  },
): z.output<typeof BatchReply> {
  return {
    action,
    succeeded: outcome.succeeded,
    failed: outcome.failed.map((f) => ({ index: f.index, code: f.code, error: errorBodyOf(f.error).error })),
  };
}
