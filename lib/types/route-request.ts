/**
 * What a route handler may read of its request: the fast lane's Request look-alike has no Web
 * body readers, so bodies are read through lib/files/request-body.ts, which both lanes serve.
 */
export type RouteRequest = Pick<Request, "headers" | "method" | "url" | "signal">;
