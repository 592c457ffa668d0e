/** What one endpoint declares; the dispatcher, 404/405 logic and OpenAPI documents derive from the route table. */
import type { z } from "zod";
import type { PersonalPrincipal, TeamPrincipal } from "@/lib/types/principal";
import type { BucketName } from "@/lib/ratelimit/buckets";

import type { Surface } from "@/lib/types/surface";
import type { RouteRequest } from "@/lib/types/route-request";

export { KEY_HEADER, type KeyHeader, type Surface } from "@/lib/types/surface";
/** HEAD is served by every GET route; a route declares HEAD itself only when it has no GET (tus). */
export type Method = "GET" | "HEAD" | "POST" | "PATCH" | "PUT" | "DELETE";
export type KeyKind = "personal" | "team";

export type { RouteRequest } from "@/lib/types/route-request";

export type AuthMode = "key" | "optional" | "none";

export type PrincipalOfKind<K extends KeyKind> = K extends "team" ? TeamPrincipal : PersonalPrincipal;

/** The caller as the route's `auth` and `keys` make it: non-null where a key is required, only of declared kinds. */
export type PrincipalFor<A extends AuthMode, K extends KeyKind = "personal"> = A extends "key"
  ? PrincipalOfKind<K>
  : PrincipalOfKind<K> | null;

export interface HandlerContext<P, Q, B, A extends AuthMode = AuthMode, K extends KeyKind = KeyKind> {
  params: P;
  query: Q;
  body: B;
  /** Nullable only with `auth: "optional"` or `"none"`. */
  principal: PrincipalFor<A, K>;
  surface: Surface;
  /** Bodies are read through lib/files/request-body.ts (docs/http-core.md). */
  request: RouteRequest;
  requestId: string;
  ip: string;
}

type Parsed<S, N extends string> = S extends Record<N, infer T> ? (T extends z.ZodType ? z.output<T> : undefined) : undefined;

/**
 * The context of a handler written apart from its declaration (`handle<RouteId>` in
 * lib/routes/<area>.ts); the declaration in lib/routes/table/ checks that the two agree.
 */
export type RouteContext<
  S extends { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType } = Record<never, never>,
  K extends KeyKind = "personal",
  A extends AuthMode = "key",
> = HandlerContext<Parsed<S, "params">, Parsed<S, "query">, Parsed<S, "body">, A, K>;

export type CacheContext<
  S extends { params?: z.ZodType; query?: z.ZodType } = Record<never, never>,
  K extends KeyKind = "personal",
  A extends AuthMode = "key",
> = Omit<RouteContext<S, K, A>, "body" | "request" | "requestId">;

/** A 200 JSON body, or a whole Response for routes that say so (`response: { binary }`, `reply`, `raw`). */
export type ResponseSpec = z.ZodType | { binary: string; mediaTypes?: readonly string[] } | undefined;
export type ReplyOf<R> = R extends z.ZodType ? z.input<R> : Response;

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
  id: string;
  method: Method;
  path: string;
  surfaces: readonly Surface[];
  summary: string;
  /** "key" (default); "optional": a key sent is still checked; "none": key headers are ignored. */
  auth?: A;
  /** Accepted key kinds (default personal only); any other gets 401. */
  keys?: readonly K[];
  galleryAccess?: boolean;
  refusesLapsedTeam?: boolean;
  /** False for routes that never touch the database: they answer while migrations are pending (lib/db/readiness.ts). */
  database?: boolean;
  /** A function picks the bucket from the parsed body (theme vs profile update). */
  rateLimit?: BucketName | ((body: z.output<B>) => BucketName);
  params?: P;
  query?: Q;
  /** Multipart endpoints read the body themselves and declare `multipart`. */
  body?: B;
  multipart?: { fields: Record<string, string>; textFields?: Record<string, string> };
  response?: R;
  handler: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>, A, K>) => Promise<ReplyOf<R>>;
  /**
   * The handler's answer from in-process caches alone without an await, or undefined (the handler
   * then runs). Only for bodiless reads with a fixed bucket (lib/http/dispatch.ts).
   */
  fromCache?: (
    ctx: Omit<HandlerContext<z.output<P>, z.output<Q>, undefined, A, K>, "body" | "request" | "requestId">,
  ) => ReplyOf<R> | undefined;
  /** Headers on every reply of this route, errors and OPTIONS included (tus: docs/resumable-uploads.md). */
  replyHeaders?: Readonly<Record<string, string>>;
  optionsHeaders?: () => Readonly<Record<string, string>>;
  /** The raw body's media type (tus PATCH), for the OpenAPI document. */
  rawBody?: string;
  reply?: { status: number; description: string; headers: Readonly<Record<string, string>> };
  /** Request headers the route reads; the CORS preflight allows each of them (docs/cors.md). */
  headers?: Readonly<Record<string, HeaderDecl>>;
  hidden?: boolean;
}

/** Identity function that keeps the schema types flowing into the handler's context. */
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
