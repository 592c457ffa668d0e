/** GET /s/{code}: a short link's redirect (lib/web/short-link.ts, docs/short-links.md). */
import { shortLinkResponse } from "@/lib/web/short-link";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(request: Request, context: { params: Promise<{ code: string }> }): Promise<Response> {
  const { code } = await context.params;
  return shortLinkResponse(code, request.headers);
}
