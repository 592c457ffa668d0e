/**
 * A short-lived cache of what /cdn needs to know about a file: the per-fetch query was the largest
 * single cost of a small file. Entries count only at the change number they were filled at
 * (docs/caching.md). On globalThis because the production server holds two copies of this code
 * (the custom server's and Next's) and a forget in either must reach the entries /cdn reads.
 */
import { changeVersion } from "@/lib/db/client";

export interface CachedDeliverable<T> {
  postId: string;
  value: T;
}

export const DELIVERY_CACHE_TTL_MS = 1000;
const MAX_POSTS = 5000;

interface Entry {
  expires: number;
  version: number;
  postId: string;
  files: Map<string, unknown>;
}

interface Flight {
  version: number;
  generation: number;
  promise: Promise<unknown>;
}

interface DeliveryCacheState {
  byCode: Map<string, Entry>;
  codeOfPost: Map<string, string>;
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
  // One load per file at a time: lapsed entries under load queued fifty PostgreSQL queries a
  // second (docs/performance.md, "One look-up per lapsed file"). Only a load at this very change
  // number and generation is joined.
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

/** The fresh cached value without a promise (cdn-lane.ts); undefined means load it. */
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
 * The stale window (docs/faults.md): the last decision about each public file, for serving while
 * the database is away. Only files anyone may fetch unsigned are kept.
 */
interface Decided {
  at: number;
  value: unknown;
}
const MAX_DECIDED_POSTS = 10_000;
const decisions = globalThis as unknown as { __mediahostDecided?: Map<string, Map<string, Decided>> };
const decided = (decisions.__mediahostDecided ??= new Map());

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
