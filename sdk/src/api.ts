/**
 * The API client (`/api`, header `api-key`): typed calls for every endpoint of the
 * generated `paths`, upload helpers and paging (docs/sdk.md).
 */
import { createTypedClient, trimBase, type Reply, type TypedClient } from "./client";
import type { paths as ApiPaths } from "./generated/api";
import { MediaHostError } from "./errors";
import { uploadForm, uploadHeaders, type AddFilesOptions, type UploadOptions, type UploadSource } from "./upload";

export type { ApiPaths };
export type UploadReply = Reply<ApiPaths["/upload"]["post"]>;
export type AddFilesReply = Reply<ApiPaths["/posts/{code}/files"]["post"]>;

export interface ApiClientOptions {
  /** Base URL of the API, e.g. `https://media.example.com/api` (the service's API_URL). */
  baseUrl: string;
  /** An app key (or a team key on the endpoints that take one). */
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

export interface ApiClient extends TypedClient<ApiPaths> {
  /** `POST /upload`: one or more files (one post, or one per file with `postType: "single"`). */
  upload(files: UploadSource | readonly UploadSource[], options?: UploadOptions): Promise<UploadReply>;
  /** `POST /posts/{code}/files`: append files to an own post. */
  addFiles(code: string, files: UploadSource | readonly UploadSource[], options?: AddFilesOptions): Promise<AddFilesReply>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createTypedClient<ApiPaths>({ baseUrl: trimBase(options.baseUrl), headers: { "api-key": options.apiKey }, fetch: options.fetch });
  return { ...client, ...uploadCalls(client) };
}

/** The same two calls on both surfaces (Relay has them too, with its own key). */
export function uploadCalls(client: { raw: { request: unknown } }): Pick<ApiClient, "upload" | "addFiles"> {
  // Multipart bodies are FormData, which the generated body type (an object of strings)
  // cannot describe; the reply is still the generated one.
  const request = client.raw.request as (method: string, path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const send = async (path: string, files: UploadSource | readonly UploadSource[], options: UploadOptions, code?: string) => {
    const list = Array.isArray(files) ? (files as readonly UploadSource[]) : [files as UploadSource];
    const { data, error, response } = await request("post", path, {
      body: uploadForm(list),
      headers: uploadHeaders(options),
      ...(code !== undefined ? { params: { path: { code } } } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      // Node's fetch (undici) clones a request that may follow a redirect, teeing the body:
      // the unread branch then holds the whole file in memory. With no redirects and no
      // window it sends the one body as it reads it (docs/sdk.md, "Uploads stream").
      redirect: "error",
      window: null,
    });
    if (!response.ok) throw MediaHostError.fromResponse(response, error);
    return data;
  };
  return {
    upload: async (files, options = {}) => (await send("/upload", files, options)) as UploadReply,
    addFiles: async (code, files, options = {}) => (await send("/posts/{code}/files", files, options, code)) as AddFilesReply,
  };
}
