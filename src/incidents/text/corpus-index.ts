/**
 * The text index of a text column (text/index.ts has the map): over the distinct values, a corpus (the
 * values joined in one string, with their offsets), its ASCII-lowercased copy, the kind of each value, and
 * the trigram lists (gram-index.ts); and its build, in two passes over the values, within the set's budget
 * of bytes (past it, nothing is kept: the field has no index and its patterns run on rows).
 */

import { GRAM_KEYS, getFoldTable, getVariantTable, OPAQUE } from "./fold.js";
import { GramIndex, type PackedLists } from "./gram-index.js";

/** `TextIndex.kinds`: a string value of ASCII characters only. */
export const KIND_ASCII = 0;

/** `TextIndex.kinds`: a string value with a character outside ASCII. */
export const KIND_NON_ASCII = 1;

/** `TextIndex.kinds`: a value that is not a string (a number or a boolean: empty text in the corpus). */
export const KIND_NOT_STRING = 2;

/** Separates the values in a corpus (a literal match must lie within one value: checked by offsets). */
const SEPARATOR = "\u0000";

/** The longest corpus kept (characters): well below the engine's string length limit. */
const MAX_CORPUS = 1 << 28;

/**
 * The text index of a text column, over the values with ids `0 … count-1`:
 * - `grams`: the trigram lists (`GramIndex`), with where each trigram first occurs in each value
 *   (`GramIndex.meta`) when that fits the budget: a literal is then answered from the lists (`proveLiteral`);
 * - `starts`: value `id` spans `[starts[id], starts[id + 1] - 1)` of the corpus (its length is read there);
 * - `corpus` (when it fits the budget beside the lists): the values joined in one string (non-string values
 *   as empty text); a literal is checked on it with the engine's native string search (`checkLiteral`);
 * - `kinds`: per id, `KIND_ASCII`, `KIND_NON_ASCII` (a case-insensitive literal is then left to the pattern
 *   itself: only ASCII folding is exact on the corpus) or `KIND_NOT_STRING`.
 * The ASCII-lowercased corpus, for case-insensitive literals (`lowered()`), is built with the index of a
 * large set (`TextColumn.buildIndex`) when the budget allows, else by the first such literal.
 */
export class TextIndex {
  private loweredCache: string | null | undefined;
  /** `newlineIds`' answer: undefined before its first use, null when it did not fit the budget. */
  private newlineCache: Int32Array | null | undefined;

  constructor(
    /** The values joined by `SEPARATOR`; undefined when it did not fit the budget beside the lists. */
    readonly corpus: string | undefined,
    readonly starts: Int32Array,
    readonly kinds: Uint8Array,
    readonly grams: GramIndex,
    /** The number of value ids covered. */
    readonly count: number,
    /** Bytes per corpus character: 1 when every character is Latin-1, else 2 (the engine's two string forms). */
    private readonly charBytes: 1 | 2,
    /** Whether any value has a non-ASCII character. */
    private readonly anyNonAscii: boolean,
    private readonly budget: { remaining: number },
  ) {}

  /** Bytes held: the corpus (and its lowered copy when built), the offsets, the flags, the trigram lists. */
  bytes(): number {
    const corpus = this.corpus === undefined ? 0 : this.corpus.length * this.charBytes;
    return (
      corpus * (this.loweredCache ? 2 : 1) +
      this.starts.byteLength +
      this.kinds.byteLength +
      this.grams.bytes() +
      (this.newlineCache?.byteLength ?? 0)
    );
  }

  /**
   * Ids of the values holding `\n`, ascending (a chain whose gaps cannot hold one is proved only on the
   * others, `proveChain`): found in the corpus on first use, one native search per such value, then kept
   * (4 bytes each, in `bytes`, charged to the set's budget as the lowered corpus is); undefined when the
   * index has no corpus or they do not fit the budget (the chain's values are then checked one by one).
   */
  newlineIds(): Int32Array | undefined {
    if (this.newlineCache !== undefined) return this.newlineCache ?? undefined;
    const { corpus, starts } = this;
    if (corpus === undefined) return undefined;
    const found: number[] = [];
    for (let at = corpus.indexOf("\n"); at >= 0; ) {
      // The value whose span holds `at`: the last id starting at or before it.
      let lo = 0;
      let hi = this.count - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      found.push(lo);
      at = corpus.indexOf("\n", starts[lo + 1]!);
    }
    if (4 * found.length > this.budget.remaining) {
      this.newlineCache = null;
      return undefined;
    }
    this.budget.remaining -= 4 * found.length;
    this.newlineCache = Int32Array.from(found);
    return this.newlineCache;
  }

  /**
   * The corpus with ASCII letters lowercased (other characters kept; same offsets), built with the index by
   * `TextColumn.buildIndex` when it fits the set's budget beside it, else on first use if it fits then;
   * undefined when it does not fit, or the index has no corpus.
   */
  lowered(): string | undefined {
    if (this.loweredCache !== undefined) return this.loweredCache ?? undefined;
    if (this.corpus === undefined) return undefined;
    const size = this.corpus.length * this.charBytes;
    if (size > this.budget.remaining) {
      this.loweredCache = null;
      return undefined;
    }
    this.lowerNow();
    this.budget.remaining -= size;
    return this.loweredCache ?? undefined;
  }

  /** Builds the lowered corpus without charging the budget (the index being built is charged as a whole). */
  lowerNow(): void {
    const corpus = this.corpus;
    if (corpus === undefined) return;
    // `toLowerCase` keeps the length of ASCII text; values with other characters keep their text (their
    // case-insensitive answers come from the pattern itself, see `checkLiteral`).
    let lowered: string;
    if (!this.anyNonAscii) lowered = corpus.toLowerCase();
    else {
      const parts: string[] = new Array(this.count);
      for (let id = 0; id < this.count; id++) {
        const text = corpus.slice(this.starts[id], this.starts[id + 1]! - 1);
        parts[id] = this.kinds[id] === KIND_ASCII ? text.toLowerCase() : text;
      }
      lowered = parts.join(SEPARATOR);
    }
    this.loweredCache = lowered;
  }
}

/**
 * Builds the text index of `values` (see `TextIndex`), or returns null when its lists alone would take more
 * than `budget` bytes (then nothing is kept). Two passes over the values: count each trigram's values, then
 * fill the lists. Then, each only when it fits the budget with what came before: the lists' `meta`, the
 * corpus, and (`withLowered`) the lowered corpus.
 */
export function buildTextIndex(
  values: readonly unknown[],
  budget: { remaining: number },
  withLowered: boolean,
): TextIndex | null {
  const count = values.length;
  let chars = 0;
  for (let id = 0; id < count; id++) {
    const value = values[id];
    chars += (typeof value === "string" ? value.length : 0) + 1;
  }
  // The offsets and lists alone must fit (checked again below, with the lists' length).
  if (chars > MAX_CORPUS || 5 * (count + 1) + (GRAM_KEYS + 1) * 4 > budget.remaining) return null;
  const kinds = new Uint8Array(count);
  const counts = new Int32Array(GRAM_KEYS + 1);
  const last = new Int32Array(GRAM_KEYS).fill(-1);
  const fold = getFoldTable();
  const variant = getVariantTable();
  // The lists are packed (gram-index.ts): per key, the bytes of its ids' gaps and of its entries' `meta`.
  const idBytes = new Int32Array(GRAM_KEYS + 1);
  const metaBytes = new Int32Array(GRAM_KEYS + 1);
  // What the lists take besides their packed entries: pass 1 stops as soon as they cannot fit.
  const fixedBytes = (count + 1) * 4 + count + (GRAM_KEYS + 1) * 12;
  const maxBytes = budget.remaining - fixedBytes;
  let packedIds = 0;
  let packedMeta = 0;
  let wide = 0;
  let anyNonAscii = false;
  // Pass 1, over the values themselves (no corpus is built for an index that will not fit): how many
  // values hold each trigram (each value counted once per trigram) and the bytes their entries take packed;
  // which values are not ASCII.
  for (let id = 0; id < count; id++) {
    const value = values[id];
    if (typeof value !== "string") {
      kinds[id] = KIND_NOT_STRING;
      continue;
    }
    const to = value.length;
    let high = 0;
    for (let k = 0; k < to; k++) high |= value.charCodeAt(k);
    if (high > 0x7f) {
      kinds[id] = KIND_NON_ASCII;
      anyNonAscii = true;
      wide |= high;
    }
    if (to < 3) continue;
    let ua = value.charCodeAt(0);
    let ub = value.charCodeAt(1);
    let a = fold[ua]!;
    let b = fold[ub]!;
    for (let k = 2; k < to; k++) {
      const uc = value.charCodeAt(k);
      const c = fold[uc]!;
      if (a !== OPAQUE && b !== OPAQUE && c !== OPAQUE) {
        const key = (a << 12) | (b << 6) | c;
        const previous = last[key]!;
        if (previous !== id) {
          last[key] = id;
          counts[key + 1]!++;

          const gapBytes = varintBytes(id - previous);
          idBytes[key + 1]! += gapBytes;
          packedIds += gapBytes;
          const m = metaOf(k - 2, variant[ua]! | (variant[ub]! << 2) | (variant[uc]! << 4));
          const mBytes = m < 0x80 ? 1 : 2;
          metaBytes[key + 1]! += mBytes;
          packedMeta += mBytes;
        }
      }
      a = b;
      b = c;
      ua = ub;
      ub = uc;
    }
    if (packedIds > maxBytes) return null;
  }
  const parts: string[] = new Array(count);
  const starts = new Int32Array(count + 1);
  let at = 0;
  for (let id = 0; id < count; id++) {
    const value = values[id];
    const text = typeof value === "string" ? value : "";
    parts[id] = text;
    starts[id] = at;
    at += text.length + 1;
  }
  starts[count] = at;
  const corpus = parts.join(SEPARATOR);
  const charBytes: 1 | 2 = wide > 0xff ? 2 : 1;
  const listBytes = starts.byteLength + kinds.byteLength + (GRAM_KEYS + 1) * 8 + packedIds;
  if (listBytes > budget.remaining || packedIds + packedMeta >= 2 ** 31) return null;
  const withMeta = listBytes + (GRAM_KEYS + 1) * 4 + packedMeta <= budget.remaining;
  const corpusBytes = corpus.length * charBytes;
  const withCorpus =
    listBytes + (withMeta ? (GRAM_KEYS + 1) * 4 + packedMeta : 0) + corpusBytes <= budget.remaining;
  for (let key = 0; key < GRAM_KEYS; key++) {
    counts[key + 1]! += counts[key]!;
    idBytes[key + 1]! += idBytes[key]!;
    metaBytes[key + 1]! += metaBytes[key]!;
  }
  const offsets = counts;
  const ids: PackedLists = { bytes: new Uint8Array(packedIds), starts: new Uint32Array(idBytes) };
  const meta: PackedLists | undefined = withMeta
    ? { bytes: new Uint8Array(packedMeta), starts: new Uint32Array(metaBytes) }
    : undefined;
  // The write cursors: the start of each key's bytes, moved on as its entries are written.
  const idAt = idBytes;
  const metaAt = metaBytes;
  const idOut = ids.bytes;
  const metaOut = meta?.bytes;
  last.fill(-1);
  // Pass 2: the value ids, ascending within each trigram; with where each first occurs and how it is written.
  for (let id = 0; id < count; id++) {
    const from = starts[id]!;
    const to = starts[id + 1]! - 1;
    if (to - from < 3) continue;
    let ua = corpus.charCodeAt(from);
    let ub = corpus.charCodeAt(from + 1);
    let a = fold[ua]!;
    let b = fold[ub]!;
    for (let k = from + 2; k < to; k++) {
      const uc = corpus.charCodeAt(k);
      const c = fold[uc]!;
      if (a !== OPAQUE && b !== OPAQUE && c !== OPAQUE) {
        const key = (a << 12) | (b << 6) | c;
        const previous = last[key]!;
        if (previous !== id) {
          last[key] = id;
          let gap = id - previous;
          let p = idAt[key]!;
          while (gap >= 0x80) {
            idOut[p++] = (gap & 0x7f) | 0x80;
            gap >>>= 7;
          }
          idOut[p++] = gap;
          idAt[key] = p;
          if (metaOut !== undefined) {
            const m = metaOf(k - 2 - from, variant[ua]! | (variant[ub]! << 2) | (variant[uc]! << 4));
            let q = metaAt[key]!;
            if (m < 0x80) metaOut[q++] = m;
            else {
              metaOut[q++] = (m & 0x7f) | 0x80;
              metaOut[q++] = m >>> 7;
            }
            metaAt[key] = q;
          }
        }
      }
      a = b;
      b = c;
      ua = ub;
      ub = uc;
    }
  }
  const index = new TextIndex(
    withCorpus ? corpus : undefined,
    starts,
    kinds,
    new GramIndex(offsets, ids, count, meta),
    count,
    charBytes,
    anyNonAscii,
    budget,
  );
  // The lowered corpus too, when asked and it fits beside the rest: no case-insensitive literal pays for it.
  if (withCorpus && withLowered && index.bytes() + corpusBytes <= budget.remaining) index.lowerNow();
  return index;
}

/** A `meta` entry (`GramIndex.meta`): where the trigram first occurs (255: at 255 or later), its variants. */
function metaOf(where: number, variants: number): number {
  return Math.min(where, 255) | (variants << 8);
}

/** Bytes of `n` (≥ 1) as a varint. */
function varintBytes(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}
