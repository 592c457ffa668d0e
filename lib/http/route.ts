/**
 * What one endpoint declares. The route table (lib/routes) is a list of these; the
 * dispatcher, the 404/405 logic and the OpenAPI documents are all derived from it.
 */
import type { z } from "zod";
import type { PersonalPrincipal, TeamPrincipal } from "@/lib/types/principal";
import type { BucketName } from "@/lib/ratelimit/buckets";

import type { Surface } from "@/lib/types/surface";
import type { RouteRequest } from "@/lib/types/route-request";

export { KEY_HEADER, type KeyHeader, type Surface } from "@/lib/types/surface";
/** HEAD is served by every GET route; a route declares HEAD itself only when it has no GET (tus). */
export type Method = "GET" | "HEAD" | "POST" | "PATCH" | "PUT" | "DELETE";
/** Key kinds an endpoint accepts: personal (app key on the API, session key on Relay) or team. */
export type KeyKind = "personal" | "team";

export type { RouteRequest } from "@/lib/types/route-request";

/** "key" (default): a key is required; "optional": checked when sent; "none": ignored. */
export type AuthMode = "key" | "optional" | "none";

/** The principal of each key kind: the dispatcher refuses every kind a route does not declare. */
export type PrincipalOfKind<K extends KeyKind> = K extends "team" ? TeamPrincipal : PersonalPrincipal;

/**
 * The caller as the route's `auth` and `keys` make it: never null where a key is required,
 * and only of the declared key kinds (personal only unless the route says otherwise).
 */
export type PrincipalFor<A extends AuthMode, K extends KeyKind = "personal"> = A extends "key"
  ? PrincipalOfKind<K>
  : PrincipalOfKind<K> | null;

export interface HandlerContext<P, Q, B, A extends AuthMode = AuthMode, K extends KeyKind = KeyKind> {
  params: P;
  query: Q;
  body: B;
  /**
   * Of the route's declared key kinds (`keys`, personal by default); nullable only with
   * `auth: "optional"` or `"none"`.
   */
  principal: PrincipalFor<A, K>;
  surface: Surface;
  /** The narrow request (docs/http-core.md): bodies are read through lib/files/request-body.ts. */
  request: RouteRequest;
  requestId: string;
  ip: string;
}

/** What a declared schema parses to; undefined for a part the route does not declare. */
type Parsed<S, N extends string> = S extends Record<N, infer T> ? (T extends z.ZodType ? z.output<T> : undefined) : undefined;

/**
 * The context of a handler written apart from its declaration (`handle<RouteId>` in
 * lib/routes/<area>.ts): `S` names the schemas the route declares (`{ params: typeof
 * codeParam }`), `K` its key kinds and `A` its auth, as in RouteDef. The declaration in
 * lib/routes/table/ checks at compile time that the two agree.
 */
export type RouteContext<
  S extends { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType } = Record<never, never>,
  K extends KeyKind = "personal",
  A extends AuthMode = "key",
> = HandlerContext<Parsed<S, "params">, Parsed<S, "query">, Parsed<S, "body">, A, K>;

/** The context of a `fromCache` written apart from its declaration (see RouteContext). */
export type CacheContext<
  S extends { params?: z.ZodType; query?: z.ZodType } = Record<never, never>,
  K extends KeyKind = "personal",
  A extends AuthMode = "key",
> = Omit<RouteContext<S, K, A>, "body" | "request" | "requestId">;

/**
 * How a route answers: the JSON body of a 200 that its `response` schema describes, or a
 * whole Response for routes that say so (`response: { binary }`, `reply`, or `raw: true`).
 */
export type ResponseSpec = z.ZodType | { binary: string; mediaTypes?: readonly string[] } | undefined;
export type ReplyOf<R> = R extends z.ZodType ? z.input<R> : Response;

/** One request header a route reads: for the OpenAPI document (its schema: a string unless given). */
export interface HeaderDecl {
  description: string;
  required?: boolean;
  schema?: z.ZodType;
}

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends ResponseSpec = ResponseSpec,
  A extends AuthMode = AuthMode,
  K extends KeyKind = KeyKind,
> {
  /** OpenAPI operationId; unique. */
  id: string;
  method: Method;
  /** Path below the surface's base, with `{param}` segments: `/posts/{code}`. */
  path: string;
  surfaces: readonly Surface[];
  summary: string;
  /**
   * "key" (default): a key is required. "optional": no key needed (GET /gifs), but one
   * that is sent is checked like anywhere else. "none": key headers are ignored (the
   * OpenAPI documents, sign-in).
   */
  auth?: A;
  /**
   * Accepted key kinds (default personal only). Any other kind gets 401 from the
   * dispatcher, and the handler's principal is typed accordingly.
   */
  keys?: readonly K[];
  /** App keys need the gallery-access permission (403 forbidden without it). */
  galleryAccess?: boolean;
  /** A lapsed team subscription is refused (403 forbidden) here. */
  refusesLapsedTeam?: boolean;
  /**
   * False for the few routes that never touch the database (the OpenAPI documents): they
   * answer even while migrations are pending (lib/db/readiness.ts); every other route gets
   * 503 `unavailable` naming the command then.
   */
  database?: boolean;
  /** Rate-limit bucket; a function picks it from the parsed body (theme vs profile update). */
  rateLimit?: BucketName | ((body: z.output<B>) => BucketName);
  params?: P;
  query?: Q;
  /** JSON body schema. Multipart endpoints read the body themselves and declare `multipart`. */
  body?: B;
  /** `fields`: file parts; `textFields`: text parts (POST /upload's `url`). Name → description. */
  multipart?: { fields: Record<string, string>; textFields?: Record<string, string> };
  /** Schema of the 200 JSON body (or a description of a binary reply). */
  response?: R;
  /** The handler returns the `z.input` of `response`; a route without one returns a Response. */
  handler: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>, A, K>) => Promise<ReplyOf<R>>;
  /**
   * The same answer as `handler`, from in-process caches alone and without an await, or
   * undefined when that is not possible (the handler then runs). Only for bodiless reads
   * with a fixed rate-limit bucket; see lib/http/dispatch.ts (`answerFromCache`).
   */
  fromCache?: (
    ctx: Omit<HandlerContext<z.output<P>, z.output<Q>, undefined, A, K>, "body" | "request" | "requestId">,
  ) => ReplyOf<R> | undefined;
  /**
   * Headers on every reply of this route, errors included, and on the OPTIONS reply of its
   * path (tus's `Tus-Resumable`, `Tus-Version`, ...: docs/resumable-uploads.md).
   */
  replyHeaders?: Readonly<Record<string, string>>;
  /** Extra headers of the OPTIONS reply of this route's path. */
  optionsHeaders?: () => Readonly<Record<string, string>>;
  /**
   * The request body is not JSON or multipart but raw bytes of this media type (tus PATCH);
   * the handler streams it. For the OpenAPI document.
   */
  rawBody?: string;
  /** A success that is not a 200 JSON body (tus: 201/204 with headers), for the OpenAPI document. */
  reply?: { status: number; description: string; headers: Readonly<Record<string, string>> };
  /**
   * Request headers the route reads (lower-case name → declaration), emitted as OpenAPI
   * header parameters. The CORS preflight allows each of them (`allowedRequestHeaders`, docs/cors.md).
   */
  headers?: Readonly<Record<string, HeaderDecl>>;
  /** Left out of the OpenAPI document. */
  hidden?: boolean;
}

/**
 * Identity function that keeps the schema types flowing into the handler's context: params,
 * query and body from their schemas, the principal from `auth` (absent means "key") and
 * `keys` (absent means personal keys only), the return type from `response`.
 */
export function defineRoute<
  P extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
  R extends ResponseSpec = undefined,
  A extends AuthMode = "key",
  K extends KeyKind = "personal",
>(def: RouteDef<P, Q, B, R, A, K>): RouteDef {
  // The table stores routes with their types erased (RouteDef's defaults): the dispatcher
  // checks at run time what this signature checked at compile time.
  return def as unknown as RouteDef;
}
