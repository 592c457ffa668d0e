/**
 * What one endpoint declares. The route table (lib/routes) is a list of these; the
 * dispatcher, the 404/405 logic and the OpenAPI documents are all derived from it.
 */
import type { z } from "zod";
import type { Principal } from "../types/principal";
import type { BucketName } from "../ratelimit/buckets";

import type { Surface } from "../types/surface";

export { KEY_HEADER, type KeyHeader, type Surface } from "../types/surface";
/** HEAD is served by every GET route; a route declares HEAD itself only when it has no GET (tus). */
export type Method = "GET" | "HEAD" | "POST" | "PATCH" | "PUT" | "DELETE";
/** Key kinds an endpoint accepts: personal (app key on the API, session key on Relay) or team. */
export type KeyKind = "personal" | "team";

export interface HandlerContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** null only on endpoints declared with `auth: "optional"` or `"none"`. */
  principal: Principal | null;
  surface: Surface;
  request: Request;
  requestId: string;
  ip: string;
}

/** A handler returns the JSON body of a 200, or a whole Response (files, attachments). */
export type HandlerResult = object | Response;

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
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
  auth?: "key" | "optional" | "none";
  /** Accepted key kinds (default personal only). Any other kind gets 401. */
  keys?: readonly KeyKind[];
  /** App keys need the gallery-access permission (403 forbidden without it). */
  galleryAccess?: boolean;
  /** A lapsed team subscription is refused (403 forbidden) here. */
  refusesLapsedTeam?: boolean;
  /** Rate-limit bucket; a function picks it from the parsed body (theme vs profile update). */
  rateLimit?: BucketName | ((body: z.output<B>) => BucketName);
  params?: P;
  query?: Q;
  /** JSON body schema. Multipart endpoints read the body themselves and declare `multipart`. */
  body?: B;
  multipart?: { fields: Record<string, string> };
  /** Schema of the 200 JSON body (or a description of a binary reply). */
  response?: z.ZodType | { binary: string };
  handler: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>>) => Promise<HandlerResult>;
  /**
   * The same answer as `handler`, from in-process caches alone and without an await, or
   * undefined when that is not possible (the handler then runs). Only for bodiless reads
   * with a fixed rate-limit bucket; see lib/http/dispatch.ts (`answerFromCache`).
   */
  fromCache?: (ctx: Omit<HandlerContext<z.output<P>, z.output<Q>, undefined>, "body" | "request" | "requestId">) => object | undefined;
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
  /** Request headers the route reads, for the OpenAPI document: name → description. */
  requestHeaders?: Readonly<Record<string, string>>;
  /** Left out of the OpenAPI document. */
  hidden?: boolean;
}

/** Identity function that keeps the schema types flowing into the handler's context. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> {
  return def;
}
