/**
 * A client that sends a request with a large body and reads nothing until its whole write
 * was taken (or failed): a server that closes before the body is through always fails the
 * write, so the lingering close (lib/server/linger.ts) is checked without timing.
 */
import { connect } from "node:net";

/** Larger than loopback's socket buffers on both sides, so the server must read it. */
export const UNREAD_BODY = Buffer.alloc(24 * 1024 * 1024, 0x61);

export interface UnreadOutcome {
  /** The write's error code (EPIPE, ECONNRESET) when the server cut the body off; null when all of it was taken. */
  writeError: string | null;
  /** The reply's status line, "" when none arrived. */
  statusLine: string;
}

/** A request head for `UNREAD_BODY` that asks the server to close after its reply. */
export function closingRequest(method: string, path: string, extra = "", length: number | "chunked" = UNREAD_BODY.length): string {
  return (
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/octet-stream\r\n` +
    `${length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`}\r\n${extra}\r\n`
  );
}

/** Sends `head` then `body` to `origin` without reading; reads the reply once the write was taken (or failed). */
export function sendUnread(origin: string, head: string, body: Buffer = UNREAD_BODY): Promise<UnreadOutcome> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let writeError: string | null = null;
    socket.pause();
    socket.on("connect", () => {
      socket.write(head);
      socket.write(body, (error) => {
        if (error) writeError = (error as NodeJS.ErrnoException).code ?? error.message;
        socket.resume();
      });
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      writeError ??= error.code ?? error.message;
      socket.resume();
    });
    socket.on("close", () => resolve({ writeError, statusLine: Buffer.concat(chunks).toString("latin1").split("\r\n")[0] }));
  });
}
