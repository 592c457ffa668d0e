/** A request body as a Node stream, kept below the HTTP layer so upload receivers need not import it. */
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import type { RouteRequest } from "@/lib/types/route-request";

const requestBodies = new WeakMap<RouteRequest, Readable>();

/** The fast lane builds a Request without a Web body and attaches the socket's stream. */
export function attachRequestBody(request: Request, body: Readable): Request {
  requestBodies.set(request, body);
  return request;
}

export function requestBody(request: RouteRequest): Readable | null {
  const native = requestBodies.get(request);
  if (native) return native;
  // Handlers see a RouteRequest (lib/types/route-request.ts); a Web Request below it has a body.
  const web = (request as Partial<Pick<Request, "body">>).body;
  if (!web) return null;
  return Readable.fromWeb(web as unknown as NodeWebReadableStream<Uint8Array>);
}

/** The socket's stream is only paused: destroying it would kill the connection before the 413 is written. */
export function abandonRequestBody(request: RouteRequest, stream: Readable): void {
  if (requestBodies.get(request) === stream) stream.pause();
  else stream.destroy();
}

/** Gives up without destroying the socket once over `limit`. */
export function readRequestBody(request: RouteRequest, limit: number, onTooLarge: () => Error): Promise<Buffer> {
  const stream = requestBody(request);
  if (!stream) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
    };
    const onData = (chunk: Buffer | Uint8Array) => {
      size += chunk.byteLength;
      if (size > limit) {
        cleanup();
        abandonRequestBody(request, stream);
        reject(onTooLarge());
        return;
      }
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
  });
}
