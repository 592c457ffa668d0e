/**
 * A bounded in-memory cache of database reads that is never older than the database's
 * change number (lib/db/change-signal.ts): an entry counts only while the number it was
 * filled at is still current, so any committed write — here, in the admin CLI or on
 * another instance — makes every entry a miss. Reads that are hot and rarely change (a
 * key's principal, a post a busy chat keeps opening) then cost a Map look-up instead of
 * several queries.
 *
 * The number is read before loading: a load that overlaps a write is stored under the old
 * number and is a miss next time. Entries also expire after `ttlMs`, a bound for changes
 * no signal reports (a hand-edited database). Beyond `maxEntries` (or `maxWeight`) the
 * least recently used entries go.
 */
import { changeVersion } from "@/lib/db/client";
import { recordCacheLookup } from "@/lib/metrics/registry";

export interface VersionedCacheOptions<V> {
  /** Names the cache in GET /metrics' `cache_lookups_total` (docs/metrics.md). */
  name: string;
  maxEntries: number;
  ttlMs: number;
  /** With `weigh`: the most the entries may weigh together (bytes, say). */
  maxWeight?: number;
  weigh?: (value: V) => number;
}

interface Entry<V> {
  value: V;
  version: number;
  expires: number;
  weight: number;
  /** `moves` when the entry was last put at the end of the LRU order. */
  moved: number;
}

export class VersionedCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private weight = 0;
  /** Counts every move to the end of the LRU order (a store, or a hit that re-inserts). */
  private moves = 0;

  constructor(
    private readonly options: VersionedCacheOptions<V>,
    private readonly version: () => number = () => changeVersion(),
  ) {}

  /** The cached value, or `load()`'s (stored unless it is `undefined`). */
  async get(key: K, load: () => Promise<V>): Promise<V> {
    const stamp = this.stamp();
    const hit = this.peek(key, stamp);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value !== undefined) this.put(key, value, stamp);
    return value;
  }

  /** The change number now: take it before reading what `put` will store. */
  stamp(): number {
    return this.version();
  }

  /** The entry for `key` when it is still current, else undefined. */
  peek(key: K, stamp: number = this.version()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return this.missed();
    if (entry.version !== stamp || entry.expires <= Date.now()) {
      this.remove(key);
      return this.missed();
    }
    // Re-inserting keeps the Map in least-recently-used order, approximately: only an entry
    // that a quarter of the cache has passed since it last moved is moved again, so the hot
    // entries of a cached read (a key, a post, a like) cost no Map delete and set on every
    // hit (docs/performance.md, "The cached post reply kept, cheaper cache hits and key
    // hashes"). Such an entry is still among the newest quarter.
    if (this.moves - entry.moved > this.entries.size >> 2) {
      this.entries.delete(key);
      entry.moved = ++this.moves;
      this.entries.set(key, entry);
    }
    recordCacheLookup(this.options.name, true);
    return entry.value;
  }

  private missed(): undefined {
    recordCacheLookup(this.options.name, false);
    return undefined;
  }

  /** Stores what was read after `stamp()` answered `stamp`. */
  put(key: K, value: V, stamp: number): void {
    const weight = this.options.weigh?.(value) ?? 0;
    if (this.options.maxWeight !== undefined && weight > this.options.maxWeight) return;
    this.store(key, { value, version: stamp, expires: Date.now() + this.options.ttlMs, weight, moved: 0 });
  }

  get size(): number {
    return this.entries.size;
  }

  private store(key: K, entry: Entry<V>): void {
    this.remove(key);
    const maxWeight = this.options.maxWeight ?? Infinity;
    while (this.entries.size > 0 && (this.entries.size >= this.options.maxEntries || this.weight + entry.weight > maxWeight)) {
      this.remove(this.entries.keys().next().value as K);
    }
    entry.moved = ++this.moves;
    this.entries.set(key, entry);
    this.weight += entry.weight;
  }

  private remove(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
