/**
 * The postings of the text index (text/index.ts has the map): for each trigram key (fold.ts), the ids of
 * the distinct string values holding it, ascending, with where it first occurs in each and how it is
 * written there (`meta`, for the literal proof). A query over trigrams (gram-query.ts) gives its candidate
 * ids by intersecting the shortest lists and uniting alternatives; a superset, every candidate is checked.
 */

import type { GramQuery } from "./gram-query.js";
import { intersect, unite } from "./id-lists.js";

/** At most this many posting lists (the shortest) are intersected for an AND: the rest narrow little. */
const MAX_AND_LISTS = 6;

/** Candidates past which intersecting stops: testing them with the pattern costs less. */
const FEW_CANDIDATES = 256;

/** A list this many times longer than the candidates so far is not intersected (it would narrow little). */
const WIDE_LIST = 8;

/**
 * Per trigram key, bytes of a stream (`GramIndex` keeps its lists so): `bytes[starts[key], starts[key + 1])`
 * is the key's list, one varint per entry.
 */
export interface PackedLists {
  readonly bytes: Uint8Array;
  readonly starts: Uint32Array;
}

/**
 * For each trigram key, the ids of the distinct string values holding it, ascending, and (`meta`) where it
 * first occurs in each. Kept packed, a varint per entry (`PackedLists`): the ids as gaps from the previous
 * id of the list (the first as the id plus one), the `meta` as its value; read back list by list
 * (`idsOf`, `metaOf`). Pays: 50 entries per title at 1M distinct titles, 6 bytes an entry as two arrays,
 * about 2.1 packed (bench/memory-parts.ts, "text Title: trigram ids" and "trigram meta"; docs/performance.md,
 * "Compact sets").
 */
export class GramIndex {
  constructor(
    /** Entries before each key's list: key `k` has entries `offsets[k] … offsets[k + 1] - 1`. */
    readonly offsets: Int32Array,
    /** The ids, packed. */
    readonly ids: PackedLists,
    /** Number of distinct values when built. */
    readonly valueCount: number,
    /**
     * Per entry (when it fits the budget), packed: where the trigram first occurs in the value and how it is
     * written there — bits 0–7 its offset in UTF-16 units (255: at 255 or later), bits 8–13 the
     * `foldVariant` of its three characters (2 bits each, first character lowest). Lets `proveLiteral`
     * answer a literal from the lists alone.
     */
    readonly meta?: PackedLists,
  ) {}

  /** Number of values holding trigram `key`. */
  length(key: number): number {
    return this.offsets[key + 1]! - this.offsets[key]!;
  }

  bytes(): number {
    return (
      this.offsets.byteLength +
      this.ids.bytes.byteLength +
      this.ids.starts.byteLength +
      (this.meta === undefined ? 0 : this.meta.bytes.byteLength + this.meta.starts.byteLength)
    );
  }

  /** The ids of the values holding trigram `key`, ascending (read from the packed list). */
  idsOf(key: number): Int32Array {
    const n = this.length(key);
    const out = new Int32Array(n);
    const { bytes, starts } = this.ids;
    let p = starts[key]!;
    let id = -1;
    for (let e = 0; e < n; e++) {
      let x = bytes[p++]!;
      let gap = x & 0x7f;
      for (let shift = 7; x >= 0x80; shift += 7) {
        x = bytes[p++]!;
        gap |= (x & 0x7f) << shift;
      }
      id += gap;
      out[e] = id;
    }
    return out;
  }

  /** The `meta` of trigram `key`'s entries, in list order; undefined without `meta`. */
  metaOf(key: number): Uint16Array | undefined {
    if (this.meta === undefined) return undefined;
    const n = this.length(key);
    const out = new Uint16Array(n);
    const { bytes, starts } = this.meta;
    let p = starts[key]!;
    for (let e = 0; e < n; e++) {
      const x = bytes[p++]!;
      out[e] = x < 0x80 ? x : (x & 0x7f) | (bytes[p++]! << 7);
    }
    return out;
  }

  /** An upper bound of the values `query` selects (no list is read). */
  estimate(query: GramQuery): number {
    if (query.op === "all") return this.valueCount;
    if (query.op === "or") {
      let sum = 0;
      for (const sub of query.subs) sum += this.estimate(sub);
      return Math.min(sum, this.valueCount);
    }
    let least = this.valueCount;
    for (const gram of query.grams) least = Math.min(least, this.length(gram));
    for (const sub of query.subs) least = Math.min(least, this.estimate(sub));
    return least;
  }

  /**
   * The ids of the string values that may satisfy `query`, ascending (undefined: every value). A superset:
   * the caller checks each with the pattern.
   */
  candidates(query: GramQuery): Int32Array | undefined {
    if (query.op === "all") return undefined;
    if (query.op === "or") {
      let union: Int32Array | undefined;
      for (const sub of query.subs) {
        const part = this.candidates(sub);
        if (part === undefined) return undefined;
        union = union === undefined ? part : unite(union, part);
      }
      return union ?? new Int32Array(0);
    }
    // Shortest first; a list is read (unpacked) only when it is intersected.
    const grams = [...query.grams].sort((a, b) => this.length(a) - this.length(b));
    let result: Int32Array | undefined;
    for (const gram of grams.slice(0, MAX_AND_LISTS)) {
      const length = this.length(gram);
      if (result !== undefined && (result.length <= FEW_CANDIDATES || length > WIDE_LIST * result.length)) {
        break; // the lists left are longer: checking the few candidates costs less than intersecting
      }
      const before = result?.length ?? 0;
      const list = this.idsOf(gram);
      result = result === undefined ? list : intersect(result, list);
      if (result.length === 0) return result;
      // The lists are the trigrams of one text: once one removes less than an eighth of the candidates, the
      // longer ones left narrow as little, and checking a candidate costs less than merging the lists.
      if (before > 0 && result.length > before - (before >>> 3)) break;
    }
    for (const sub of query.subs) {
      if (result !== undefined && (result.length <= FEW_CANDIDATES || this.estimate(sub) >= result.length))
        continue;
      const part = this.candidates(sub);
      if (part === undefined) continue;
      result = result === undefined ? part : intersect(result, part);
    }
    return result;
  }
}
