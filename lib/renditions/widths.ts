/** Sized renditions of images and video stills (docs/renditions.md). */

/**
 * 320 and 640 serve the grids, 960 and 1280 the share page. 960 fits a 2x phone's ~380 px
 * column: without it such a phone took the 1280 and the mobile LCP was 2.6 s, not 1.8 s.
 */
export const RENDITION_WIDTHS = [320, 640, 960, 1280] as const;
export type RenditionWidth = (typeof RENDITION_WIDTHS)[number];

/** The widest rendition a grid tile uses, and the one `thumbnail_url` names for images. */
export const GRID_RENDITION_WIDTH: RenditionWidth = 640;

export function parseRenditionWidth(segment: string): RenditionWidth | null {
  const width = RENDITION_WIDTHS.find((w) => String(w) === segment);
  return width ?? null;
}

/** Derived from the original's key (no column), so deleting a file deletes its renditions without knowing they were made. */
export function renditionKey(storageKey: string, width: RenditionWidth): string {
  const slash = storageKey.lastIndexOf("/");
  const dot = storageKey.lastIndexOf(".");
  const stem = dot > slash ? storageKey.slice(0, dot) : storageKey;
  return `${stem}.w${width}.webp`;
}

export function renditionKeys(storageKey: string): string[] {
  return RENDITION_WIDTHS.map((w) => renditionKey(storageKey, w));
}

/** Renditions never upscale: widths at or past the source's collapse into one. Pairs of (URL width, pixel width). */
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
