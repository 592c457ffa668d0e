/**
 * GET /admin/preview/{code}/{index}[?thumbnail=1]: a post's file (or its still) for the
 * console's queues, also while the post is under moderation, which the CDN refuses
 * (docs/admin.md). Admins only; anyone else gets the same 404 as for every /admin URL.
 * Never cached by a shared cache, and sandboxed so an uploaded SVG or HTML runs nothing.
 */
import { Readable } from "node:stream";
import { previewObject } from "@/lib/admin/posts";
import { storage } from "@/lib/storage";
import { adminOrNull } from "@/lib/web/admin/guard";

export const dynamic = "force-dynamic";

const notFound = () =>
  new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });

export async function GET(request: Request, { params }: { params: Promise<{ code: string; index: string }> }): Promise<Response> {
  if (!(await adminOrNull())) return notFound();
  const { code, index } = await params;
  if (!/^[A-Za-z0-9]{1,64}$/.test(code) || !/^\d{1,4}$/.test(index)) return notFound();
  const thumbnail = new URL(request.url).searchParams.get("thumbnail") === "1";
  const object = await previewObject(code, Number(index), thumbnail);
  const stream = object && (await storage().open(object.key));
  if (!object || !stream) return notFound();
  return new Response(Readable.toWeb(stream.body) as ReadableStream<Uint8Array>, {
    headers: {
      "content-type": object.mimeType,
      "content-length": String(stream.size),
      "cache-control": "private, no-store",
      "content-security-policy": "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'",
      "x-content-type-options": "nosniff",
    },
  });
}
