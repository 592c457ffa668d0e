/**
 * What the custom server does per response that plain `next start` must do too (docs/deploy.md):
 * move CONTENT_LENGTH_CARRIER back to Content-Length. Installed from instrumentation.ts on
 * Node's ServerResponse itself, since Next writes every head through writeHead.
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
 * Under plain `next start` route handlers would read a client-sent `x-client-ip`: every request
 * of every Node server in the process is stamped (stamp.ts) and lingers (linger.ts) before Next
 * sees it. Does nothing under our own server.
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
