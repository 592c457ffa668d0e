/**
 * Whether a dependency (the database, Redis, the files' storage) is away, and the log of
 * it (docs/faults.md): one line when it goes, one when it is back with the number of
 * requests refused meanwhile, instead of a stack trace per request. Whoever meets the
 * dependency reports: the database adapter after every statement (lib/db/adapter.ts), the
 * storage adapters after every write, the job queue's Redis clients on their events.
 *
 * The state is one per process, on globalThis: the production server holds two copies of
 * this module (the custom server's bundle and Next's), and both must log one outage once.
 */
export type Dependency = "database" | "redis" | "storage";

interface Outage {
  /** Epoch ms the dependency was first seen away. */
  since: number;
  /** Requests answered 503 because of it since then. */
  refused: number;
}

interface OutageState {
  outages: Map<Dependency, Outage>;
  log: (line: string) => void;
}

const shared = globalThis as unknown as { __mediahostOutages?: OutageState };
const state = (shared.__mediahostOutages ??= { outages: new Map(), log: (line) => console.error(line) });

/** A short cause for the log: the error's code and message, one line, no stack. */
export function describeCause(cause: unknown): string {
  if (typeof cause === "string") return cause;
  const error = cause as { code?: unknown; message?: unknown } | null;
  const code = typeof error?.code === "string" ? error.code : undefined;
  const message = typeof error?.message === "string" ? error.message.split("\n")[0] : String(cause);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** The dependency failed a request's work: logged once per outage. */
export function markDown(dependency: Dependency, cause: unknown): void {
  if (state.outages.has(dependency)) return;
  state.outages.set(dependency, { since: Date.now(), refused: 0 });
  state.log(`[faults] ${dependency} unavailable: ${describeCause(cause)}; answering 503 until it is back`);
}

/**
 * The dependency answered again: logged once, with what the outage cost. `askedAt` is when
 * the answered request was sent: an answer to one sent before the outage began (it was on
 * its way when a connection froze) proves nothing. Costs one check when nothing is down.
 */
export function markUp(dependency: Dependency, askedAt: number = Date.now()): void {
  if (state.outages.size === 0) return;
  const outage = state.outages.get(dependency);
  if (!outage || askedAt < outage.since) return;
  state.outages.delete(dependency);
  const seconds = ((Date.now() - outage.since) / 1000).toFixed(1);
  state.log(`[faults] ${dependency} available again after ${seconds} s; ${outage.refused} requests refused meanwhile`);
}

/** A request was answered 503 because of the dependency (counted for the "back" line). */
export function countRefused(dependency: Dependency): void {
  const outage = state.outages.get(dependency);
  if (outage) outage.refused++;
}

export const isDown = (dependency: Dependency): boolean => state.outages.has(dependency);

/** The dependencies away right now, with the epoch ms each went. */
export function outages(): { dependency: Dependency; since: number }[] {
  return [...state.outages].map(([dependency, outage]) => ({ dependency, since: outage.since }));
}
