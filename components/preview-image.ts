/**
 * What a grid tile shows for a file: its sized renditions through `srcset`, never the
 * original (docs/renditions.md). Shared by the dashboard gallery, discover, the GIF search
 * and profiles; the share page keeps the original.
 */
export interface PreviewFile {
  url: string;
  mime_type: string;
  thumbnail_url: string | null;
  renditions?: { width: number; url: string }[];
}

export interface PreviewSources {
  src: string;
  /** `url 320w, url 640w`; absent when the file has no renditions. */
  srcSet?: string;
}

/** The tile's `src`/`srcSet`, or null when the file has nothing to show (audio). */
export function previewSources(file: PreviewFile | undefined): PreviewSources | null {
  if (!file) return null;
  const renditions = file.renditions ?? [];
  if (renditions.length > 0) {
    return { src: renditions[renditions.length - 1].url, srcSet: renditions.map((r) => `${r.url} ${r.width}w`).join(", ") };
  }
  // A reply from before renditions existed: the still frame, else the image itself.
  if (file.thumbnail_url) return { src: file.thumbnail_url };
  return file.mime_type.startsWith("image/") ? { src: file.url } : null;
}

/** `sizes` of the three-column grids (discover, profiles) and the four-column ones (gallery, GIFs). */
export const THREE_COLUMN_SIZES = "(min-width: 1024px) 33vw, (min-width: 640px) 50vw, 100vw";
export const FOUR_COLUMN_SIZES = "(min-width: 1024px) 25vw, (min-width: 640px) 33vw, 50vw";
