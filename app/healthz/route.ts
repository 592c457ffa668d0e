/**
 * Liveness and readiness for load balancers and process supervisors (docs/deploy.md,
 * "Readiness"): 200 `{status: "ok"}` when the database answers, its schema is migrated and
 * the storage folders are writable; 503 `{status: "unavailable", reason}` otherwise, the
 * reason naming what to do. Features that are off without stopping the service (text
 * reading: docs/ocr.md) are named in `detail`. Outside /api so it never counts against API
 * limits.
 */
import { db } from "@/lib/db/client";
import { MIGRATE_COMMAND, schemaState, storageProblem } from "@/lib/db/readiness";
import { ocrConfig } from "@/lib/media/tesseract";

export const dynamic = "force-dynamic";

const NO_STORE = { "cache-control": "no-store" };
const unavailable = (reason: string) => Response.json({ status: "unavailable", reason }, { status: 503, headers: NO_STORE });

export async function GET(): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
  } catch (error) {
    console.error("healthz: database check failed", error);
    return unavailable("database: not reachable");
  }
  try {
    const schema = await schemaState();
    if (!schema.ready) return unavailable(`database: ${schema.pending.length} pending migrations; run \`${MIGRATE_COMMAND}\``);
  } catch (error) {
    console.error("healthz: migration check failed", error);
    return unavailable("database: migrations could not be checked");
  }
  const storage = storageProblem();
  if (storage) return unavailable(storage);
  return Response.json({ status: "ok", ...textReadingDetail() }, { headers: NO_STORE });
}

/** Present only while text reading is off; `{status: "ok"}` alone otherwise. */
function textReadingDetail(): { detail?: { text_reading: string } } {
  const config = ocrConfig();
  if (!config.enabled) return { detail: { text_reading: "off (turned off by the operator)" } };
  if (!config.path) return { detail: { text_reading: "off (tesseract not installed)" } };
  return {};
}
