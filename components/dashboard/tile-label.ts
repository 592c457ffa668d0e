/** The words of a gallery tile that has no picture to show. */
import type { FileObject } from "./api";

/**
 * What a tile without a picture says: a paste's language (its Shiki id, as the paste editor
 * lists it) or "Text", another file's extension, never a raw media type such as
 * `text/plain; charset=utf-8`.
 */
export function placeholderLabel(file: FileObject | undefined): string {
  if (!file) return "No file";
  if (file.kind === "text") return file.language && file.language !== "text" ? file.language : "Text";
  const dot = file.name.lastIndexOf(".");
  const extension = dot > 0 ? file.name.slice(dot + 1).toUpperCase() : "";
  if (file.kind === "file") return extension ? `${extension} file` : "File";
  return file.kind === "video" ? "Video" : "Image";
}
