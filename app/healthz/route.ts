/**
 * Liveness and readiness for load balancers and process supervisors: 200 when the
 * database answers, 503 otherwise. Outside /api so it never counts against API limits.
 */
import { db } from "@/lib/db/client";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
    return Response.json({ status: "ok" }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    console.error("healthz: database check failed", error);
    return Response.json({ status: "unavailable" }, { status: 503, headers: { "cache-control": "no-store" } });
  }
}
