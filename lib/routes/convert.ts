/**
 * POST /convert: the HTTP side only. The dispatcher has already authenticated the key,
 * refused lapsed team keys (403 forbidden) and counted the 10/min limit; the conversion
 * itself is lib/convert. The reply is the converted file as an attachment, streamed from
 * disk (or, for a small image converted in memory, sent from memory); errors are thrown as
 * DomainError and rendered as JSON by the dispatcher.
 */
import type { RouteRequest } from "../types/route-request";
import type { Principal } from "../types/principal";
import { convertUpload } from "../convert/convert";
import { contentDisposition } from "../convert/filename";
import { CONVERT_TARGET_HEADER, parseConvertTarget } from "../convert/target";
import { attachResponseBody } from "../http/node-bridge";
import { receiveSingleFile, receiveSingleFileInMemory } from "../uploads/multipart";

export async function handleConvert(principal: Principal, request: RouteRequest): Promise<Response> {
  // Checked before the body is read: a bad header costs the client no upload.
  const target = parseConvertTarget(request.headers.get(CONVERT_TARGET_HEADER));
  const file = await convertUpload(
    principal,
    {
      contentLength: request.headers.get("content-length"),
      signal: request.signal,
      receiveFile: (options) => receiveSingleFile(request, options),
      receiveInMemory: (options) => receiveSingleFileInMemory(request, options),
    },
    target,
  );
  const response = new Response(file.body, {
    status: 200,
    headers: {
      "content-type": file.mime,
      "content-disposition": contentDisposition(file.filename),
      "content-length": String(file.size),
      "x-content-type-options": "nosniff",
      // no-transform: a compressing proxy (or Next's own compression) must not re-encode the
      // bytes and drop the Content-Length; no-store: the reply is one user's private file.
      "cache-control": "no-store, no-transform",
    },
  });
  // Converted in memory: the fast lane writes the bytes to the socket as they are.
  return file.body instanceof Uint8Array ? attachResponseBody(response, { kind: "bytes", bytes: file.body }) : response;
}
