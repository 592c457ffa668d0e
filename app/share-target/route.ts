/** POST /share-target: the installed app's Web Share Target (lib/routes/share-target.ts, docs/share-target.md). */
import { handleShareTarget } from "@/lib/routes/share-target";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return handleShareTarget(request);
}
