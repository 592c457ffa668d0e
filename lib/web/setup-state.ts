/** Whether pages link to /setup; once an admin exists the answer is kept a minute. On globalThis because Next loads two copies. */
import { setupPending } from "@/lib/accounts/setup";

const KEEP_MS = 60_000;
const shared = globalThis as unknown as { __mediahostSetUpUntil?: number };

export async function setupPendingCached(): Promise<boolean> {
  if ((shared.__mediahostSetUpUntil ?? 0) > Date.now()) return false;
  const pending = await setupPending();
  if (!pending) shared.__mediahostSetUpUntil = Date.now() + KEEP_MS;
  return pending;
}
