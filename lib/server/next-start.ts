/**
 * What the custom server does per response that plain `next start` must do too
 * (docs/deploy.md): Next drops `Content-Length` from route-handler responses, so our
 * handlers carry it in CONTENT_LENGTH_CARRIER, which the custom server moves back before the
 * head goes out (lib/server/server.ts, restoreContentLength). Without our server nothing
 * did, and `/cdn` replies went out chunked with the internal header showing. Installed once
 * per process from instrumentation.ts, on Node's ServerResponse itself: Next writes every
 * head through writeHead (its implicit header too). Under the custom server it finds the
 * carrier already moved.
 */
import { ServerResponse } from "node:http";
import { CONTENT_LENGTH_CARRIER } from "../http/respond";

const INSTALLED = Symbol.for("mediahost.contentLengthCarrier");

export function restoreCarriedContentLength(): void {
  const proto = ServerResponse.prototype as ServerResponse & { [INSTALLED]?: boolean };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const writeHead = proto.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  proto.writeHead = function (this: ServerResponse, ...args: unknown[]): ServerResponse {
    const carried = this.getHeader(CONTENT_LENGTH_CARRIER);
    if (carried !== undefined) {
      this.removeHeader(CONTENT_LENGTH_CARRIER);
      // Not when the body is encoded or framed otherwise: the length would be wrong.
      if (!this.hasHeader("content-length") && !this.hasHeader("content-encoding") && !this.hasHeader("transfer-encoding")) {
        this.setHeader("content-length", String(carried));
      }
    }
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}
