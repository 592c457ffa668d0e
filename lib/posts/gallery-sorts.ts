/** The gallery's orders (docs/gallery-sort.md); plain data, so the dashboard offers exactly what GET /posts accepts. */
export const GALLERY_SORTS = ["date", "-date", "size", "-size", "views", "-views", "name", "-name"] as const;
export type GallerySort = (typeof GALLERY_SORTS)[number];
export const DEFAULT_GALLERY_SORT: GallerySort = "date";

export const isGallerySort = (value: string | null | undefined): value is GallerySort =>
  (GALLERY_SORTS as readonly string[]).includes(value ?? "");
