import { z } from "zod";
import { convertUpload } from "@/lib/convert/convert";
import { contentDisposition } from "@/lib/convert/filename";
import { CONVERT_TARGET_HEADER, parseConvertTarget } from "@/lib/convert/target";
import { listGifs } from "@/lib/gifs/search";
import { searchKey, searchTerms } from "@/lib/gifs/terms";
import { decodeCursor, pageReply } from "@/lib/http/cursor";
import { attachResponseBody } from "@/lib/http/node-bridge";
import { pagingQuery } from "@/lib/http/parse";
import type { KeyKind, RouteContext } from "@/lib/http/route";
import { CONVERT_TARGETS } from "@/lib/media";
import { likedAmong } from "@/lib/posts/read";
import { deleteFile } from "@/lib/posts/remove";
import { postView } from "@/lib/presenters/posts";
import { receiveSingleFile, receiveSingleFileInMemory } from "@/lib/uploads/multipart";
import { codeParam } from "./params";
import { viewerOf } from "./posts";

export const fileParam = codeParam.extend({
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\\u0000]+\.[A-Za-z0-9]{1,8}$/, "name must be a file name with its extension."),
});

/** The `convert-target` header as the OpenAPI documents show it; parseConvertTarget reads it. */
export const convertTargetHeader = z.enum(CONVERT_TARGETS);

// At most 6 words of `search` are used, and only `limit` and `cursor` can be invalid
// (docs/gifs.md, "Search semantics"). So a long search is cut, never refused: any sane query
// has its first 6 words in its first 1,000 characters.
export const gifsQuery = pagingQuery.extend({
  search: z
    .string()
    .transform((s) => s.slice(0, 1000))
    .optional(),
});

export async function handleDeleteFile({ principal, surface, params }: RouteContext<{ params: typeof fileParam }, KeyKind>) {
  await deleteFile(params.code, params.name, viewerOf(principal, surface));
  return { name: params.name, deleted: true as const };
}

/** POST /convert: the converted file as an attachment, streamed from disk or sent from memory. */
export async function handleConvert({ principal, request }: RouteContext<Record<never, never>, KeyKind>): Promise<Response> {
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

export async function handleListGifs({ principal, surface, query }: RouteContext<{ query: typeof gifsQuery }, "personal", "optional">) {
  const terms = searchTerms(query.search);
  // Cursors are bound to the normalised search: "Cat" and "cat" page the same listing.
  const filters = { search: searchKey(terms) };
  const after = query.cursor ? decodeCursor("listGifs", query.cursor, filters) : undefined;
  const page = await listGifs({ terms, limit: query.limit, after });
  const { userId } = viewerOf(principal, surface);
  const liked = await likedAmong(
    userId,
    page.items.map((p) => p.id),
  );
  return pageReply("posts", "listGifs", filters, page, (p) =>
    postView(p, { owner: !!userId && p.userId === userId, liked: liked.has(p.id), surface }),
  );
}
