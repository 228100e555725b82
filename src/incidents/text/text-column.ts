/**
 * A text column (text/index.ts has the map): a field's scalar values as value ids (`Int32Array`, one per
 * row) over an unbounded dictionary of distinct values, with the rows per value (`postings`), the text
 * index over the distinct values (corpus-index.ts; built by `buildIndex` or on first use, kept across adds,
 * bounded by the budget it is given), and the accept tables of recent patterns (`AcceptTable`). A
 * dictionary column that outgrows `maxDictionary` becomes a text column instead of being dropped.
 */

import { WeightedLru } from "../../conditions/lru.js";
import {
  CODE_COMPLEX,
  CODE_MISSING,
  CODE_NULL,
  type DictionaryColumn,
  hashAscii,
  postingsOf,
  reserved,
  ValueIds,
} from "../columns.js";
import { buildTextIndex, KIND_NOT_STRING, type TextIndex } from "./corpus-index.js";
import type { GramIndex } from "./gram-index.js";

/** Value id of a row whose field is missing. */
export const TEXT_MISSING = -1;

/** Value id of a row whose field is `null`. */
export const TEXT_NULL = -2;

/** Value id of a row whose field holds an array or an object (or could not be read): the row predicate decides. */
export const TEXT_COMPLEX = -3;

/**
 * The default bound of a set's text indexes, in bytes (all fields together): 128 MiB, so that the packed
 * trigram lists and their `meta` of 1M generated titles with distinct titles fit (112 MiB), and the corpus
 * beside them (another 108 MiB with the lowered copy, which duplicates the column's values) does not: a
 * compact set of 1M such incidents then holds at most its NDJSON line per incident (421 bytes against 447;
 * bench/memory-parts.ts, "held"). Smaller sets keep their corpus (docs/semantics.md, "The text index").
 */
export const DEFAULT_TEXT_INDEX_BYTES = 128 * 1024 * 1024;

/** Values added after an index was built that are tested one by one before it is built again (at least). */
const REBUILD_MIN = 4096;

/**
 * A pattern's answers over a text column's values: the true ids ascending (`accepted`), and per value id
 * (`table`: 0 false, 1 true), the latter built on first read (a `count` or a `findAll` from the postings
 * reads only `accepted`).
 */
export class AcceptTable {
  private bytes: Uint8Array | undefined;

  /**
   * @param accepted - the ids of the values the pattern accepts, ascending
   * @param values - the number of value ids the table answers for
   */
  constructor(
    readonly accepted: Int32Array,
    private readonly values: number,
  ) {}

  /** Bytes held: the ids, and the table once built. */
  byteLength(): number {
    return this.accepted.byteLength + (this.bytes?.byteLength ?? 0);
  }

  /** Bytes held once the table is built: the ids and a byte per value id. */
  maxByteLength(): number {
    return this.accepted.byteLength + this.values;
  }

  /** Per value id: 1 when the pattern accepts it, else 0. */
  get table(): Uint8Array {
    if (this.bytes === undefined) {
      const table = new Uint8Array(this.values);
      const { accepted } = this;
      for (let k = 0; k < accepted.length; k++) table[accepted[k]!] = 1;
      this.bytes = table;
    }
    return this.bytes;
  }
}

/** Accept tables cached per text column (by pattern), at most this many. */
const ACCEPT_CACHE_SIZE = 8;

/** The most bytes of accept tables a text column keeps (each weighs its ids and its table, built or not). */
const ACCEPT_CACHE_BYTES = 64 * 1024 * 1024;

/** Patterns memoized per text column at most (`TextColumn.memos`). */
const MAX_MEMOS = 8;

/**
 * Bytes of pattern memos per text column at most (`TextColumn.memos`): a memo takes a quarter of a byte a
 * distinct value, so 64 MiB keeps 8 memos of 30 million distinct values; a memo past the bound serves its
 * query and is not kept.
 */
const MEMO_BYTES = 64 * 1024 * 1024;

/** Rows `TextColumn.queueAscii` queues before it writes them. */
const QUEUE_ROWS = 256;

/**
 * One field's values as ids over an unbounded dictionary, with rows per value and a text index over the
 * distinct values (`TextIndex`: corpus and trigram lists; built by `buildIndex` or on first use, bounded by
 * the budget it is given).
 */
export class TextColumn {
  readonly field: string;
  /** Per row: the value id (≥ 0), or `TEXT_MISSING`, `TEXT_NULL`, `TEXT_COMPLEX`. */
  ids: Int32Array;
  /** The distinct scalar values (strings, numbers, booleans), by id. */
  readonly values: unknown[] = [];
  /** Rows per value id. */
  readonly counts: number[] = [];
  missingCount = 0;
  nullCount = 0;
  /** Rows in `TEXT_COMPLEX`, ascending. */
  readonly complexRows: number[] = [];
  /** Ids of the values that are not strings (never in the trigram index). */
  readonly scalarIds: number[] = [];
  rows = 0;
  /** Value → id (a string also by its ASCII bytes: `queueAscii`). */
  private readonly index = new ValueIds(this.values);
  private readonly budget: { remaining: number };
  /** The text index: undefined before first use, null when it did not fit the budget. */
  private indexCache: TextIndex | null | undefined;
  /** The number of values when the index last failed to fit (see `textIndex`). */
  private failedAt = -1;
  /** Whether the index is built with its lowered corpus (`buildIndex`). */
  private eager = false;
  private postingCache: { offsets: Int32Array; rows: Int32Array } | undefined;
  /** `queueAscii`'s rows: row, start and end per row, and the bytes' hashes. */
  private readonly queue = new Int32Array(QUEUE_ROWS * 3);
  private readonly queueHashes = new Int32Array(QUEUE_ROWS);
  private queued = 0;
  private queuedBytes: Uint8Array | undefined;
  private queuedDecode: ((b: Uint8Array, start: number, end: number) => string) | undefined;
  private queuedCapacity = 0;
  /** What `flushAscii`'s reads ahead found, written so that the compiler keeps the reads (never read). */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the write is what keeps the reads ahead.
  private ahead = 0;
  /**
   * Per pattern key: each value id's answer in two bits, for row-at-a-time text leaves (`memoOf` in
   * plan/text-leaf.ts). The engine's cache rule (`WeightedLru`): at most `MAX_MEMOS` patterns and
   * `MEMO_BYTES` bytes, least recently used dropped; freed with the column, emptied by `clearCaches()`.
   */
  readonly memos = new WeightedLru<Uint8Array>(MAX_MEMOS, MEMO_BYTES);
  /**
   * Per pattern key: the answer per value id (0 false, 1 true), kept until the next add. The engine's cache
   * rule (`WeightedLru`): at most `ACCEPT_CACHE_SIZE` patterns and `ACCEPT_CACHE_BYTES` bytes, least
   * recently used dropped; freed with the column, emptied by `clearCaches()`.
   */
  private readonly acceptCache = new WeightedLru<AcceptTable>(ACCEPT_CACHE_SIZE, ACCEPT_CACHE_BYTES);
  /** Whether `acceptCache` may hold an entry (an add then empties it; a flag, so that an add costs no call). */
  private acceptKept = false;

  /**
   * @param budget - the bytes the set's text indexes may still take (shared by its text columns)
   */
  constructor(field: string, capacity: number, budget: { remaining: number }) {
    this.field = field;
    this.ids = new Int32Array(capacity);
    this.budget = budget;
  }

  /** A text column holding the first `rows` rows of a dictionary column (before it would be dropped). */
  static fromDictionary(
    dictionary: DictionaryColumn,
    rows: number,
    capacity: number,
    budget: { remaining: number },
  ): TextColumn {
    const column = new TextColumn(dictionary.field, capacity, budget);
    const codes = dictionary.codes;
    const values = dictionary.values;
    for (let row = 0; row < rows; row++) {
      const code = codes[row]!;
      column.set(
        row,
        code === CODE_MISSING
          ? undefined
          : code === CODE_NULL
            ? null
            : code === CODE_COMPLEX
              ? []
              : values[code],
        capacity,
      );
    }
    return column;
  }

  /** Stores row `row`'s value (read as docs/semantics.md 1.1 reads fields). */
  set(row: number, value: unknown, capacity: number): void {
    if (this.queued > 0) this.flushAscii();
    let id: number;
    if (value === undefined) {
      id = TEXT_MISSING;
      this.missingCount++;
    } else if (value === null) {
      id = TEXT_NULL;
      this.nullCount++;
    } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      const known = this.index.get(value);
      if (known === undefined) {
        id = this.values.length;
        this.values.push(value);
        this.counts.push(1);
        this.index.set(value, id);
        if (typeof value !== "string") this.scalarIds.push(id);
      } else {
        id = known;
        this.counts[id]!++;
      }
    } else {
      id = TEXT_COMPLEX;
      this.complexRows.push(row);
    }
    this.storeId(row, id, capacity);
  }

  /**
   * `set` of the string whose ASCII bytes are `b[start, end)` (fromNdjson), deferred: the row joins a queue
   * that `flushAscii` writes (the caller keeps `b` unchanged until then, and calls `flushAscii` before any
   * other use of the column; `set` calls it first). The string is built (`decode`) only when the column
   * does not hold it yet. The queue's lookups are made in stages over its rows, so that their cache misses
   * (the table's slot, then the value and count it names) overlap instead of following one another: in a
   * column of millions of distinct values, each is a read of memory. The rows are written in the order they
   * were queued, with the ids `set` would have given them one by one.
   */
  queueAscii(
    row: number,
    b: Uint8Array,
    start: number,
    end: number,
    capacity: number,
    decode: (b: Uint8Array, start: number, end: number) => string,
  ): void {
    if (this.queued > 0 && b !== this.queuedBytes) this.flushAscii();
    const q = this.queued;
    this.queuedBytes = b;
    this.queuedDecode = decode;
    this.queuedCapacity = capacity;
    const at = q * 3;
    this.queue[at] = row;
    this.queue[at + 1] = start;
    this.queue[at + 2] = end;
    this.queueHashes[q] = hashAscii(b, start, end);
    this.queued = q + 1;
    if (q + 1 === QUEUE_ROWS) this.flushAscii();
  }

  /** Writes the rows `queueAscii` queued (see there). */
  flushAscii(): void {
    const n = this.queued;
    if (n === 0) return;
    this.queued = 0;
    const b = this.queuedBytes!;
    const decode = this.queuedDecode!;
    const { queuedCapacity: capacity, queue, queueHashes: hashes, index, values, counts } = this;
    // Stage 1: each row's first slot; stage 2: the value and count a slot names. Reads only, independent of
    // one another (`ahead` only keeps them from being optimized away).
    let ahead = 0;
    for (let i = 0; i < n; i++) ahead ^= index.entryOf(hashes[i]!);
    for (let i = 0; i < n; i++) {
      const entry = index.entryOf(hashes[i]!);
      if (entry > 0) {
        const value = values[entry - 1];
        if (typeof value === "string") ahead ^= value.length ^ counts[entry - 1]!;
      }
    }
    this.ahead = ahead;
    for (let i = 0; i < n; i++) {
      const at = i * 3;
      const start = queue[at + 1]!;
      const end = queue[at + 2]!;
      let id = index.getAsciiHashed(b, start, end, hashes[i]!);
      if (id < 0) {
        const value = decode(b, start, end);
        id = values.length;
        values.push(value);
        counts.push(0);
        index.setMissed(value, id);
      }
      counts[id]!++;
      this.storeId(queue[at]!, id, capacity);
    }
    // The bytes and the decoder (a closure over the reader's scanner and its block buffer) are not kept:
    // a built set would otherwise hold the last block the reader read.
    this.queuedBytes = undefined;
    this.queuedDecode = undefined;
  }

  /** Room for `rows` rows' ids and, in the value table, `moreValues` values beyond those it holds. */
  reserve(rows: number, moreValues: number): void {
    if (this.queued > 0) this.flushAscii();
    this.ids = reserved(this.ids, rows);
    this.index.reserve(moreValues);
  }

  /**
   * Per value id, its `ValueIds.hashOf`, as the column's value table holds it (a parallel build's part:
   * `packValues` in ndjson-parts.ts).
   */
  valueHashes(): Int32Array {
    if (this.queued > 0) this.flushAscii();
    return this.index.hashesById(this.values.length);
  }

  /**
   * Appends rows `base … base + rows - 1` from another column of the same field (a part of a parallel
   * build, ndjson-parts.ts): per row its id `ids[r]` over that column's `values` (or `TEXT_MISSING`,
   * `TEXT_NULL`, `TEXT_COMPLEX`), with the ids sequential `set`s would have given them (new values get the
   * next ids in the order of their ids there, the order of their first rows). With `first`, ids are offset:
   * `ids[r] - first` is the value id, and ids below `first` are 0 missing, 1 null, 2 complex (a dictionary
   * column's codes, `DictionaryColumn.codes`). `hashes`, when given, holds each value's
   * `ValueIds.hashOf` (by its index in `values`), computed by the thread that built the part.
   */
  appendIds(
    ids: ArrayLike<number>,
    values: readonly unknown[],
    rows: number,
    base: number,
    capacity: number,
    first = 0,
    hashes?: ArrayLike<number>,
  ): void {
    if (this.queued > 0) this.flushAscii();
    const index = this.index;
    const map = new Int32Array(Math.max(0, values.length - first));
    // The table grown once for every value the part may add, not doubled on the way. Pays: bench/one-shot.ts,
    // "set build" row (threads 2; CHANGELOG.md, Unreleased).
    index.reserve(map.length);
    // In batches, as `flushAscii`: each value's first slot read ahead for the batch, so that the cache
    // misses of a table of millions of values overlap. Pays: bench/one-shot.ts, "set build" row (the
    // append of a part of 500,000 distinct titles; CHANGELOG.md, Unreleased).
    const batch = new Int32Array(QUEUE_ROWS);
    let ahead = 0;
    for (let from = first; from < values.length; from += QUEUE_ROWS) {
      const to = Math.min(values.length, from + QUEUE_ROWS);
      for (let v = from; v < to; v++) {
        const h = hashes === undefined ? ValueIds.hashOf(values[v]) : hashes[v]!;
        batch[v - from] = h;
        ahead ^= index.entryOf(h);
      }
      for (let v = from; v < to; v++) {
        const value = values[v];
        const next = this.values.length;
        const id = index.idOrSet(value, batch[v - from]!, next);
        if (id === next) {
          this.values.push(value);
          this.counts.push(0);
          if (typeof value !== "string") this.scalarIds.push(id);
        }
        map[v - first] = id;
      }
    }
    this.ahead = ahead;
    if (base + rows > this.ids.length) {
      const next = new Int32Array(Math.max(capacity, base + rows));
      next.set(this.ids);
      this.ids = next;
    }
    const out = this.ids;
    const counts = this.counts;
    for (let r = 0; r < rows; r++) {
      const part = ids[r]! - first;
      let id: number;
      if (part >= 0) {
        id = map[part]!;
        counts[id]!++;
      } else {
        // Below the first value: missing, null, complex (text ids -1, -2, -3; dictionary codes 0, 1, 2,
        // here -3, -2, -1).
        id = first === 0 ? part : -part - 4;
        if (id === TEXT_MISSING) this.missingCount++;
        else if (id === TEXT_NULL) this.nullCount++;
        else this.complexRows.push(base + r);
      }
      out[base + r] = id;
    }
    if (base + rows > this.rows) this.rows = base + rows;
    this.postingCache = undefined;
    if (this.acceptKept) {
      this.acceptCache.clear();
      this.acceptKept = false;
    }
  }

  /** Writes row `row`'s id (the ids grown to `capacity` or by half) and drops what the change outdates. */
  private storeId(row: number, id: number, capacity: number): void {
    if (row >= this.ids.length) {
      const next = new Int32Array(Math.max(capacity, Math.ceil(this.ids.length * 1.5) + 16));
      next.set(this.ids);
      this.ids = next;
    }
    this.ids[row] = id;
    if (row >= this.rows) this.rows = row + 1;
    this.postingCache = undefined;
    if (this.acceptKept) {
      this.acceptCache.clear();
      this.acceptKept = false;
    }
  }

  /**
   * The text index over the distinct values (see `TextIndex`), built on first use and kept across adds: the
   * values added since it was built (ids from its `count` on) are tested one by one until they outnumber
   * `max(REBUILD_MIN, count / 8)`, when it is built again. Undefined when it would not fit in the remaining
   * budget (then nothing is kept, and it is not tried again before as many values were added).
   */
  textIndex(): TextIndex | undefined {
    const current = this.indexCache;
    const values = this.values.length;
    // After a failure, retried only once as many values were added as would trigger a rebuild.
    if (current === null && values - this.failedAt <= Math.max(REBUILD_MIN, this.failedAt >>> 3)) {
      return undefined;
    }
    if (current !== undefined && current !== null) {
      if (values - current.count <= Math.max(REBUILD_MIN, current.count >>> 3)) return current;
      this.budget.remaining += current.bytes();
    }
    this.indexCache = buildTextIndex(this.values, this.budget, this.eager);
    if (this.indexCache === null) {
      this.failedAt = values;
      return undefined;
    }
    this.budget.remaining -= this.indexCache.bytes();
    return this.indexCache;
  }

  /**
   * Builds the text index now, with its lowered corpus when it fits (and so again on every rebuild): what
   * `IncidentSet` does for a large set, so that no query pays for either. Returns `textIndex()`.
   */
  buildIndex(): TextIndex | undefined {
    this.eager = true;
    return this.textIndex();
  }

  /**
   * Leaves the text index to its first use (`textIndex()`), to be built then as `buildIndex` would build it
   * now (with its lowered corpus when it fits): what `IncidentSet.fromNdjson` does for a large set
   * (docs/semantics.md, "The text index"). Builds nothing.
   */
  deferIndex(): void {
    this.eager = true;
  }

  /**
   * Value `id` as a pattern should read it: for a string value covered by the built index, when the index
   * has a corpus, its span of the corpus (a slice of one flat string laid out by id, so candidates read in id
   * order touch memory in order, instead of the caller's strings wherever they sit on the heap); otherwise
   * the value itself. The same text either way. Never builds the index.
   */
  textOf(id: number): unknown {
    const index = this.indexCache;
    if (index && id < index.count) {
      const corpus = index.corpus;
      if (corpus !== undefined && index.kinds[id] !== KIND_NOT_STRING)
        return corpus.slice(index.starts[id]!, index.starts[id + 1]! - 1);
    }
    return this.values[id];
  }

  /** The trigram index over the distinct string values (`textIndex().grams`); undefined without an index. */
  grams(): GramIndex | undefined {
    return this.textIndex()?.grams;
  }

  /** True when the text index was not built because it would exceed the budget. */
  get overBudget(): boolean {
    return this.indexCache === null;
  }

  /** Rows per value id, ascending (`rows[offsets[id]] … rows[offsets[id+1]-1]`), built once per batch of adds. */
  postings(): { offsets: Int32Array; rows: Int32Array } {
    if (this.postingCache !== undefined) return this.postingCache;
    this.postingCache = postingsOf(this.ids, this.counts, this.rows, undefined);
    return this.postingCache;
  }

  /** A cached accept table for a pattern key, or undefined. */
  cachedAccept(key: string): AcceptTable | undefined {
    return this.acceptCache.get(key);
  }

  /** Keeps an accept table for a pattern key (see `acceptCache`: least recently used dropped first). */
  keepAccept(key: string, accept: AcceptTable): void {
    this.acceptCache.set(key, accept, 2 * key.length + accept.maxByteLength());
    this.acceptKept = true;
  }

  /**
   * Bytes held: the ids, the table of the distinct values' ids, the postings and text index when built, the
   * cached accept tables, and 8 bytes per distinct value (its reference in the values' array).
   */
  bytes(): number {
    let bytes = this.ids.byteLength + this.index.bytes() + 8 * this.values.length;
    if (this.postingCache !== undefined)
      bytes += this.postingCache.rows.byteLength + this.postingCache.offsets.byteLength;
    if (this.indexCache) bytes += this.indexCache.bytes();
    for (const accept of this.acceptCache.values()) bytes += accept.byteLength();
    return bytes;
  }

  /** Bytes of the text index alone (corpus, offsets, trigram lists; 0 when not built). */
  gramBytes(): number {
    return this.indexCache ? this.indexCache.bytes() : 0;
  }
}
