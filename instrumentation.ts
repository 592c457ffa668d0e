/**
 * Runs once when a Next.js server process starts, under `next start` as under our own
 * server (lib/server/next-start.ts says why).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { restoreCarriedContentLength, stampRequestsUnderNextStart } = await import("@/lib/server/next-start");
  restoreCarriedContentLength();
  stampRequestsUnderNextStart();
}
