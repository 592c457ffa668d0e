/**
 * Sized renditions of images and video stills (docs/renditions.md): which widths exist,
 * where they are stored, and which of them a file's view lists.
 */

/**
 * Rendition widths in pixels, smallest first. 320 and 640 serve the grids; 960 and 1280 serve
 * the share page (issue 29: a 640 alone is too soft for a 380 px box at 2x, and the original
 * is often several times the bytes of a 1280 WebP). 960 is what a 1.75x–2x phone's ~380 px
 * column needs (665–760 px): without it such a phone took the 1280, 2.2x the bytes of a
 * 960 on bench:pages' photo, and the image share page's mobile LCP was 2.6 s, not 1.8 s.
 */
export const RENDITION_WIDTHS = [320, 640, 960, 1280] as const;
export type RenditionWidth = (typeof RENDITION_WIDTHS)[number];

/** The widest rendition a grid tile uses, and the one `thumbnail_url` names for images. */
export const GRID_RENDITION_WIDTH: RenditionWidth = 640;

/** The width named by a URL segment ("320"), or null when it is not one of ours. */
export function parseRenditionWidth(segment: string): RenditionWidth | null {
  const width = RENDITION_WIDTHS.find((w) => String(w) === segment);
  return width ?? null;
}

/**
 * Storage key of a rendition, beside the original: `p/<post>/<file>.png` →
 * `p/<post>/<file>.w320.webp`. Derived from the original's key (no column), so deleting a
 * file deletes its renditions without knowing whether they were ever made.
 */
export function renditionKey(storageKey: string, width: RenditionWidth): string {
  const slash = storageKey.lastIndexOf("/");
  const dot = storageKey.lastIndexOf(".");
  const stem = dot > slash ? storageKey.slice(0, dot) : storageKey;
  return `${stem}.w${width}.webp`;
}

/** Every rendition key a stored file may have. */
export function renditionKeys(storageKey: string): string[] {
  return RENDITION_WIDTHS.map((w) => renditionKey(storageKey, w));
}

/**
 * The renditions worth offering for a source `sourceWidth` pixels wide: renditions never
 * upscale, so widths at or past the source's collapse into one (the smallest such width,
 * whose pixels are the source's own). Pairs of (URL width, actual pixel width).
 */
export function offeredRenditions(sourceWidth: number | null): { width: RenditionWidth; pixels: number }[] {
  const offered: { width: RenditionWidth; pixels: number }[] = [];
  for (const width of RENDITION_WIDTHS) {
    const pixels = sourceWidth && sourceWidth > 0 ? Math.min(width, sourceWidth) : width;
    offered.push({ width, pixels });
    // This one already holds every source pixel: a wider one would be the same image.
    if (pixels === sourceWidth) break;
  }
  return offered;
}
