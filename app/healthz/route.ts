/**
 * Liveness and readiness for load balancers and process supervisors (docs/deploy.md,
 * "Readiness"): 200 `{status: "ok"}` when the database answers, its schema is migrated and
 * the storage folders are writable; 503 `{status: "unavailable", reason, down}` otherwise,
 * the reason naming what to do and `down` the dependencies at fault. Every check is bounded
 * by HEALTHZ_TIMEOUT_MS (docs/faults.md): a database that does not answer is named down
 * within it instead of holding the probe. Features that are off without stopping the
 * service (text reading: docs/ocr.md), Redis away and a full file volume (the service goes
 * on, uploads refused) are named in `detail`. Outside /api so it never counts against API limits.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { MIGRATE_COMMAND, schemaState, storageProblem } from "@/lib/db/readiness";
import { asUnavailable } from "@/lib/faults/classify";
import { type Dependency, describeCause, isDown, markDown } from "@/lib/faults/outages";
import { ocrConfig } from "@/lib/media/tesseract";

export const dynamic = "force-dynamic";

const NO_STORE = { "cache-control": "no-store" };
const unavailable = (down: Dependency, reason: string) =>
  Response.json({ status: "unavailable", reason, down: [down] }, { status: 503, headers: NO_STORE });

/** `work`, or a rejection once the probe's bound has passed. */
function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export async function GET(): Promise<Response> {
  const ms = env().HEALTHZ_TIMEOUT_MS ?? 2000;
  try {
    await bounded(db().$queryRaw`SELECT 1`, ms);
  } catch (error) {
    // Logged once per outage (lib/faults/outages.ts), not once per probe.
    const fault = asUnavailable(error, "database");
    if (fault === error) markDown("database", error);
    return unavailable("database", `database: not reachable (${describeCause(error)})`);
  }
  try {
    const schema = await bounded(schemaState(), ms);
    if (!schema.ready) return unavailable("database", `database: ${schema.pending.length} pending migrations; run \`${MIGRATE_COMMAND}\``);
  } catch (error) {
    return unavailable("database", `database: migrations could not be checked (${describeCause(error)})`);
  }
  const storage = storageProblem();
  if (storage) return unavailable("storage", storage);
  return Response.json({ status: "ok", ...detail() }, { headers: NO_STORE });
}

/** Present only while something is off; `{status: "ok"}` alone otherwise. */
function detail(): { detail?: Partial<Record<"text_reading" | "redis" | "storage", string>> } {
  const found: Partial<Record<"text_reading" | "redis" | "storage", string>> = {};
  const config = ocrConfig();
  if (!config.enabled) found.text_reading = "off (turned off by the operator)";
  else if (!config.path) found.text_reading = "off (tesseract not installed)";
  // Reads go on while the volume is full; only writes answer 503, so the instance stays in rotation.
  if (isDown("storage")) found.storage = "full or not answering: uploads answer 503 until it is back";
  if (isDown("redis")) found.redis = "unavailable: limits count per process, jobs are found by polling";
  return Object.keys(found).length ? { detail: found } : {};
}
