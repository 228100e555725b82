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

/** For each trigram key, the ids of the distinct string values holding it, ascending. */
export class GramIndex {
  constructor(
    readonly offsets: Int32Array,
    readonly ids: Int32Array,
    /** Number of distinct values when built. */
    readonly valueCount: number,
    /**
     * Per entry of `ids` (when it fits the budget): where the trigram first occurs in the value and how it
     * is written there — bits 0–7 its offset in UTF-16 units (255: at 255 or later), bits 8–13 the
     * `foldVariant` of its three characters (2 bits each, first character lowest). Lets `proveLiteral`
     * answer a literal from the lists alone.
     */
    readonly meta?: Uint16Array,
  ) {}

  /** Number of values holding trigram `key`. */
  length(key: number): number {
    return this.offsets[key + 1]! - this.offsets[key]!;
  }

  bytes(): number {
    return this.offsets.byteLength + this.ids.byteLength + (this.meta?.byteLength ?? 0);
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
    const lists: Int32Array[] = query.grams.map((gram) =>
      this.ids.subarray(this.offsets[gram]!, this.offsets[gram + 1]!),
    );
    lists.sort((a, b) => a.length - b.length);
    let result: Int32Array | undefined;
    for (const list of lists.slice(0, MAX_AND_LISTS)) {
      if (
        result !== undefined &&
        (result.length <= FEW_CANDIDATES || list.length > WIDE_LIST * result.length)
      ) {
        break; // the lists left are longer: checking the few candidates costs less than intersecting
      }
      const before = result?.length ?? 0;
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
