/**
 * The typed core shared by the API and Relay clients: openapi-fetch over the generated
 * `paths`, with calls that return the 200 body and throw MediaHostError on anything else,
 * and paging iterators (interface.md "Pagination"). Works in Node 20+ and browsers: it
 * needs only `fetch`, `FormData` and `Blob`.
 */
import createClient, { type Client, type FetchOptions, type FetchResponse } from "openapi-fetch";
import { MediaHostError } from "./errors.js";

/** The methods openapi-fetch knows; the generated `paths` name each (absent ones `?: never`). */
export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
/** openapi-fetch's own bound on `paths`. */
// biome-ignore lint/complexity/noBannedTypes: openapi-typescript's `paths` are object types; {} is their widest form
export type AnyPaths = {};

/** Paths that declare `method`. */
export type PathsWith<Paths, M extends HttpMethod> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: object } ? P : never;
}[keyof Paths];

/** The operation object of `method` on `path`. */
export type OperationOf<Paths, P extends keyof Paths, M extends HttpMethod> = Paths[P] extends {
  [K in M]: infer O extends Record<string | number, unknown>;
}
  ? O
  : never;

// biome-ignore lint/complexity/noBannedTypes: `{} extends Pick<T, K>` is the test for an optional key
type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
/** The init object of an operation (params, body, headers, signal...); optional when nothing in it is required. */
export type InitOf<Op> = RequiredKeysOf<FetchOptions<Op>> extends never ? FetchOptions<Op> | undefined : FetchOptions<Op>;
/** The init argument: optional when nothing in it is required (as openapi-fetch does). */
export type InitArg<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The success body of an operation. */
export type Data<Op extends Record<string | number, unknown>, Init> = Exclude<
  FetchResponse<Op, Init, `${string}/${string}`>["data"],
  undefined
>;

/** One HTTP method: resolves with the 200 body, rejects with MediaHostError. */
export type Call<Paths extends AnyPaths, M extends HttpMethod> = <
  P extends PathsWith<Paths, M>,
  I extends InitOf<OperationOf<Paths, P, M>>,
>(
  path: P,
  ...init: InitArg<I>
) => Promise<Data<OperationOf<Paths, P, M>, I>>;

/** The JSON body of an operation's 200. */
export type Reply<Op> = Op extends { responses: { 200: { content: { "application/json": infer B } } } } ? B : never;
type GetBody<Op> = Reply<Op>;
type Paging = { has_more: boolean; next_cursor: string | null };
/** Paths whose GET answers a paged list. */
export type PagedPath<Paths extends AnyPaths> = {
  [P in PathsWith<Paths, "get">]: GetBody<OperationOf<Paths, P, "get">> extends Paging ? P : never;
}[PathsWith<Paths, "get">];
export type PageOf<Paths extends AnyPaths, P extends PagedPath<Paths>> = GetBody<OperationOf<Paths, P, "get">>;
type ListKey<B> = Exclude<keyof B, keyof Paging>;
/** The item type of a paged path (`posts`, `users`, `blocks`, `notifications`). */
export type ItemOf<Paths extends AnyPaths, P extends PagedPath<Paths>> = {
  [K in ListKey<PageOf<Paths, P>>]: PageOf<Paths, P>[K] extends readonly (infer T)[] ? T : never;
}[ListKey<PageOf<Paths, P>>];
/** Init of a paged GET; `cursor` is the iterator's business. */
type PageInit<Paths extends AnyPaths, P extends PagedPath<Paths>> = InitOf<OperationOf<Paths, P, "get">>;

export interface ClientSettings {
  /** Base URL of the surface: `https://media.example.com/api` or `.../relay` (API_URL / RELAY_URL). */
  baseUrl: string;
  /** Headers sent on every call (the key header). */
  headers: Record<string, string>;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: typeof globalThis.fetch;
}

export interface TypedClient<Paths extends AnyPaths> {
  get: Call<Paths, "get">;
  post: Call<Paths, "post">;
  patch: Call<Paths, "patch">;
  delete: Call<Paths, "delete">;
  /**
   * Every page of a paged list, first to last, following `next_cursor` until `has_more`
   * is false. A page may hold fewer items than `limit` while more follow (interface.md).
   */
  pages<P extends PagedPath<Paths>>(path: P, ...init: InitArg<PageInit<Paths, P>>): AsyncGenerator<PageOf<Paths, P>, void, undefined>;
  /** Every item of a paged list, across pages, newest first. */
  paginate<P extends PagedPath<Paths>>(path: P, ...init: InitArg<PageInit<Paths, P>>): AsyncGenerator<ItemOf<Paths, P>, void, undefined>;
  /** The openapi-fetch client underneath: `{data, error, response}` results, nothing thrown. */
  raw: Client<Paths>;
}

type RawResult = { data?: unknown; error?: unknown; response: Response };
type RawRequest = (method: string, path: string, init?: object) => Promise<RawResult>;
type InitObject = { params?: { query?: Record<string, unknown>; path?: Record<string, unknown> } } & Record<string, unknown>;

export function createTypedClient<Paths extends AnyPaths>(settings: ClientSettings): TypedClient<Paths> {
  const raw = createClient<Paths>({
    baseUrl: settings.baseUrl,
    headers: settings.headers,
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  });
  // openapi-fetch's per-path typing is checked at our public signatures (Call); inside,
  // one untyped entry point serves every method.
  const request = raw.request as unknown as RawRequest;

  const send = async (method: string, path: string, init?: object): Promise<unknown> => {
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) throw MediaHostError.fromResponse(response, error);
    return data;
  };
  const call = <M extends HttpMethod>(method: M): Call<Paths, M> =>
    ((path: string, init?: object) => send(method, path, init)) as unknown as Call<Paths, M>;

  async function* pages(path: string, init?: InitObject): AsyncGenerator<Paging & Record<string, unknown>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const query = { ...init?.params?.query, ...(cursor ? { cursor } : {}) };
      const page = (await send("get", path, { ...init, params: { ...init?.params, query } })) as Paging & Record<string, unknown>;
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      // A cursor marks a position; the same one twice would loop forever.
      if (page.next_cursor === cursor) throw new Error(`${path}: the service returned the same cursor twice`);
      cursor = page.next_cursor;
    }
  }
  async function* paginate(path: string, init?: InitObject): AsyncGenerator<unknown, void, undefined> {
    for await (const page of pages(path, init)) {
      const key = Object.keys(page).find((k) => k !== "has_more" && k !== "next_cursor" && Array.isArray(page[k]));
      if (key) yield* page[key] as unknown[];
    }
  }

  return {
    get: call("get"),
    post: call("post"),
    patch: call("patch"),
    delete: call("delete"),
    pages: pages as unknown as TypedClient<Paths>["pages"],
    paginate: paginate as unknown as TypedClient<Paths>["paginate"],
    raw,
  };
}

/** `baseUrl` without a trailing slash (openapi-fetch joins `/path` onto it). */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, "");
}
