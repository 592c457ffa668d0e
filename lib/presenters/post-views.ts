/** The post and file objects (`Post`, `File` in ./schemas.ts and the OpenAPI documents), built from post records. */
import { activeLinkDomain } from "../users/link-domain-proof";
import type { z } from "zod";
import { env } from "../config/env";
import { SIGNED_URL_TTL_SECONDS, signPath } from "../crypto/signing";
import { postOnAdaptiveDelivery } from "../posts/adaptive";
import { isGated } from "../posts/expiry-rules";
import type { Privacy } from "../posts/privacy";
import { isHidden, type PostRecord } from "../posts/read";
import type { Surface } from "../types/surface";
import type { FileKind, FileObject, Post } from "./schemas";
import { userRef } from "./views";
import {
  GRID_RENDITION_WIDTH,
  RENDITION_EXTENSION,
  RENDITION_SEGMENT,
  offeredRenditions,
  renditionSourceKey,
  type RenditionWidth,
} from "../renditions";

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

function cdnUrl(path: string, signed: boolean, now: number, postExpiresAt: Date | null): string {
  const base = `${env().cdnUrl}/${path}`;
  if (!signed) return base;
  // Never valid past the post's own expiry (docs/expiry.md).
  const ttlEnd = Math.floor(now / 1000) + SIGNED_URL_TTL_SECONDS;
  const end = postExpiresAt ? Math.min(ttlEnd, Math.ceil(postExpiresAt.getTime() / 1000)) : ttlEnd;
  const query = signPath(path, end).replace(/^\?/, "");
  return `${base}?${query}`;
}

/** `https://{link domain}/{code}` when the author set one, else the share page. */
export function shareUrl(post: Pick<PostRecord, "code" | "user">): string {
  // Only a proven link domain (issue 27): a pending claim keeps the share host.
  const domain = activeLinkDomain(post.user);
  return domain ? `https://${domain}/${post.code}` : `${env().shareUrl}/${post.code}`;
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
  const url = (path: string) => cdnUrl(path, signed, now, post.expiresAt);
  const offered = renditionsOf(post, file, url);
  const renditions = offered.map(({ width, url }) => ({ width, url }));
  // A grid-sized preview (640 or narrower), as before the 1280 width existed (docs/renditions.md).
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

/** image or video for media files (by their stored type), else the stored kind. */
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
    ...(options.owner && options.surface === "relay" ? { access: post.access.map((a) => userRef(a.user)) } : {}),
  };
}
