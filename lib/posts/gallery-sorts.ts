/**
 * The gallery's orders (docs/gallery-sort.md): a key in the direction a gallery shows first
 * (date newest, size largest, views most, name A to Z), or with a leading `-` the reverse.
 * `date` is the interface's order ("newest first") and the default. Plain data, so the
 * dashboard's sort control offers exactly what GET /posts accepts.
 */
export const GALLERY_SORTS = ["date", "-date", "size", "-size", "views", "-views", "name", "-name"] as const;
export type GallerySort = (typeof GALLERY_SORTS)[number];
export const DEFAULT_GALLERY_SORT: GallerySort = "date";

export const isGallerySort = (value: string | null | undefined): value is GallerySort =>
  (GALLERY_SORTS as readonly string[]).includes(value ?? "");
