/**
 * A least-recently-used cache bounded both in entries and in bytes (docs/semantics.md 1.7: what untrusted
 * conditions leave behind in memory is bounded). Each entry carries an estimate of the bytes it keeps alive;
 * inserting past either bound drops the least recently used entries first, and an entry heavier than the
 * whole byte budget is never kept.
 */
export class WeightedLru<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  private total = 0;

  /**
   * @param maxEntries - the most entries kept (a positive integer)
   * @param maxBytes - the most estimated bytes kept, over all entries (a positive number)
   */
  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /** The value for `key`, marked as most recently used; `undefined` when absent. */
  get(key: string): V | undefined {
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

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** The number of entries and their estimated bytes (for tests and diagnostics). */
  stats(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.entries.size, bytes: this.total };
  }
}
