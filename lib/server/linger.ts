/**
 * Lingering close (RFC 9112, section 9.6): a reply sent before the request's body was read
 * (a 401 before an upload, a 413 on its Content-Length, a 404 with a body) must not be lost.
 *
 * When such a reply closes the connection (the client sent `Connection: close`, or we did),
 * Node ends the socket once the reply is written and destroys it at once. The body the
 * client is still sending then meets a closed socket, the kernel answers it with a reset,
 * and the reset can reach the client before it has read our reply: the client reports a
 * broken pipe ("EPIPE", "connection reset") instead of the error we wrote. So the socket's
 * write side is ended (FIN) and what the client still sends is read and thrown away until
 * it closes its side, or LINGER_MS pass. On a kept-alive connection Node already reads the
 * rest of the body into nothing; a body that does not end within LINGER_MS there is cut.
 *
 * Installed for every request with a body (server.ts, and next-start.ts under plain
 * `next start`); a request without Content-Length or Transfer-Encoding has no body
 * (RFC 9112, section 6.3) and costs nothing here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How long a refused body is read and discarded before the socket is cut. */
export const LINGER_MS = 5000;

const LINGERING = Symbol.for("mediahost.lingering");
const CLOSING = Symbol.for("mediahost.lingeringClose");

type LingeringSocket = Socket & { destroySoon?: () => void; [LINGERING]?: boolean; [CLOSING]?: boolean };

/** Whether the request announced a body (it may be read in full later). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

/** Whether the client may still be sending a body nobody read. */
function bodyPending(req: IncomingMessage): boolean {
  return !req.complete && !req.readableEnded && hasBody(req);
}

/** Makes a reply to `req` linger on a body it did not read (see above). */
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

/** The request whose reply is being written on each socket (for destroySoon). */
const current = new WeakMap<Socket, IncomingMessage>();

function bodyPendingOn(socket: Socket): boolean {
  const req = current.get(socket);
  return req !== undefined && bodyPending(req);
}

/** Whether lingeringClose has taken the socket: its last answer is written. */
export function isLingering(socket: Socket): boolean {
  return (socket as LingeringSocket)[CLOSING] === true;
}

/**
 * Ends our side of the connection and reads (and drops) what the client still sends until
 * it closes its side or LINGER_MS pass. Also for a reply written straight to the socket
 * (client-error.ts); calling it again on the same socket does nothing.
 */
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
