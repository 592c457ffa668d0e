/**
 * Lingering close (RFC 9112, section 9.6): a reply sent before the body was read must not be
 * lost to the reset the kernel sends when the client's body meets a closed socket. Our side is
 * ended (FIN) and what the client sends is drained until it closes or LINGER_MS pass.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export const LINGER_MS = 5000;

const LINGERING = Symbol.for("mediahost.lingering");
const CLOSING = Symbol.for("mediahost.lingeringClose");

type LingeringSocket = Socket & { destroySoon?: () => void; [LINGERING]?: boolean; [CLOSING]?: boolean };

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

function bodyPending(req: IncomingMessage): boolean {
  return !req.complete && !req.readableEnded && hasBody(req);
}

export function lingerOnUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (!hasBody(req)) return;
  const socket = req.socket as LingeringSocket;
  if (!socket[LINGERING]) {
    socket[LINGERING] = true;
    // Node calls destroySoon() after the last reply of a connection: end our side, keep reading.
    const destroySoon = socket.destroySoon?.bind(socket);
    socket.destroySoon = () => {
      if (bodyPendingOn(socket) || !destroySoon) lingeringClose(socket);
      else destroySoon();
    };
  }
  res.once("finish", () => {
    // A kept-alive connection whose body does not end in time is cut.
    if (!bodyPending(req)) return;
    const cut = setTimeout(() => socket.destroy(), LINGER_MS);
    cut.unref();
    req.once("end", () => clearTimeout(cut));
    req.once("close", () => clearTimeout(cut));
    req.resume();
  });
  current.set(socket, req);
}

const current = new WeakMap<Socket, IncomingMessage>();

function bodyPendingOn(socket: Socket): boolean {
  const req = current.get(socket);
  return req !== undefined && bodyPending(req);
}

export function isLingering(socket: Socket): boolean {
  return (socket as LingeringSocket)[CLOSING] === true;
}

/** Ends our side and drains the client until it closes or LINGER_MS pass; a second call does nothing. */
export function lingeringClose(socket: Socket, reply?: string): void {
  if (socket.destroyed || isLingering(socket)) return;
  (socket as LingeringSocket)[CLOSING] = true;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  socket.once("close", () => clearTimeout(cut));
  // The client's FIN after ours: both sides ended, the socket closes itself (autoDestroy).
  socket.once("end", () => socket.destroy());
  socket.on("error", () => socket.destroy());
  if (socket.writable) {
    if (reply === undefined) socket.end();
    else socket.end(reply);
  }
  socket.resume();
}
