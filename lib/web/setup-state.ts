/**
 * Whether pages should link to /setup: asked of the database while the instance has no
 * administrator; once one exists the answer is kept for a minute, so the header costs no
 * query on the pages of a running instance. Per process, on globalThis (Next's bundles).
 */
import { setupPending } from "@/lib/accounts/setup";

const KEEP_MS = 60_000;
const shared = globalThis as unknown as { __mediahostSetUpUntil?: number };

export async function setupPendingCached(): Promise<boolean> {
  if ((shared.__mediahostSetUpUntil ?? 0) > Date.now()) return false;
  const pending = await setupPending();
  if (!pending) shared.__mediahostSetUpUntil = Date.now() + KEEP_MS;
  return pending;
}
