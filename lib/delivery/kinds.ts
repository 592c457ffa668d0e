/**
 * Headers by file kind (docs/file-kinds.md): a text file as UTF-8 plain text, any other file a
 * download; both keep FILE_SECURITY_HEADERS, so nothing stored this way is rendered or run.
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
  resolved: ResolvedType;
  downloadName: string;
}

export function kindDelivery(file: { kind?: string; mimeType: string; name: string }): KindDelivery | null {
  if (file.kind === "text") return { resolved: { contentType: "text/plain; charset=utf-8", inline: true }, downloadName: file.name };
  if (file.kind === "file") {
    const type = KEPT_FILE_TYPES.has(file.mimeType) ? file.mimeType : "application/octet-stream";
    return { resolved: { contentType: type, inline: false }, downloadName: file.name };
  }
  return null;
}
