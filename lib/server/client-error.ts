/**
 * Requests Node's HTTP parser refuses: Node's bare 400 has no body or `request-id`, so we answer
 * the error object (docs/http-core.md, "Before the pipeline") and close, lingering so the
 * client's remaining bytes do not reset the connection before it reads the answer.
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
