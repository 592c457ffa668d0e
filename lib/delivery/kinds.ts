/**
 * Headers by file kind (docs/file-kinds.md), kept apart from the media rules in
 * ./headers.ts so the /cdn lanes add one branch: a text file is shown as UTF-8 plain text
 * (the share page's raw link), any other file is always a download under its post's file
 * name. Both keep FILE_SECURITY_HEADERS (nosniff, the sandbox CSP), so nothing stored this
 * way is ever rendered as HTML or SVG, or run, on our origin.
 */
import type { ResolvedType } from "./headers";

/** Types a `file` keeps on its download (the share page's <audio> player and image preview need them); any other is octet-stream. */
const KEPT_FILE_TYPES: ReadonlySet<string> = new Set([
  "audio/mpeg",
  "audio/ogg",
  "audio/flac",
  "audio/wav",
  "audio/mp4",
  "image/avif",
  "image/heif",
  "image/tiff",
  "application/pdf",
  "application/zip",
  "application/gzip",
]);

export interface KindDelivery {
  /** Replaces resolveType's answer. */
  resolved: ResolvedType;
  /** The Content-Disposition filename: the post's file name. */
  downloadName: string;
}

/** The delivery of a text or other file, or null for media (the usual rules apply). */
export function kindDelivery(file: { kind?: string; mimeType: string; name: string }): KindDelivery | null {
  if (file.kind === "text") return { resolved: { contentType: "text/plain; charset=utf-8", inline: true }, downloadName: file.name };
  if (file.kind === "file") {
    const type = KEPT_FILE_TYPES.has(file.mimeType) ? file.mimeType : "application/octet-stream";
    return { resolved: { contentType: type, inline: false }, downloadName: file.name };
  }
  return null;
}
