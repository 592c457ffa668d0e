/**
 * Lets a Web `Request`/`Response` carry Node streams and plain text alongside their Web
 * bodies, so the custom server's fast lane (lib/server/fast-lane.ts) can move bytes
 * between sockets and files without converting every chunk into a Web stream and back.
 *
 * Handlers never see the difference: they read bodies through `requestBody()` and build
 * responses with `json()` / serveObject(), which record the native form here. Inside
 * Next.js (dev server, tests through route handlers) nothing is attached and the Web
 * bodies are used as usual.
 */
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";

export type NativeBody =
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: Uint8Array }
  | { kind: "stream"; stream: Readable };

const requestBodies = new WeakMap<Request, Readable>();
const responseBodies = new WeakMap<Response, NativeBody>();

/** The fast lane builds a Request without a Web body and attaches the socket's stream. */
export function attachRequestBody(request: Request, body: Readable): Request {
  requestBodies.set(request, body);
  return request;
}

/** The request body as a Node stream, or null when the request has none. */
export function requestBody(request: Request): Readable | null {
  const native = requestBodies.get(request);
  if (native) return native;
  if (!request.body) return null;
  return Readable.fromWeb(request.body as unknown as NodeWebReadableStream<Uint8Array>);
}

export function attachResponseBody<R extends Response>(response: R, body: NativeBody): R {
  responseBodies.set(response, body);
  return response;
}

export function nativeResponseBody(response: Response): NativeBody | undefined {
  return responseBodies.get(response);
}

/** When a response is rebuilt (extra headers), the new one keeps the native body. */
export function carryNativeBody(from: Response, to: Response): Response {
  const body = responseBodies.get(from);
  if (body) responseBodies.set(to, body);
  return to;
}

/**
 * A Web stream over a Node stream that touches the Node stream only when first read:
 * the fast lane pipes the Node stream itself and never reads this one, and the two must
 * not compete for the same bytes.
 */
export function lazyWebStream(source: Readable): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= (Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        if (reader) return reader.cancel(reason);
        source.destroy();
      },
    },
    // highWaterMark 0: nothing is pulled until somebody reads.
    { highWaterMark: 0 },
  );
}

/**
 * Stops reading a request body we no longer want. A Web body is cancelled; the socket's
 * own stream is only paused, because destroying it would kill the connection before the
 * error reply (413 and the like) is written. The fast lane closes such a connection
 * once that reply is out.
 */
export function abandonRequestBody(request: Request, stream: Readable): void {
  if (requestBodies.get(request) === stream) stream.pause();
  else stream.destroy();
}

/** Reads a whole (small) body, giving up without destroying the socket once over `limit`. */
export function readRequestBody(request: Request, limit: number, onTooLarge: () => Error): Promise<Buffer> {
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
