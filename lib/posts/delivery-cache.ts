/**
 * A short-lived cache of what /cdn needs to know about a file (storage key, type, whether
 * the URL must be signed, moderation). A shared link in a busy chat is fetched thousands
 * of times a minute; without this every fetch is a database query, which profiling showed
 * to be the largest single cost of serving a small file.
 *
 * Correctness: every change in this process to what an entry holds (privacy, moderation,
 * restriction, deleting or adding files) forgets the post's entries at once
 * (forgetDeliverable). Changes made elsewhere — the admin CLI, another instance — are seen
 * at once too: an entry counts only while the database's change number (docs/caching.md)
 * is the one it was filled at, so a post moderated from the command line stops being
 * served by the next request. Entries also expire after TTL_MS, a bound for changes no
 * signal reports. Only found files are cached: a file that appears is served at once.
 *
 * The entries are one per process, on globalThis, like the change number (docs/caching.md):
 * the production server holds two copies of this code (the custom server's bundle, which
 * serves /cdn, and Next's, where the console's server actions moderate and delete posts),
 * and a forget in either must reach the entries /cdn reads.
 */
import { changeVersion } from "@/lib/db/client";

export interface CachedDeliverable<T> {
  postId: string;
  value: T;
}

/** The most an entry lives, whatever the change number says (hand edits of the database). */
export const DELIVERY_CACHE_TTL_MS = 1000;
const MAX_POSTS = 5000;

interface Entry {
  expires: number;
  /** The change number the entry was filled at. */
  version: number;
  postId: string;
  files: Map<string, unknown>;
}

/** A load in progress, shared by every request for the same file that arrives meanwhile. */
interface Flight {
  version: number;
  generation: number;
  promise: Promise<unknown>;
}

interface DeliveryCacheState {
  byCode: Map<string, Entry>;
  codeOfPost: Map<string, string>;
  /** By code and file name. */
  flights: Map<string, Flight>;
  /** Bumped by every forget: a load that overlapped a change must not store what it read. */
  generation: number;
}

const shared = globalThis as unknown as { __mediahostDeliverables?: DeliveryCacheState };
const state = (shared.__mediahostDeliverables ??= { byCode: new Map(), codeOfPost: new Map(), flights: new Map(), generation: 0 });
const { byCode, codeOfPost } = state;
// A state made by an older copy of this module (development's hot reload) has no flights yet.
const flights = (state.flights ??= new Map());

export async function cachedDeliverable<T>(
  code: string,
  name: string,
  load: () => Promise<CachedDeliverable<T> | null>,
): Promise<T | null> {
  const now = Date.now();
  // Taken before the load: a load that overlaps a write is stored under the old number.
  const version = changeVersion();
  const entry = byCode.get(code);
  if (entry && current(entry, now, version) && entry.files.has(name)) return entry.files.get(name) as T;
  // One load per file at a time: when an entry lapses under load, the requests that find
  // it gone wait for one query instead of each making their own (on PostgreSQL fifty of
  // them queued for the pool every second, the p99 of a busy file; docs/performance.md,
  // "One look-up per lapsed file"). Only a load started at this very change number and
  // generation is joined: one that overlapped a change answers its own callers only.
  const key = `${code}/${name}`;
  const flying = flights.get(key);
  if (flying && flying.version === version && flying.generation === state.generation) return flying.promise as Promise<T | null>;
  const flight: Flight = { version, generation: state.generation, promise: fill(code, name, now, version, load) };
  flights.set(key, flight);
  try {
    return (await flight.promise) as T | null;
  } finally {
    if (flights.get(key) === flight) flights.delete(key);
  }
}

async function fill<T>(
  code: string,
  name: string,
  now: number,
  version: number,
  load: () => Promise<CachedDeliverable<T> | null>,
): Promise<T | null> {
  const started = state.generation;
  const loaded = await load();
  if (!loaded || started !== state.generation) return loaded ? loaded.value : null;
  let target = byCode.get(code);
  if (!target || !current(target, now, version) || target.postId !== loaded.postId) {
    forget(code);
    if (byCode.size >= MAX_POSTS) forget(byCode.keys().next().value as string);
    target = { expires: now + DELIVERY_CACHE_TTL_MS, version, postId: loaded.postId, files: new Map() };
    byCode.set(code, target);
    codeOfPost.set(loaded.postId, code);
  }
  target.files.set(name, loaded.value);
  return loaded.value;
}

/**
 * The cached value when there is a fresh one, without a promise: the read path's hit
 * costs no await (lib/server/cdn-lane.ts). Undefined means "not cached; load it".
 */
export function peekDeliverable<T>(code: string, name: string): T | undefined {
  const entry = byCode.get(code);
  if (!entry || !current(entry, Date.now(), changeVersion())) return undefined;
  return entry.files.get(name) as T | undefined;
}

function current(entry: Entry, now: number, version: number): boolean {
  return entry.expires > now && entry.version === version;
}

/** Call after any change to a post's privacy, moderation, restriction or files. */
export function forgetDeliverable(post: { code?: string; postId?: string }): void {
  state.generation++;
  const code = post.code ?? (post.postId ? codeOfPost.get(post.postId) : undefined);
  if (code) {
    forget(code);
    decided.delete(code);
  }
}

/**
 * The stale window (docs/faults.md): the last decision about each public file, kept by
 * code and name with its time, for serving while the database is away. Only files anyone
 * may fetch without a signature are kept; a load that finds the file changed replaces or
 * drops its entry, and a change made in this process drops the post's.
 */
interface Decided {
  at: number;
  value: unknown;
}
const MAX_DECIDED_POSTS = 10_000;
const decisions = globalThis as unknown as { __mediahostDecided?: Map<string, Map<string, Decided>> };
const decided = (decisions.__mediahostDecided ??= new Map());

/** Notes a loaded file's decision: kept when `open` (public), dropped otherwise. */
export function noteDecided(code: string, name: string, value: unknown, open: boolean): void {
  let files = decided.get(code);
  if (!open) {
    files?.delete(name);
    return;
  }
  if (!files) {
    if (decided.size >= MAX_DECIDED_POSTS) decided.delete(decided.keys().next().value as string);
    files = new Map();
    decided.set(code, files);
  }
  files.set(name, { at: Date.now(), value });
}

/** The last decision about a public file when it is at most `maxAgeMs` old. */
export function lastDecided<T>(code: string, name: string, maxAgeMs: number): T | undefined {
  const entry = decided.get(code)?.get(name);
  return entry && Date.now() - entry.at <= maxAgeMs ? (entry.value as T) : undefined;
}

function forget(code: string): void {
  const entry = byCode.get(code);
  if (!entry) return;
  byCode.delete(code);
  codeOfPost.delete(entry.postId);
}
