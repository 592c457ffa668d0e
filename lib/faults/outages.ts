/**
 * Whether a dependency is away, and its log (docs/faults.md): one line when it goes, one when
 * it is back, instead of a stack trace per request. On globalThis: the production server holds
 * two copies of this module, and both must log one outage once.
 */
export type Dependency = "database" | "redis" | "storage";

interface Outage {
  since: number;
  refused: number;
}

interface OutageState {
  outages: Map<Dependency, Outage>;
  log: (line: string) => void;
}

const shared = globalThis as unknown as { __mediahostOutages?: OutageState };
const state = (shared.__mediahostOutages ??= { outages: new Map(), log: (line) => console.error(line) });

export function describeCause(cause: unknown): string {
  if (typeof cause === "string") return cause;
  const error = cause as { code?: unknown; message?: unknown } | null;
  const code = typeof error?.code === "string" ? error.code : undefined;
  const message = typeof error?.message === "string" ? error.message.split("\n")[0] : String(cause);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

export function markDown(dependency: Dependency, cause: unknown): void {
  if (state.outages.has(dependency)) return;
  state.outages.set(dependency, { since: Date.now(), refused: 0 });
  state.log(`[faults] ${dependency} unavailable: ${describeCause(cause)}; answering 503 until it is back`);
}

/** `askedAt`: an answer to a request sent before the outage began (on its way when a connection froze) proves nothing. */
export function markUp(dependency: Dependency, askedAt: number = Date.now()): void {
  if (state.outages.size === 0) return;
  const outage = state.outages.get(dependency);
  if (!outage || askedAt < outage.since) return;
  state.outages.delete(dependency);
  const seconds = ((Date.now() - outage.since) / 1000).toFixed(1);
  state.log(`[faults] ${dependency} available again after ${seconds} s; ${outage.refused} requests refused meanwhile`);
}

export function countRefused(dependency: Dependency): void {
  const outage = state.outages.get(dependency);
  if (outage) outage.refused++;
}

export const isDown = (dependency: Dependency): boolean => state.outages.has(dependency);

export function outages(): { dependency: Dependency; since: number }[] {
  return [...state.outages].map(([dependency, outage]) => ({ dependency, since: outage.since }));
}
