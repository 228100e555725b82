/**
 * Tables keyed by numbers that the data supplies, hashed with a secret of their own.
 *
 * V8 hashes a number key of a `Map` or `Set` without a seed: an int32 (a Smi, or a heap number holding an
 * int32 value) by a fixed integer mix, any other double by a fixed mix of its 64 bits. Both mixes are
 * invertible, so numbers can be crafted whose hashes share their low bits: they all fall in one bucket, and
 * each insert or lookup walks every one kept before it (6,000 crafted `IncidentId` values built a set 28×
 * slower than 6,000 plain ones). Strings are safe there: V8 seeds their hash per process. So the engine keys
 * its tables of numbers (the hash index of a field, the value tables of its columns) by `NumberKeys`, whose
 * hash takes three random words drawn per table: keys crafted without knowing them spread like any others
 * (SECURITY.md, "Tables keyed by numbers are hashed with a secret").
 *
 * Keys compare as `Map` keys do (SameValueZero), which is how the engine's tables compared them before:
 * `-0` and `0` are one key (numbers compare numerically) and `NaN` is one key (`NaN` in a record equals only
 * `NaN`), every other number is itself (docs/semantics.md, "Search Conditions: matching").
 * The random words decide only where a key sits in the table, never an answer or an order: ids are what the
 * caller gives, `ScalarMap.values` lists in insertion order.
 */

/** The two 32-bit words of a double, to hash one that is not an int32. */
const scratch = new Float64Array(1);
const words = new Int32Array(scratch.buffer);

/**
 * Random words drawn ahead, 4 per table: one `crypto.getRandomValues` call (about 7 µs on a loaded machine,
 * against 0.2 µs for a `new Map`) serves 64 tables, so that a table made per crowded hash of a compact
 * index (`CompactHashIndex`, one per value held by more than 8 rows) does not cost a call each. Measured
 * (100,000 tables of one key each, 3 rounds at a load average of 11 on two cores): 0.32–0.51 s drawn from
 * the pool, 0.85 s with a call per table.
 */
const pool = new Int32Array(256);
let poolUsed = pool.length;

/** Four random 32-bit words (`crypto.getRandomValues`, or `Math.random` where there is no Web Crypto). */
function randomWords(): Int32Array {
  if (poolUsed + 4 > pool.length) {
    const crypto = (globalThis as { crypto?: { getRandomValues?: (a: Int32Array) => Int32Array } }).crypto;
    if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(pool);
    else for (let i = 0; i < pool.length; i++) pool[i] = (Math.random() * 0x1_0000_0000) | 0;
    poolUsed = 0;
  }
  poolUsed += 4;
  return pool.slice(poolUsed - 4, poolUsed);
}

/** Slots of a table when its first key is set. */
const INITIAL_SLOTS = 16;

/**
 * Numbers → ids (integers `0 … 2^31 - 2`), an open-addressing table (linear probing, at most half full) in
 * typed arrays, under a hash seeded per table: an int32 key (`-0` is `0`) is xored with a secret word and
 * multiplied by a secret odd word (a secret bijection), then mixed by MurmurHash3's finalizer, whose top bits
 * pick the slot (so every bit of the key counts); a double that is not an int32 is first folded to 32 bits,
 * its low word through a secret bijection of its own. `NaN` is kept apart. Probes per operation average
 * about 1.6 over inserts, hits and misses, whatever the keys (test/attack/integer-keys.test.ts), unless the
 * secret is known.
 */
export class NumberKeys {
  /** Per slot, its key (meaningful where `slots` is not 0); no slots before the first key. */
  private keys = new Float64Array(0);
  /** Per slot, its key's id + 1; 0 for a free slot. */
  private slots = new Int32Array(0);
  /** 32 - log2(slots): a hash's top bits are its slot. */
  private shift = 32;
  private count = 0;
  /** The id of `NaN`, or -1. */
  private nanId = -1;
  private seed = 0;
  private mulA = 1;
  private mulB = 1;
  private mulC = 1;
  /** The secret given to the constructor, until the first key takes it; else drawn then. */
  private secret: ArrayLike<number> | undefined;
  /** Slots visited by every lookup and insert so far (tests: crafted keys cost no more than others). */
  probes = 0;

  /**
   * @param secret - the table's four secret words (seed and multipliers; the multipliers are made odd):
   *   drawn at random when the first key is set, by default (a table that never holds a number draws
   *   none); given only by tests, to show what keys crafted against a known secret cost
   */
  constructor(secret?: ArrayLike<number>) {
    this.secret = secret;
  }

  /** Takes the secret (given, or drawn now): before the first key is placed. */
  private takeSecret(): void {
    const [seed, mulA, mulB, mulC] = Array.from(this.secret ?? randomWords(), (word) => word | 0);
    this.secret = undefined;
    this.seed = seed!;
    this.mulA = mulA! | 1;
    this.mulB = mulB! | 1;
    this.mulC = mulC! | 1;
  }

  /** Number of keys. */
  get size(): number {
    return this.count + (this.nanId >= 0 ? 1 : 0);
  }

  /** The first slot of `x` (not NaN). */
  private slotOf(x: number): number {
    let k: number;
    if ((x | 0) === x) k = x | 0;
    else {
      scratch[0] = x;
      k = Math.imul(words[0]! ^ this.mulB, this.mulC) ^ words[1]!;
    }
    // A secret bijection of the key, then a fixed finalizer (MurmurHash3's) that spreads every bit over
    // all of them, so that keys differing only in a few bits (a stride of 2^16) spread too.
    let h = Math.imul(k ^ this.seed, this.mulA);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> this.shift;
  }

  /** The id of `x`, or -1 when it has none. */
  get(x: number): number {
    // biome-ignore lint/suspicious/noSelfCompare: NaN is the one number not equal to itself
    if (x !== x) return this.nanId;
    if (this.count === 0) return -1;
    const { keys, slots } = this;
    const mask = slots.length - 1;
    for (let slot = this.slotOf(x), k = 1; ; slot = (slot + 1) & mask, k++) {
      const entry = slots[slot]!;
      if (entry === 0 || keys[slot] === x) {
        this.probes += k;
        return entry - 1;
      }
    }
  }

  /**
   * The id of `x`; when it has none, records `id` (an integer `0 … 2^31 - 2`) as its id and returns `id`:
   * one walk of the table for both.
   */
  idOrSet(x: number, id: number): number {
    // biome-ignore lint/suspicious/noSelfCompare: NaN is the one number not equal to itself
    if (x !== x) {
      if (this.nanId < 0) this.nanId = id;
      return this.nanId;
    }
    if ((this.count + 1) * 2 > this.slots.length) this.rehash(Math.max(INITIAL_SLOTS, this.slots.length * 2));
    const { keys, slots } = this;
    const mask = slots.length - 1;
    for (let slot = this.slotOf(x), k = 1; ; slot = (slot + 1) & mask, k++) {
      const entry = slots[slot]!;
      if (entry === 0) {
        this.probes += k;
        keys[slot] = x === 0 ? 0 : x;
        slots[slot] = id + 1;
        this.count++;
        return id;
      }
      if (keys[slot] === x) {
        this.probes += k;
        return entry - 1;
      }
    }
  }

  /** Forgets every key. */
  clear(): void {
    this.keys = new Float64Array(0);
    this.slots = new Int32Array(0);
    this.shift = 32;
    this.count = 0;
    this.nanId = -1;
  }

  /** Bytes of the typed arrays. */
  bytes(): number {
    return this.keys.byteLength + this.slots.byteLength;
  }

  private rehash(size: number): void {
    const oldKeys = this.keys;
    const oldSlots = this.slots;
    if (oldSlots.length === 0) this.takeSecret();
    const keys = new Float64Array(size);
    const slots = new Int32Array(size);
    this.keys = keys;
    this.slots = slots;
    this.shift = 32 - Math.log2(size);
    const mask = size - 1;
    for (let from = 0; from < oldSlots.length; from++) {
      const entry = oldSlots[from]!;
      if (entry === 0) continue;
      const x = oldKeys[from]!;
      let slot = this.slotOf(x);
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      keys[slot] = x;
      slots[slot] = entry;
    }
  }
}

/**
 * A `Map` for scalar keys (strings, numbers, booleans; any other key is kept by a `Map` too), with the same
 * key equality (SameValueZero) and insertion-ordered `values`, whose number keys are kept by a `NumberKeys`
 * (seeded) rather than by V8's unseeded number hash. Strings and booleans stay in a `Map`: V8 seeds string
 * hashes per process, and there are two booleans.
 */
export class ScalarMap<V> {
  /** Number keys → index in `numberValues`. */
  private numbers = new NumberKeys();
  private numberValues: V[] = [];
  private readonly others = new Map<unknown, V>();

  get(key: unknown): V | undefined {
    if (typeof key !== "number") return this.others.get(key);
    const id = this.numbers.get(key);
    return id < 0 ? undefined : this.numberValues[id];
  }

  set(key: unknown, value: V): this {
    if (typeof key !== "number") this.others.set(key, value);
    else {
      const values = this.numberValues;
      const id = this.numbers.idOrSet(key, values.length);
      if (id === values.length) values.push(value);
      else values[id] = value;
    }
    return this;
  }

  get size(): number {
    return this.numberValues.length + this.others.size;
  }

  clear(): void {
    this.numbers.clear();
    this.numberValues = [];
    this.others.clear();
  }

  /** The values: those of number keys in insertion order, then the others in insertion order. */
  *values(): IterableIterator<V> {
    yield* this.numberValues;
    yield* this.others.values();
  }

  /** Slots the number table visited so far (`NumberKeys.probes`). */
  get probes(): number {
    return this.numbers.probes;
  }
}
