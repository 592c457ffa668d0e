/**
 * The API client (`/api`, header `api-key`): typed calls for every endpoint of the
 * generated `paths`, upload helpers and paging (docs/sdk.md).
 */
import { createTypedClient, trimBase, type Reply, type TypedClient } from "./client.js";
import type { paths as ApiPaths } from "./generated/api.js";
import { MediaHostError } from "./errors.js";
import { uploadForm, uploadHeaders, type AddFilesOptions, type FileSource, type UploadOptions, type UploadSource } from "./upload.js";

export type { ApiPaths };
export type UploadReply = Reply<ApiPaths["/upload"]["post"]>;
export type AddFilesReply = Reply<ApiPaths["/posts/{code}/files"]["post"]>;
export type GuestUploadReply = Reply<ApiPaths["/guest-uploads/{code}"]["post"]>;

export interface ApiClientOptions {
  /** Base URL of the API, e.g. `https://media.example.com/api` (the service's API_URL). */
  baseUrl: string;
  /** An app key (or a team key on the endpoints that take one). */
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

/** `convert-target` values (interface.md, POST /convert). */
export type ConvertTarget = "png" | "jpeg" | "webp" | "avif" | "gif" | "mp4" | "mp3";

/** A converted file, not read yet: pipe `body` to disk, or `new Response(body).blob()`. */
export interface ConvertedFile {
  /** From `Content-Disposition`; null when absent. */
  filename: string | null;
  /** `Content-Type` of the result. */
  type: string;
  /** `Content-Length`, or null when not sent. */
  size: number | null;
  body: ReadableStream<Uint8Array>;
}

export interface ApiClient extends TypedClient<ApiPaths> {
  /** `POST /upload`: one or more files or `{ url }`s the service fetches (one post, or one per file with `postType: "single"`). */
  upload(files: UploadSource | readonly UploadSource[], options?: UploadOptions): Promise<UploadReply>;
  /** `POST /posts/{code}/files`: append files to an own post. */
  addFiles(code: string, files: UploadSource | readonly UploadSource[], options?: AddFilesOptions): Promise<AddFilesReply>;
  /** `POST /convert`: one file to another format; the reply is the converted file. */
  convert(file: FileSource, target: ConvertTarget, options?: { signal?: AbortSignal }): Promise<ConvertedFile>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createTypedClient<ApiPaths>({
    baseUrl: trimBase(options.baseUrl),
    headers: { "api-key": options.apiKey },
    fetch: options.fetch,
  });
  return { ...client, ...fileCalls(client) };
}

/** Upload, add-files and convert: multipart calls both surfaces serve (each with its own key). */
export function fileCalls(client: { raw: { request: unknown } }): Pick<ApiClient, "upload" | "addFiles" | "convert"> {
  // Multipart bodies are FormData, which the generated body type (an object of strings)
  // cannot describe; the reply is still the generated one.
  const request = client.raw.request as (
    method: string,
    path: string,
    init: object,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const send = async (path: string, files: UploadSource | readonly UploadSource[], headers: Record<string, string>, extra: object = {}) => {
    const list = Array.isArray(files) ? (files as readonly UploadSource[]) : [files as UploadSource];
    const { data, error, response } = await request("post", path, {
      body: uploadForm(list),
      headers,
      // Node's fetch (undici) clones a request that may follow a redirect, teeing the body:
      // the unread branch then holds the whole file in memory. With no redirects and no
      // window it sends the one body as it reads it (docs/sdk.md, "Uploads stream").
      redirect: "error",
      window: null,
      ...extra,
    });
    if (!response.ok) throw MediaHostError.fromResponse(response, error);
    return { data, response };
  };
  const signal = (options: { signal?: AbortSignal }) => (options.signal ? { signal: options.signal } : {});
  return {
    upload: async (files, options = {}) => (await send("/upload", files, uploadHeaders(options), signal(options))).data as UploadReply,
    addFiles: async (code, files, options = {}) =>
      (await send("/posts/{code}/files", files, uploadHeaders(options), { params: { path: { code } }, ...signal(options) }))
        .data as AddFilesReply,
    convert: async (file, target, options = {}) => {
      const { data, response } = await send("/convert", file, { "convert-target": target }, { parseAs: "stream", ...signal(options) });
      const length = response.headers.get("content-length");
      return {
        filename: attachmentName(response.headers.get("content-disposition")),
        type: response.headers.get("content-type") ?? "application/octet-stream",
        size: length === null ? null : Number(length),
        body: data as ReadableStream<Uint8Array>,
      };
    },
  };
}

/** The file name of `Content-Disposition: attachment; filename="x"` (or RFC 8187 `filename*`). */
function attachmentName(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // malformed escape: fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*"((?:[^"\\]|\\.)*)"|filename\s*=\s*([^;]+)/i.exec(header);
  if (!plain) return null;
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/g, "$1") : plain[2].trim();
}

export interface GuestUploadOptions {
  /** The folder's upload password, when it has one (sent as `guest-password`, percent-encoded). */
  password?: string;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}

/**
 * `POST /guest-uploads/{code}` without a key (docs/guest-uploads.md): files into a folder
 * whose owner opened it to guests. `baseUrl` as for createApiClient; `code` is the folder's.
 */
export async function guestUpload(
  baseUrl: string,
  code: string,
  files: FileSource | readonly FileSource[],
  options: GuestUploadOptions = {},
): Promise<GuestUploadReply> {
  const client = createTypedClient<ApiPaths>({ baseUrl: trimBase(baseUrl), headers: {}, fetch: options.fetch });
  const request = client.raw.request as (
    method: string,
    path: string,
    init: object,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const list = Array.isArray(files) ? (files as readonly FileSource[]) : [files as FileSource];
  const { data, error, response } = await request("post", "/guest-uploads/{code}", {
    params: { path: { code } },
    body: uploadForm(list),
    headers: options.password === undefined ? {} : { "guest-password": encodeURIComponent(options.password) },
    // As fileCalls: no redirect and no window, so the body streams once (docs/sdk.md, "Uploads stream").
    redirect: "error",
    window: null,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok) throw MediaHostError.fromResponse(response, error);
  return data as GuestUploadReply;
}
