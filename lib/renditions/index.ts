/** Sized WebP renditions of images and video stills (docs/renditions.md). */
export { GRID_RENDITION_WIDTH, RENDITION_WIDTHS, offeredRenditions, parseRenditionWidth, renditionKey, renditionKeys } from "./widths";
export type { RenditionWidth } from "./widths";
export { ensureRendition } from "./make";
export type { RenditionJob } from "./make";
export { RENDITION_EXTENSION, RENDITION_SEGMENT, parseRenditionSegments, renditionSourceKey } from "./source";
export type { RenditionSourceFile, RenditionTarget } from "./source";
