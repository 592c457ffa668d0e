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

// Request bodies live below the HTTP layer, where uploads read them (lib/files/request-body.ts).
export { abandonRequestBody, attachRequestBody, readRequestBody, requestBody } from "@/lib/files/request-body";

export type NativeBody = { kind: "text"; text: string } | { kind: "bytes"; bytes: Uint8Array } | { kind: "stream"; stream: Readable };

const responseBodies = new WeakMap<Response, NativeBody>();

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
