/**
 * Uploads dead processes left half done: objects deleted, then the row and its reserved bytes
 * in one transaction, so two instances sweeping at once release them once.
 */
import { db } from "@/lib/db/client";
import { storage } from "@/lib/storage";
import { abandonPending } from "@/lib/uploads/quota";
import { reclaimable } from "@/lib/files/owner-tag";

export interface PendingSweep {
  uploads: number;
  objects: number;
  releasedBytes: number;
}

const keysOf = (json: string): string[] => {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
};

export async function sweepPendingUploads(orphanAgeMs: number): Promise<PendingSweep> {
  const result: PendingSweep = { uploads: 0, objects: 0, releasedBytes: 0 };
  const rows = await db().pendingUpload.findMany({ orderBy: { createdAt: "asc" } });
  for (const row of rows) {
    if (!reclaimable(row.owner, row.createdAt.getTime(), orphanAgeMs)) continue;
    const keys = keysOf(row.keys);
    // Objects first: if this fails the row stays and the next sweep tries again.
    await Promise.all(keys.map((key) => storage().deleteAbandoned(key)));
    const released = await abandonPending(row.id, { subject: row.subject, windowStart: row.windowStart, bytes: Number(row.bytes) });
    if (!released) continue;
    result.uploads++;
    result.objects += keys.length;
    result.releasedBytes += Number(row.bytes);
  }
  return result;
}
