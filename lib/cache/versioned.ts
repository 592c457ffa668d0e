/**
 * A bounded in-memory cache of database reads, never older than the change number
 * (docs/caching.md, "Versioned caches"). The number is read before loading, so a load
 * overlapping a write is a miss next time; `ttlMs` bounds changes no signal reports.
 */
import { changeVersion } from "@/lib/db/client";
import { recordCacheLookup } from "@/lib/metrics/registry";

export interface VersionedCacheOptions<V> {
  /** Names the cache in GET /metrics (docs/metrics.md). */
  name: string;
  maxEntries: number;
  ttlMs: number;
  maxWeight?: number;
  weigh?: (value: V) => number;
}

interface Entry<V> {
  value: V;
  version: number;
  expires: number;
  weight: number;
  moved: number;
}

export class VersionedCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private weight = 0;
  private moves = 0;

  constructor(
    private readonly options: VersionedCacheOptions<V>,
    private readonly version: () => number = () => changeVersion(),
  ) {}

  /** The cached value, or `load()`'s (stored unless `undefined`). */
  async get(key: K, load: () => Promise<V>): Promise<V> {
    const stamp = this.stamp();
    const hit = this.peek(key, stamp);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value !== undefined) this.put(key, value, stamp);
    return value;
  }

  /** Take it before reading what `put` will store. */
  stamp(): number {
    return this.version();
  }

  peek(key: K, stamp: number = this.version()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return this.missed();
    if (entry.version !== stamp || entry.expires <= Date.now()) {
      this.remove(key);
      return this.missed();
    }
    // Approximate LRU: only an entry a quarter of the cache has passed is moved again, so hot
    // entries cost no Map delete and set per hit (docs/performance.md, "The cached post reply
    // kept, cheaper cache hits and key hashes").
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
