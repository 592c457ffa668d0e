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
import { type IncomingMessage, Server, ServerResponse } from "node:http";
import { parseEnv } from "@/lib/config/env";
import { CONTENT_LENGTH_CARRIER } from "@/lib/http/respond";
import { lingerOnUnreadBody } from "./linger";
import { stampRequest, syncRawHeaders } from "./stamp";

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

const STAMPING = Symbol.for("mediahost.stampRequests");
/** Set by our own server (lib/server/server.ts), which stamps every request itself. */
export const CUSTOM_SERVER = Symbol.for("mediahost.customServer");

/**
 * Under plain `next start` nothing stamped `x-client-ip` (lib/server/stamp.ts): route
 * handlers read whatever the client sent there, or its own X-Forwarded-For, which Next
 * fills only when the client sent none. Here every request of every Node HTTP server in the
 * process is stamped as our server does, and lingers on a body it did not read (linger.ts),
 * before Next's listener sees it. Installed from
 * instrumentation.ts, which Next runs before it serves the first request; under our own
 * server it does nothing.
 */
export function stampRequestsUnderNextStart(): void {
  const global = globalThis as { [CUSTOM_SERVER]?: boolean };
  const proto = Server.prototype as Server & { [STAMPING]?: boolean };
  if (global[CUSTOM_SERVER] || proto[STAMPING]) return;
  proto[STAMPING] = true;
  const trustProxy = parseEnv().trustProxy;
  const emit = proto.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      stampRequest(req, trustProxy);
      lingerOnUnreadBody(req, args[1] as ServerResponse);
      syncRawHeaders(req, trustProxy);
    }
    return emit.call(this, event, ...args);
  } as Server["emit"];
}
