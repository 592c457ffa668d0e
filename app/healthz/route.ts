/**
 * Liveness and readiness for load balancers and process supervisors: 200 when the
 * database answers, 503 otherwise. Outside /api so it never counts against API limits.
 */
import { db } from "@/lib/db/client";
import { ocrConfig } from "@/lib/media/tesseract";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
    return Response.json({ status: "ok", ...textReadingDetail() }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    console.error("healthz: database check failed", error);
    return Response.json({ status: "unavailable" }, { status: 503, headers: { "cache-control": "no-store" } });
  }
}

function textReadingDetail(): { detail?: { text_reading: string } } {
  const config = ocrConfig();
  if (!config.enabled) return { detail: { text_reading: "off (turned off by the operator)" } };
  if (!config.path) return { detail: { text_reading: "off (tesseract not installed)" } };
  return {};
}
