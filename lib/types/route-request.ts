/**
 * What a route handler may read of its request. The custom server's fast lane hands the
 * dispatcher a Request look-alike without the Web body readers (`json()`, `formData()`...:
 * lib/server/node-request.ts), so handlers see only these parts and read bodies through
 * lib/files/request-body.ts (`requestBody`, `readRequestBody`), which both lanes serve.
 */
export type RouteRequest = Pick<Request, "headers" | "method" | "url" | "signal">;
