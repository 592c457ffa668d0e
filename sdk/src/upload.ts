/**
 * Multipart bodies for `POST /upload` and `POST /posts/{code}/files`, from `File`/`Blob`
 * values. Nothing is read here: `FormData` keeps references to the blobs, and fetch reads
 * them while it sends (a browser's `File`, or a file-backed Blob from `fromPath` in
 * sdk/src/node.ts), so a large file is streamed, never held in memory.
 */

/** A file to send: a `File` (its name is used), or any Blob with the name to give it. */
export type FileSource = Blob | { blob: Blob; name: string };

/**
 * What an upload takes: a file, or `{ url }`, an http(s) URL the service fetches itself
 * (the `url` field; docs/url-uploads.md).
 */
export type UploadSource = FileSource | { url: string };

export interface UploadOptions {
  /** `post-privacy`; the service's default is `private`. */
  privacy?: "public" | "unlisted" | "private";
  /** `include-metadata`: keep EXIF / container metadata (default: stripped). */
  includeMetadata?: boolean;
  /** `post-type`: `album` (default) puts every file in one post, `single` one post per file. */
  postType?: "album" | "single";
  /** `priority`: adaptive streaming for videos (service default: on). */
  priority?: boolean;
  /** Cancels the upload. */
  signal?: AbortSignal;
}

/** Add-files takes only these headers (the post's privacy and type are already set). */
export type AddFilesOptions = Pick<UploadOptions, "includeMetadata" | "priority" | "signal">;

export function uploadForm(files: readonly UploadSource[]): FormData {
  if (files.length === 0) throw new TypeError("upload: at least one file is needed");
  const form = new FormData();
  for (const file of files) {
    if (file instanceof Blob) form.append("file", file, nameOf(file));
    else if ("url" in file) form.append("url", file.url);
    else form.append("file", file.blob, file.name);
  }
  return form;
}

export function uploadHeaders(options: UploadOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.privacy !== undefined) headers["post-privacy"] = options.privacy;
  if (options.includeMetadata !== undefined) headers["include-metadata"] = String(options.includeMetadata);
  if (options.postType !== undefined) headers["post-type"] = options.postType;
  if (options.priority !== undefined) headers.priority = String(options.priority);
  return headers;
}

/** A File's own name; a bare Blob gets "upload" (the service names files from their bytes' type). */
function nameOf(blob: Blob): string {
  const name = (blob as Blob & { name?: unknown }).name;
  return typeof name === "string" && name !== "" ? name : "upload";
}
