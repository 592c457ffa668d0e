/**
 * Requests Node's HTTP parser refuses before any handler sees them: a head over the header
 * size limit, Content-Length together with Transfer-Encoding, two different
 * Content-Lengths, a bad chunk size, bytes a header may not hold, a malformed request line.
 * Node's default answer is a bare `400 Bad Request` with no body and no `request-id`;
 * uploader tools then show "invalid response". We answer the documented error object
 * instead (docs/http-core.md, "Before the pipeline": a request that cannot be parsed is
 * `invalid_request` with the parser's status), then close the connection: after a framing
 * error nothing more on it can be trusted. The close lingers (linger.ts) so that the rest of
 * what the client sends does not reset the connection before it has read the answer.
 */
import type { Socket } from "node:net";
import { errorBody } from "@/lib/errors";
import { newRequestId } from "@/lib/http/request-id";
import { isLingering, lingeringClose } from "./linger";

/** The parser's status for its error codes; anything else it refuses is a plain 400. */
function statusFor(code: string | undefined): { status: number; reason: string; message: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, reason: "Request Header Fields Too Large", message: "The request headers are too large." };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, reason: "Payload Too Large", message: "The chunk extensions are too large." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, reason: "Request Timeout", message: "The request was not received in time." };
    default:
      return { status: 400, reason: "Bad Request", message: "The request could not be parsed as HTTP/1.1." };
  }
}

/** The `clientError` listener of the HTTP server. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Node reports the same broken request again as the rest of its body arrives: the
  // answer is on its way and the socket lingers (below), so nothing more is done.
  if (isLingering(socket)) return;
  // A client that went away (or a socket already answered) gets nothing more.
  if (error.code === "ECONNRESET" || !socket.writable || socket.destroyed) {
    socket.destroy();
    return;
  }
  const { status, reason, message } = statusFor(error.code);
  const body = JSON.stringify(errorBody("invalid_request", message));
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
    `request-id: ${newRequestId()}`,
    "x-content-type-options: nosniff",
    "cache-control: no-store",
    "connection: close",
  ].join("\r\n");
  // What the client still sends after the broken part is read and dropped for a while, so
  // that a reset does not overtake this answer (linger.ts).
  lingeringClose(socket, `${head}\r\n\r\n${body}`);
}
