/** Which stored pixels a file's renditions are made from (docs/renditions.md). */
import type { RenditionWidth } from "./widths";
import { parseRenditionWidth } from "./widths";

export interface RenditionSourceFile {
  storageKey: string;
  thumbnailKey: string | null;
  mimeType: string;
}

export function renditionSourceKey(file: RenditionSourceFile): string | null {
  if (file.mimeType.startsWith("image/")) return file.storageKey;
  return file.thumbnailKey;
}

export const RENDITION_SEGMENT = "r";
export const RENDITION_EXTENSION = ".webp";

export type RenditionTarget = { kind: "rendition"; name: string; width: RenditionWidth } | { kind: "bad" };

/** "bad" for a rendition path with an unknown width or extension, null for other paths. */
export function parseRenditionSegments(rest: readonly string[]): RenditionTarget | null {
  if (rest.length !== 3 || rest[0] !== RENDITION_SEGMENT) return null;
  const width = parseRenditionWidth(rest[1]);
  const file = rest[2];
  if (!width || !file.endsWith(RENDITION_EXTENSION) || file.length === RENDITION_EXTENSION.length) return { kind: "bad" };
  return { kind: "rendition", name: file.slice(0, -RENDITION_EXTENSION.length), width };
}
