/**
 * The engine's one cache rule, and the registry that lets a user inspect and clear every cache
 * (docs/performance.md "Caches"; docs/semantics.md 1.7: what untrusted conditions leave behind in memory is
 * bounded). Every memo the engine keeps is a `WeightedLru`: process-wide ones are made with `sharedCache`
 * and listed by `cacheStats()`; per-object ones (a text column's pattern memos and accept tables) live on
 * their object and are emptied by `clearCaches()` too (each LRU checks the clear count on its next use).
 * The only other module-level tables of the engine are named, with their bounds, in test/caches.test.ts.
 */

/** How many times `clearCaches()` has run: an LRU made before the last clear empties itself on next use. */
let clears = 0;

/**
 * A least-recently-used cache bounded both in entries and in bytes: each entry carries an estimate of the
 * bytes it keeps alive; inserting past either bound drops the least recently used entries first, and an
 * entry heavier than the whole byte budget is never kept. `clearCaches()` empties every instance.
 */
export class WeightedLru<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  private total = 0;
  /** The value of `clears` this cache last saw. */
  private seen = clears;

  /**
   * @param maxEntries - the most entries kept (a positive integer)
   * @param maxBytes - the most estimated bytes kept, over all entries (a positive number)
   */
  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /** Empties this cache when `clearCaches()` ran since its last use. */
  private sync(): void {
    if (this.seen !== clears) {
      this.seen = clears;
      this.clear();
    }
  }

  /** The value for `key`, marked as most recently used; `undefined` when absent. */
  get(key: string): V | undefined {
    if (this.seen !== clears) this.sync();
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Keeps `value` under `key` with its estimated size, dropping least recently used entries until both
   * bounds hold. An entry of more than `maxBytes` is not kept (and drops nothing).
   * @param bytes - estimated bytes kept alive by the entry (key included), a non-negative number
   */
  set(key: string, value: V, bytes: number): void {
    if (this.seen !== clears) this.sync();
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.total -= old.bytes;
    }
    if (bytes > this.maxBytes) return;
    while (
      this.entries.size > 0 &&
      (this.entries.size >= this.maxEntries || this.total + bytes > this.maxBytes)
    ) {
      const oldest = this.entries.entries().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value[0]);
      this.total -= oldest.value[1].bytes;
    }
    this.entries.set(key, { value, bytes });
    this.total += bytes;
  }

  /** The keys kept, least recently used first (their recency unchanged). */
  keys(): IterableIterator<string> {
    if (this.seen !== clears) this.sync();
    return Array.from(this.entries.keys()).values();
  }

  /** The values kept, least recently used first (their recency unchanged). */
  values(): IterableIterator<V> {
    if (this.seen !== clears) this.sync();
    return Array.from(this.entries.values(), (entry) => entry.value).values();
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** The number of entries and their estimated bytes. */
  stats(): { readonly entries: number; readonly bytes: number } {
    if (this.seen !== clears) this.sync();
    return { entries: this.entries.size, bytes: this.total };
  }
}

/** One cache's figures, as `cacheStats()` reports them. */
export interface CacheStats {
  /** Entries kept now. */
  readonly entries: number;
  /** Estimated bytes the entries keep alive now (keys included). */
  readonly bytes: number;
  /** The most entries the cache keeps. */
  readonly maxEntries: number;
  /** The most estimated bytes the cache keeps. */
  readonly maxBytes: number;
}

/**
 * The process-wide caches of the engine, by name:
 * - `compiledPredicates`: `compile`'s predicates by canonical condition (512 entries, 64 MiB);
 * - `regexMatchers`: compiled `$regex` matchers by flags and pattern (256 entries, 64 MiB);
 * - `regexCaseOrbits`: the runes each rune folds with under `i` (1,024 entries, 1 MiB);
 * - `gramQueries`: the required trigrams of a `$regex` for the text index (512 entries, 8 MiB);
 * - `labelLoops`: generated word loops of label expressions, by shape (256 entries, 8 MiB).
 */
export type CacheName =
  | "compiledPredicates"
  | "regexMatchers"
  | "regexCaseOrbits"
  | "gramQueries"
  | "labelLoops";

const registry = new Map<CacheName, WeightedLru<unknown>>();
const clearHooks: (() => void)[] = [];

/**
 * Makes the process-wide cache `name`, listed by `cacheStats()` and emptied by `clearCaches()` (for the
 * engine's modules; each name once).
 * @throws {Error} when `name` is already registered (a programming error)
 */
export function sharedCache<V>(name: CacheName, maxEntries: number, maxBytes: number): WeightedLru<V> {
  if (registry.has(name)) throw new Error(`the cache ${name} is registered twice`);
  const cache = new WeightedLru<V>(maxEntries, maxBytes);
  registry.set(name, cache as WeightedLru<unknown>);
  return cache;
}

/**
 * Registers what `clearCaches()` must also forget beyond the LRUs: a weak memo by object identity (which
 * holds nothing its key does not) that must not outlive a clear.
 */
export function onClearCaches(hook: () => void): void {
  clearHooks.push(hook);
}

/**
 * The figures of every process-wide cache of the engine (docs/performance.md "Caches"): entries and
 * estimated bytes kept, and the bounds of each. Per-object memos (a text column's pattern memos, at most 8
 * patterns a column, a quarter of a byte a distinct value each) are freed with their object and not listed.
 * @returns an object keyed by `CacheName`; only the caches of modules loaded so far are listed
 * @example cacheStats().compiledPredicates //=> { entries: 3, bytes: 7050, maxEntries: 512, maxBytes: 67108864 }
 */
export function cacheStats(): Readonly<Partial<Record<CacheName, CacheStats>>> {
  const out: Partial<Record<CacheName, CacheStats>> = {};
  for (const [name, cache] of registry) {
    out[name] = { ...cache.stats(), maxEntries: cache.maxEntries, maxBytes: cache.maxBytes };
  }
  return out;
}

/**
 * Empties every cache of the engine: the process-wide ones, `compile`'s memo by condition object, and (on
 * their next use) the per-object memos such as a text column's. Not `evaluate`'s re2js pattern per `$regex`
 * node (the reference shares no module with the fast paths; the pattern goes with its condition). Answers
 * never change; the next queries are compiled and planned cold again. Never throws.
 */
export function clearCaches(): void {
  clears++;
  for (const cache of registry.values()) cache.clear();
  for (const hook of clearHooks) hook();
}
