/**
 * What a grid tile shows for a file: its sized renditions through `srcset`, never the
 * original (docs/renditions.md). Shared by the dashboard gallery, discover, the GIF search
 * and profiles; the share page's large image (`shareImageSources`) adds the 960 and 1280 renditions.
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

/** Tiles are at most ~430 px wide: renditions past 640 px are for the share page only. */
const GRID_MAX_WIDTH = 640;

/** The tile's `src`/`srcSet`, or null when the file has nothing to show (audio). */
export function previewSources(file: PreviewFile | undefined): PreviewSources | null {
  if (!file) return null;
  // Entries are smallest first; URLs past 640 are listed only for sources wider than 640.
  const renditions = (file.renditions ?? []).filter((r) => r.width <= GRID_MAX_WIDTH);
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

/**
 * `sizes` of the dashboard gallery, whose column sits beside the 12rem side bar: tiles are
 * ~210 px on a desktop (so a 320 rendition, not the 640 that 25vw picked; issue 29), a third
 * of what is left of the screen on a tablet, half of it on a phone.
 */
export const GALLERY_SIZES =
  "(min-width: 1152px) 210px, (min-width: 1024px) calc((100vw - 328px) / 4), (min-width: 768px) calc((100vw - 316px) / 3), (min-width: 640px) calc((100vw - 72px) / 3), calc((100vw - 44px) / 2)";

/**
 * The share page's image: every rendition (320, 640, 960, 1280), plus the original when it is
 * wider than the largest (a 2x desktop screen), so a phone never loads the original. `src`
 * is the largest rendition (browsers without srcset support get a sharp picture).
 */
export function shareImageSources(file: PreviewFile & { width: number | null }): PreviewSources {
  const renditions = file.renditions ?? [];
  if (renditions.length === 0) return { src: file.url };
  const largest = renditions[renditions.length - 1];
  const entries = renditions.map((r) => `${r.url} ${r.width}w`);
  if (file.width && file.width > largest.width) entries.push(`${file.url} ${file.width}w`);
  return { src: largest.url, srcSet: entries.join(", ") };
}

/** The share page's column: the page's padding on a phone, at most 64rem (max-w-5xl) wide. */
export const SHARE_IMAGE_SIZES = "(min-width: 1088px) 1024px, calc(100vw - 2rem)";
