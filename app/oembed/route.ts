/** GET /oembed?url=<share URL>[&maxwidth=&maxheight=]: see lib/web/oembed.ts. */
import { oembedFor } from "@/lib/web/oembed";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(request: Request): Promise<Response> {
  const result = await oembedFor(new URL(request.url).searchParams);
  const body = result.status === 200 ? result.body : { error: result.message };
  return Response.json(body, {
    status: result.status,
    headers: {
      // Consumers cache embeds; a post made private stops embedding within the hour.
      "cache-control": result.status === 200 ? "public, max-age=300" : "no-store",
      "access-control-allow-origin": "*",
    },
  });
}
