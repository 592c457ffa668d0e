/**
 * Lets a Web `Request`/`Response` carry Node streams and text beside their Web bodies, so the
 * fast lane moves bytes without a Web-stream copy; inside Next nothing is attached.
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

export function carryNativeBody(from: Response, to: Response): Response {
  const body = responseBodies.get(from);
  if (body) responseBodies.set(to, body);
  return to;
}

/** A Web stream touching the Node stream only when read: the fast lane pipes the Node stream itself, and the two must not compete. */
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
