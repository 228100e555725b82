/**
 * The text index of an `IncidentSet`: `$regex` on a text field with many distinct values (titles, host
 * names) answered through columns instead of a pass over the records (issue 14; Russ Cox, "Regular
 * Expression Matching with a Trigram Index"; PostgreSQL `pg_trgm`).
 *
 * - `TextColumn`: a field's scalar values as value ids (`Int32Array`, one per row) over an unbounded
 *   dictionary of distinct values, with the rows per value. A dictionary column that outgrows
 *   `maxDictionary` becomes a text column instead of being dropped (IncidentSet's `textIndex` option).
 * - `TextIndex`: over the distinct values, a corpus (the values joined in one string, with their offsets),
 *   its ASCII-lowercased copy, and a `GramIndex`: for each trigram of case-folded text, the ids of the
 *   distinct string values that hold it (ascending). Built with a large set (`TextColumn.buildIndex`) or by
 *   the first `$regex` query of the field, kept across adds (values added later are tested one by one until
 *   they outnumber an eighth of it, then it is built again), and never larger than the set's
 *   `textIndex.maxBytes` (past it the field has no index and its patterns run on rows).
 * - `checkLiteral`: a literal pattern (`^…`, `…$`, with or without `i`) checked on the candidates' spans of
 *   the corpus with the engine's native string search, exactly; other patterns are tested once per candidate
 *   value by the planner (`TextLeaf`).
 * - `regexGramQuery`: the trigrams a value must hold for a pattern to match it, read from RE2's parse tree of
 *   the pattern (`parseRegexTree`): literals, small character classes, concatenation, alternation and
 *   repetition, as an AND/OR query over trigrams. A pattern with no required literal of three characters
 *   gives `ALL` (the index cannot narrow it).
 *
 * Soundness (the trigram lists only narrow; every candidate is checked with the pattern or, for a literal,
 * on its exact text in the corpus): values and
 * pattern literals are folded alike, one UTF-16 unit at a time, to 64 symbols: ASCII letters to lower case,
 * digits, the other ASCII characters into 27 shared classes, the Kelvin sign to `k` and the long s to `s`
 * (the only non-ASCII characters RE2's case folding equates with ASCII ones), and every other character to a
 * symbol that no query trigram contains. So a value the pattern matches, with or without `i`, holds every
 * trigram the query asks for.
 */

import type { RegexChain } from "../conditions/regex/chain.js";
import type { RegexLiteral } from "../conditions/regex/matcher.js";
import { parseRegexTree, REGEX_OP, type RegexTreeNode, regexFlagBits } from "../conditions/regex/program.js";
import {
  CODE_COMPLEX,
  CODE_MISSING,
  CODE_NULL,
  type DictionaryColumn,
  hashAscii,
  ValueIds,
} from "./columns.js";
import type { BudgetTimer } from "./search-budget.js";

/** Value id of a row whose field is missing. */
export const TEXT_MISSING = -1;
/** Value id of a row whose field is `null`. */
export const TEXT_NULL = -2;
/** Value id of a row whose field holds an array or an object (or could not be read): the row predicate decides. */
export const TEXT_COMPLEX = -3;

/**
 * The default bound of a set's text indexes, in bytes (all fields together): 320 MiB, so that the trigram
 * lists, their records and the corpus of 1M generated titles (about 900,000 distinct, 304 MiB with the
 * lowered corpus) fit (docs/semantics.md, "The text index").
 */
export const DEFAULT_TEXT_INDEX_BYTES = 320 * 1024 * 1024;

/** `TextIndex.kinds`: a string value of ASCII characters only. */
export const KIND_ASCII = 0;
/** `TextIndex.kinds`: a string value with a character outside ASCII. */
export const KIND_NON_ASCII = 1;
/** `TextIndex.kinds`: a value that is not a string (a number or a boolean: empty text in the corpus). */
export const KIND_NOT_STRING = 2;

/** The folded symbol no query trigram contains (non-ASCII characters other than the two folding ones). */
const OPAQUE = 63;
/** Trigram keys: three 6-bit symbols. */
const GRAM_KEYS = 1 << 18;

/**
 * The folded symbol of one UTF-16 unit or code point (see the file comment): 0–25 letters (case-folded),
 * 26–35 digits, 36–62 other ASCII, 63 anything else.
 */
export function foldSymbol(c: number): number {
  if (c >= 97 && c <= 122) return c - 97;
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 48 && c <= 57) return c - 22;
  if (c < 128) return 36 + (c % 27);
  if (c === 0x212a) return 10; // KELVIN SIGN folds with k
  if (c === 0x17f) return 18; // LATIN SMALL LETTER LONG S folds with s
  return OPAQUE;
}

/** `foldSymbol` of every UTF-16 unit (64 KiB, built on the first trigram index). */
let foldTable: Uint8Array | undefined;

function getFoldTable(): Uint8Array {
  if (foldTable === undefined) {
    foldTable = new Uint8Array(0x10000);
    for (let c = 0; c < 0x10000; c++) foldTable[c] = foldSymbol(c);
  }
  return foldTable;
}

/**
 * The variant of a character within its folded symbol (see `GramIndex.meta`): 0 for a lower-case ASCII letter,
 * a digit, or the first printable ASCII character of its shared symbol; 1 for an upper-case ASCII letter; 2
 * for any other character (the other ASCII characters of a shared symbol, the Kelvin sign, the long s, and
 * characters that fold to `OPAQUE`, which no trigram holds). A symbol and a variant 0 or 1 name one character.
 */
export function foldVariant(c: number): number {
  if (c >= 97 && c <= 122) return 0;
  if (c >= 65 && c <= 90) return 1;
  if (c >= 48 && c <= 57) return 0;
  if (c >= 128) return 2;
  // The first printable (32–126) non-alphanumeric ASCII character with the same `c % 27` is canonical.
  for (let d = c % 27; d < c; d += 27) {
    const alnum = (d >= 48 && d <= 57) || (d >= 65 && d <= 90) || (d >= 97 && d <= 122);
    if (d >= 32 && !alnum) return 2;
  }
  return c >= 32 && c <= 126 ? 0 : 2;
}

/** `foldVariant` of every ASCII character (built with the fold table). */
let variantTable: Uint8Array | undefined;

function getVariantTable(): Uint8Array {
  if (variantTable === undefined) {
    variantTable = new Uint8Array(0x10000).fill(2);
    for (let c = 0; c < 128; c++) variantTable[c] = foldVariant(c);
  }
  return variantTable;
}

/** A query over trigrams: every value (`all`), all of `grams` and `subs`, or any of `subs`. */
export type GramQuery =
  | { readonly op: "all" }
  | { readonly op: "and"; readonly grams: readonly number[]; readonly subs: readonly GramQuery[] }
  | { readonly op: "or"; readonly subs: readonly GramQuery[] };

/** The query that does not narrow. */
export const ALL: GramQuery = { op: "all" };

function andOf(grams: readonly number[], subs: readonly GramQuery[]): GramQuery {
  const keys = new Set(grams);
  const rest: GramQuery[] = [];
  for (const sub of subs) {
    if (sub.op === "all") continue;
    if (sub.op === "and") {
      for (const gram of sub.grams) keys.add(gram);
      rest.push(...sub.subs);
    } else rest.push(sub);
  }
  if (keys.size === 0 && rest.length === 0) return ALL;
  if (keys.size === 0 && rest.length === 1) return rest[0]!;
  return { op: "and", grams: [...keys], subs: rest };
}

function orOf(subs: readonly GramQuery[]): GramQuery {
  const out: GramQuery[] = [];
  for (const sub of subs) {
    if (sub.op === "all") return ALL;
    if (sub.op === "or") out.push(...sub.subs);
    else out.push(sub);
  }
  if (out.length === 1) return out[0]!;
  // Trigrams every branch requires are required by the OR: AND(common, OR(rest)).
  if (out.every((sub) => sub.op === "and")) {
    const branches = out as { op: "and"; grams: readonly number[]; subs: readonly GramQuery[] }[];
    const common = branches[0]!.grams.filter((gram) => branches.every((b) => b.grams.includes(gram)));
    if (common.length > 0) {
      const rest = branches.map((b) =>
        andOf(
          b.grams.filter((gram) => !common.includes(gram)),
          b.subs,
        ),
      );
      return andOf(common, rest.some((sub) => sub.op === "all") ? [] : [{ op: "or", subs: rest }]);
    }
  }
  return { op: "or", subs: out };
}

/** The trigram keys of a folded symbol string, without those holding `OPAQUE`. */
function gramsOf(symbols: string): number[] {
  const grams: number[] = [];
  for (let k = 0; k + 3 <= symbols.length; k++) {
    const a = symbols.charCodeAt(k);
    const b = symbols.charCodeAt(k + 1);
    const c = symbols.charCodeAt(k + 2);
    if (a !== OPAQUE && b !== OPAQUE && c !== OPAQUE) grams.push((a << 12) | (b << 6) | c);
  }
  return grams;
}

/** Any of the exact strings: OR over them of AND of their trigrams; `ALL` when one has none. */
function exactQuery(exact: readonly string[]): GramQuery {
  const subs: GramQuery[] = [];
  for (const s of exact) {
    const grams = gramsOf(s);
    if (grams.length === 0) return ALL;
    subs.push(andOf(grams, []));
  }
  return orOf(subs);
}

/** At most this many exact strings are tracked per node (then only their trigrams are kept). */
const MAX_EXACT = 16;

/**
 * What a pattern node tells about the values it matches: `exact`, the set of folded strings it can match
 * (when small), or else `match`, a query every matched value satisfies. (With `exact`, `match` is `ALL`.)
 */
interface Info {
  readonly exact?: readonly string[];
  readonly match: GramQuery;
}

const ANYTHING: Info = { match: ALL };
const EMPTY_STRING: Info = { exact: [""], match: ALL };

function full(info: Info): GramQuery {
  return info.exact === undefined ? info.match : exactQuery(info.exact);
}

function foldRunes(runes: ArrayLike<number>): string {
  let out = "";
  for (let k = 0; k < runes.length; k++) out += String.fromCharCode(foldSymbol(runes[k]!));
  return out;
}

function analyze(re: RegexTreeNode): Info {
  const op = re.op;
  switch (op) {
    case REGEX_OP.LITERAL:
      return { exact: [foldRunes(re.runes)], match: ALL };
    case REGEX_OP.EMPTY_MATCH:
    case REGEX_OP.BEGIN_LINE:
    case REGEX_OP.END_LINE:
    case REGEX_OP.BEGIN_TEXT:
    case REGEX_OP.END_TEXT:
    case REGEX_OP.WORD_BOUNDARY:
    case REGEX_OP.NO_WORD_BOUNDARY:
      return EMPTY_STRING;
    case REGEX_OP.CHAR_CLASS: {
      const symbols = new Set<number>();
      const runes = re.runes;
      for (let k = 0; k + 1 < runes.length; k += 2) {
        const lo = runes[k]!;
        const hi = runes[k + 1]!;
        if (hi - lo > 64) return ANYTHING;
        for (let c = lo; c <= hi; c++) symbols.add(foldSymbol(c));
        if (symbols.size > MAX_EXACT) return ANYTHING;
      }
      if (symbols.size === 0) return ANYTHING;
      return { exact: [...symbols].map((s) => String.fromCharCode(s)), match: ALL };
    }
    case REGEX_OP.CAPTURE:
      return analyze(re.subs[0]!);
    case REGEX_OP.QUEST: {
      const sub = analyze(re.subs[0]!);
      if (sub.exact !== undefined && sub.exact.length < MAX_EXACT) {
        return { exact: [...new Set([...sub.exact, ""])], match: ALL };
      }
      return ANYTHING;
    }
    case REGEX_OP.PLUS:
      return { match: full(analyze(re.subs[0]!)) };
    case REGEX_OP.REPEAT: {
      if (re.min === 0 && re.max === 0) return EMPTY_STRING;
      if (re.min === 1 && re.max === 1) return analyze(re.subs[0]!);
      return re.min >= 1 ? { match: full(analyze(re.subs[0]!)) } : ANYTHING;
    }
    case REGEX_OP.CONCAT: {
      let current: string[] = [""];
      const parts: GramQuery[] = [];
      let flushed = false;
      for (const child of re.subs) {
        const info = analyze(child);
        if (info.exact !== undefined && current.length * info.exact.length <= MAX_EXACT) {
          const next = new Set<string>();
          for (const a of current) for (const b of info.exact) next.add(a + b);
          current = [...next];
          continue;
        }
        parts.push(exactQuery(current));
        flushed = true;
        if (info.exact !== undefined) current = [...info.exact];
        else {
          parts.push(info.match);
          current = [""];
        }
      }
      if (!flushed) return { exact: current, match: ALL };
      parts.push(exactQuery(current));
      return { match: andOf([], parts) };
    }
    case REGEX_OP.ALTERNATE: {
      const infos = re.subs.map(analyze);
      if (infos.every((info) => info.exact !== undefined)) {
        const union = new Set<string>();
        for (const info of infos) for (const s of info.exact!) union.add(s);
        if (union.size <= MAX_EXACT) return { exact: [...union], match: ALL };
      }
      return { match: orOf(infos.map(full)) };
    }
    default:
      // `.`, `*`, an empty class: no constraint.
      return ANYTHING;
  }
}

/** Required-trigram queries by flags and pattern, at most `QUERY_CACHE_SIZE` (cleared when full). */
const queryCache = new Map<string, GramQuery>();
const QUERY_CACHE_SIZE = 512;

/**
 * The trigrams a string must hold for `$regex` `source` with `$options` `flags` to match it (see the file
 * comment): a query that never excludes a matching value. Case-folded, so one query serves `i` and not.
 * @param source - the pattern (RE2 syntax, already accepted by the parser)
 * @param flags - `$options` (`i`, `m`, `s`)
 * @returns the query; `ALL` when the pattern requires no literal of three characters, or cannot be parsed
 * @example regexGramQuery("^Phish", "i") //=> and of the trigrams of "phish"
 */
export function regexGramQuery(source: string, flags: string): GramQuery {
  const key = `${flags}/${source}`;
  const cached = queryCache.get(key);
  if (cached !== undefined) return cached;
  const bits = regexFlagBits(flags) ?? 0;
  let query: GramQuery;
  try {
    query = full(analyze(parseRegexTree(source, bits)));
  } catch {
    query = ALL;
  }
  if (queryCache.size >= QUERY_CACHE_SIZE) queryCache.clear();
  queryCache.set(key, query);
  return query;
}

/** The number of trigrams a query names (for `explain`). */
export function gramCount(query: GramQuery): number {
  if (query.op === "all") return 0;
  if (query.op === "and") return query.grams.length + query.subs.reduce((n, s) => n + gramCount(s), 0);
  return query.subs.reduce((n, s) => n + gramCount(s), 0);
}

// ---------------------------------------------------------------------------------------------------------
// Gram index

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

/** The union of two ascending id lists (each id once), ascending: a merge. */
function unite(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

/** The intersection of two ascending id lists: a merge, or binary probes when one is much shorter. */
function intersect(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length > b.length) return intersect(b, a);
  const out = new Int32Array(a.length);
  let n = 0;
  if (b.length > 16 * a.length) {
    let lo = 0;
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      let hi = b.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (b[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      if (lo < b.length && b[lo] === x) out[n++] = x;
    }
    return out.subarray(0, n);
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}

// ---------------------------------------------------------------------------------------------------------
// Text index: the corpus of distinct values and its trigram lists

/** Separates the values in a corpus (a literal match must lie within one value: checked by offsets). */
const SEPARATOR = "\u0000";
/** Values added after an index was built that are tested one by one before it is built again (at least). */
const REBUILD_MIN = 4096;
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
  private newlineCache: Int32Array | undefined;

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
   * (4 bytes each, in `bytes`); undefined when the index has no corpus.
   */
  newlineIds(): Int32Array | undefined {
    if (this.newlineCache !== undefined) return this.newlineCache;
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
function buildTextIndex(
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
  // What the lists take besides their entries (4 bytes each): pass 1 stops as soon as they cannot fit.
  const fixedBytes = (count + 1) * 4 + count + (GRAM_KEYS + 1) * 4;
  const maxEntries = Math.floor((budget.remaining - fixedBytes) / 4);
  let entries = 0;
  let wide = 0;
  let anyNonAscii = false;
  // Pass 1, over the values themselves (no corpus is built for an index that will not fit): how many
  // values hold each trigram (each value counted once per trigram); which are not ASCII.
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
    let a = fold[value.charCodeAt(0)]!;
    let b = fold[value.charCodeAt(1)]!;
    for (let k = 2; k < to; k++) {
      const c = fold[value.charCodeAt(k)]!;
      if (a !== OPAQUE && b !== OPAQUE && c !== OPAQUE) {
        const key = (a << 12) | (b << 6) | c;
        if (last[key] !== id) {
          last[key] = id;
          counts[key + 1]!++;
          entries++;
        }
      }
      a = b;
      b = c;
    }
    if (entries > maxEntries) return null;
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
  const listBytes = starts.byteLength + kinds.byteLength + (GRAM_KEYS + 1) * 4 + entries * 4;
  if (listBytes > budget.remaining) return null;
  const withMeta = listBytes + entries * 2 <= budget.remaining;
  const corpusBytes = corpus.length * charBytes;
  const withCorpus = listBytes + (withMeta ? entries * 2 : 0) + corpusBytes <= budget.remaining;
  for (let key = 0; key < GRAM_KEYS; key++) counts[key + 1]! += counts[key]!;
  const offsets = counts;
  const cursor = offsets.slice(0, GRAM_KEYS);
  const ids = new Int32Array(entries);
  const meta = withMeta ? new Uint16Array(entries) : undefined;
  const variant = getVariantTable();
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
        if (last[key] !== id) {
          last[key] = id;
          const entry = cursor[key]!++;
          ids[entry] = id;
          if (meta !== undefined) {
            const where = k - 2 - from;
            meta[entry] =
              Math.min(where, 255) | ((variant[ua]! | (variant[ub]! << 2) | (variant[uc]! << 4)) << 8);
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

/**
 * Answers a literal pattern (`analyzeLiteral`: plain text, `^text`, `text$`, `^text$`, with or without `i`)
 * for the candidate value ids of a text index, calling `accept(id)` for each id it matches and `undecided(id)`
 * for each id it cannot decide here (a case-insensitive literal on a value with non-ASCII characters: RE2's
 * Unicode folding, e.g. the Kelvin sign as `k`, is left to the pattern). Exact otherwise: a match must lie
 * within the value's span of the corpus (docs/semantics.md 1.4: a search, `^`/`$` at the value's ends).
 * Values that are not strings are passed over (neither accepted nor undecided: the caller tests them).
 * @param candidates - ids below `index.count`, ascending
 * @param timer - the query's budget timer, ticked once per candidate checked here
 * @throws {SearchTimeoutError} from `timer`
 * @returns false when the index has no corpus, or the lowered corpus a case-insensitive literal needs does not
 *   fit the budget (nothing was called: test the candidates with the pattern instead); true otherwise
 */
export function checkLiteral(
  index: TextIndex,
  literal: RegexLiteral,
  candidates: ArrayLike<number>,
  timer: BudgetTimer,
  accept: (id: number) => void,
  undecided: (id: number) => void,
): boolean {
  const corpus = literal.ignoreCase ? index.lowered() : index.corpus;
  if (corpus === undefined) return false; // no corpus within the budget
  const text = literal.ignoreCase ? literal.text.toLowerCase() : literal.text;
  const n = text.length;
  const { starts, kinds } = index;
  const ignoreCase = literal.ignoreCase;
  // Unanchored: the first occurrence at or after a value's start, reused while it lies ahead of the next
  // candidates (ids ascend, so do their starts): about one native search per matching value.
  let found = -1;
  let exhausted = false;
  for (let k = 0; k < candidates.length; k++) {
    const id = candidates[k]!;
    const kind = kinds[id]!;
    if (kind === KIND_NOT_STRING) continue; // the caller tests the values that are not strings
    if (ignoreCase && kind === KIND_NON_ASCII) {
      undecided(id);
      continue;
    }
    timer.tick();
    const start = starts[id]!;
    const end = starts[id + 1]! - 1;
    let match: boolean;
    if (literal.anchorStart && literal.anchorEnd) match = end - start === n && corpus.startsWith(text, start);
    else if (literal.anchorStart) match = end - start >= n && corpus.startsWith(text, start);
    else if (literal.anchorEnd) match = end - start >= n && corpus.startsWith(text, end - n);
    else {
      if (!exhausted && found < start) {
        found = corpus.indexOf(text, start);
        exhausted = found < 0;
      }
      match = !exhausted && found + n <= end;
    }
    if (match) accept(id);
  }
  return true;
}

/** One trigram of a literal's cover (`proveLiteral`): its list's entries, its offset in the literal, its written form. */
interface Cover {
  /** The trigram's offset in the literal. */
  readonly offset: number;
  /** Its list: entries `from … to - 1` of `GramIndex.ids` and `meta`. */
  readonly from: number;
  readonly to: number;
  /** The `meta` bits 8–13 the literal writes (`want`), of those that must agree (`mask`). */
  readonly want: number;
  readonly mask: number;
}

/**
 * Answers a literal chain (`RegexChain`: segments in order, anything between them) from the trigram lists,
 * as `proveLiteral` answers a literal: each string of the first segment is proved where it first occurs,
 * each string of a later segment only within the values holding the segments before (`proveLiteral` with `within`). A value
 * is accepted when, segment after segment, some string of it is proved to first occur at or after the end
 * of the previous segment's earliest proved end (its first occurrence then leaves the most room: the
 * greedy argument of `RegexChain`); the anchors apply to the first and the last segment. When the gaps
 * cannot hold `\n` (no `s`), a value holding one is left undecided. Every other value holding the trigrams of
 * some string of every segment is undecided; a value lacking them for one segment cannot match. Exact as
 * `proveLiteral` is, for ASCII and other values alike (the lists record places in UTF-16 units of the
 * value itself, and `ignoreCase` folds as RE2's simple folding does); docs/semantics.md 1.7.
 * @returns undefined when a string of a segment cannot be proved from the lists (see `proveLiteral`), or the
 *   segments hold more than `MAX_CHAIN_PROOFS` (32) strings together
 * @throws {SearchTimeoutError} from `timer`
 */
export function proveChain(
  index: TextIndex,
  chain: RegexChain,
  timer: BudgetTimer,
  values?: readonly unknown[],
): LiteralProof | undefined {
  const { segments } = chain;
  const last = segments.length - 1;
  let proofs = 0;
  for (const segment of segments) proofs += segment.length;
  if (last < 0 || proofs > MAX_CHAIN_PROOFS) return undefined;
  let held: Int32Array | undefined;
  // The values proved so far, ascending, with where their proved segments end.
  let proved: Int32Array = NO_IDS;
  let ends: Int32Array = NO_IDS;
  for (let s = 0; s <= last; s++) {
    let segmentHeld: Int32Array = NO_IDS;
    let segmentProved: Int32Array = NO_IDS;
    let segmentEnds: Int32Array = NO_IDS;
    for (const text of segments[s]!) {
      const literal: RegexLiteral = {
        text,
        anchorStart: chain.anchorStart && s === 0,
        anchorEnd: chain.anchorEnd && s === last,
        ignoreCase: chain.ignoreCase,
      };
      const proof = proveLiteral(index, literal, timer, values, held);
      if (proof === undefined) return undefined;
      segmentHeld = unite(segmentHeld, unite(proof.accepted, proof.undecided));
      const [ids, after] =
        s === 0 ? placedEnds(proof, text.length) : follow(proved, ends, proof, text.length);
      [segmentProved, segmentEnds] = earliestEnds(segmentProved, segmentEnds, ids, after);
    }
    timer.tick(segmentHeld.length);
    held = segmentHeld;
    proved = segmentProved;
    ends = segmentEnds;
    if (held.length === 0) break;
  }
  let accepted = proved;
  if (last > 0 && !chain.gapsMatchNewline) {
    const newlines = index.newlineIds();
    accepted = newlines === undefined ? NO_IDS : exclude(accepted, newlines);
  }
  const all = held ?? NO_IDS;
  // `accepted` is a subset of `all`: of the same length, it is all of it.
  const undecided = accepted.length === all.length ? NO_IDS : exclude(all, accepted);
  return { held: all.length, accepted, undecided };
}

const NO_IDS = new Int32Array(0);

/**
 * The most strings (of all segments together) a chain is proved for (`proveChain`): each costs a pass over
 * lists, so a chain of more is answered as any other pattern (its candidates tested one by one).
 */
const MAX_CHAIN_PROOFS = 32;

/** The accepted values of a first segment's proof, with where the literal ends in each. */
function placedEnds(proof: PlacedProof, length: number): [Int32Array, Int32Array] {
  const ends = new Int32Array(proof.at.length);
  for (let k = 0; k < ends.length; k++) ends[k] = proof.at[k]! + length;
  return [proof.accepted, ends];
}

/**
 * The values proved for the segments before (`ids`, with where they end) whose literal of this segment
 * (`proof`) first occurs at or after that end, with where it ends: both lists ascending, walked together.
 */
function follow(
  ids: Int32Array,
  ends: Int32Array,
  proof: PlacedProof,
  length: number,
): [Int32Array, Int32Array] {
  const { accepted, at } = proof;
  const outIds = new Int32Array(Math.min(ids.length, accepted.length));
  const outEnds = new Int32Array(outIds.length);
  let n = 0;
  let i = 0;
  for (let k = 0; k < accepted.length && i < ids.length; k++) {
    const id = accepted[k]!;
    while (i < ids.length && ids[i]! < id) i++;
    if (i < ids.length && ids[i] === id && at[k]! >= ends[i]!) {
      outIds[n] = id;
      outEnds[n++] = at[k]! + length;
    }
  }
  return [outIds.subarray(0, n), outEnds.subarray(0, n)];
}

/** The union of two ascending id lists with their ends, keeping the earlier end of an id in both. */
function earliestEnds(
  a: Int32Array,
  aEnds: Int32Array,
  b: Int32Array,
  bEnds: Int32Array,
): [Int32Array, Int32Array] {
  if (a.length === 0) return [b, bEnds];
  if (b.length === 0) return [a, aEnds];
  const ids = new Int32Array(a.length + b.length);
  const ends = new Int32Array(ids.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : 0x7fffffff;
    const y = j < b.length ? b[j]! : 0x7fffffff;
    if (x < y) {
      ids[n] = x;
      ends[n++] = aEnds[i++]!;
    } else if (y < x) {
      ids[n] = y;
      ends[n++] = bEnds[j++]!;
    } else {
      ids[n] = x;
      ends[n++] = Math.min(aEnds[i++]!, bEnds[j++]!);
    }
  }
  return [ids.subarray(0, n), ends.subarray(0, n)];
}

/** The ids of ascending list `a` that ascending list `b` lacks. */
function exclude(a: Int32Array, b: Int32Array): Int32Array {
  if (b.length === 0) return a;
  const out = new Int32Array(a.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const id = a[i]!;
    while (j < b.length && b[j]! < id) j++;
    if (j === b.length || b[j] !== id) out[n++] = id;
  }
  return out.subarray(0, n);
}

/**
 * `proveLiteral`'s first list: its ids become the candidates, each with where the literal would start
 * (`base`) and whether the trigram is proved there (`proved`). Returns the candidates kept (a `^` literal
 * drops values whose trigram first occurs past its offset). A loop of its own, so that the engine optimizes
 * it once for every query.
 */
function seedCandidates(
  ids: Int32Array,
  meta: Uint16Array,
  cover: Cover,
  anchorStart: boolean,
  cand: Int32Array,
  base: Int32Array,
  proved: Uint8Array,
): number {
  const { offset, want, mask, to } = cover;
  let m = 0;
  for (let e = cover.from; e < to; e++) {
    const info = meta[e]!;
    const where = info & 255;
    if (anchorStart && where > offset) continue; // first seen past where `^` needs it
    cand[m] = ids[e]!;
    base[m] = where - offset;
    proved[m] = where < 255 && (info & mask) === want ? 1 : 0;
    m++;
  }
  return m;
}

/**
 * `seekId` with `gallop` walks this many entries before it gallops: the next candidate is most often a few
 * entries on, in the cache line just read, where a walk costs less than a gallop's chain of dependent reads.
 */
const SEEK_WALK = 16;

/**
 * The first entry at or after `e` (below `end`) whose id is not below `id`: a walk, or with `gallop` a walk
 * of up to `SEEK_WALK` entries, then an exponential search then a binary one (about log(gap) reads).
 */
function seekId(ids: Int32Array, e: number, end: number, id: number, gallop: boolean): number {
  if (!gallop) {
    while (e < end && ids[e]! < id) e++;
    return e;
  }
  const near = Math.min(end, e + SEEK_WALK);
  while (e < near && ids[e]! < id) e++;
  if (e < near) return e;
  let step = 1;
  let hi = e;
  while (hi < end && ids[hi]! < id) {
    e = hi + 1;
    hi += step;
    step <<= 1;
  }
  if (hi > end) hi = end;
  while (e < hi) {
    const mid = (e + hi) >>> 1;
    if (ids[mid]! < id) e = mid + 1;
    else hi = mid;
  }
  return e;
}

/** `base` of a candidate not placed yet: `narrowCandidates` places it where its list's trigram first occurs. */
const UNPLACED = -0x80000000;

/**
 * `proveLiteral`'s next list: keeps the first `m` candidates that hold this trigram too (compacted in place),
 * proved only while every trigram so far first occurs where the literal places it; a candidate still
 * `UNPLACED` (seeded from a list of ids) is placed by this list. Walks the list, or gallops through it when
 * it is much longer than the candidates. Returns the candidates kept.
 */
function narrowCandidates(
  ids: Int32Array,
  meta: Uint16Array,
  cover: Cover,
  anchorStart: boolean,
  cand: Int32Array,
  base: Int32Array,
  proved: Uint8Array,
  m: number,
): number {
  const { offset, want, mask } = cover;
  const end = cover.to;
  let out = 0; // kept candidates are compacted in place (out ≤ k)
  let e = cover.from;
  const gallop = end - e > 4 * m;
  for (let k = 0; k < m && e < end; k++) {
    const id = cand[k]!;
    e = seekId(ids, e, end, id, gallop);
    if (e === end || ids[e] !== id) continue;
    const info = meta[e]!;
    const where = info & 255;
    e++;
    if (anchorStart && where > offset) continue;
    const placed = base[k]!;
    const at = placed === UNPLACED ? where - offset : placed;
    cand[out] = id;
    base[out] = at;
    proved[out] = proved[k] === 1 && where < 255 && where - offset === at && (info & mask) === want ? 1 : 0;
    out++;
  }
  return out;
}

/** What `proveLiteral` answers: every value holding the literal's trigrams is in exactly one of the lists. */
export interface LiteralProof {
  /** The number of values holding the literal's trigrams (`accepted.length + undecided.length`). */
  readonly held: number;
  /** Ids of values that hold the literal, ascending. */
  readonly accepted: Int32Array;
  /** Ids of values the lists cannot decide (the pattern must), ascending. */
  readonly undecided: Int32Array;
}

/** A `LiteralProof` with where the literal first occurs in each accepted value (`proveLiteral`). */
interface PlacedProof extends LiteralProof {
  /** Per accepted value (same index): the UTF-16 offset of the literal's first occurrence in it. */
  readonly at: Int32Array;
}

/** A literal shorter than this is not proved from the lists (`proveLiteral`): too few trigrams. */
const PROVE_MIN_LENGTH = 3;

/**
 * The trigrams of `literal` that `proveLiteral` reads (at offsets 0, 3, 6, … and `length - 3`, covering every
 * character), each with its list in `index` and how the literal writes it; undefined when the literal cannot
 * be proved from the lists (no `meta`, fewer than three characters, or a character no trigram records as
 * written).
 */
function literalCovers(index: TextIndex, literal: RegexLiteral): Cover[] | undefined {
  const text = literal.text;
  const n = text.length;
  if (index.grams.meta === undefined || n < PROVE_MIN_LENGTH) return undefined;
  const symbols: number[] = [];
  const variants: number[] = [];
  const strict: boolean[] = []; // whether the character's variant must match too
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(k);
    const symbol = foldSymbol(c);
    if (symbol === OPAQUE) return undefined;
    const v = c < 128 ? foldVariant(c) : 2;
    const letter = symbol < 26;
    const mustMatch = !(literal.ignoreCase && letter);
    if (mustMatch && v === 2) return undefined;
    symbols.push(symbol);
    variants.push(v);
    strict.push(mustMatch);
  }
  const covers: number[] = [];
  for (let o = 0; o + 3 <= n; o += 3) covers.push(o);
  if (covers[covers.length - 1] !== n - 3) covers.push(n - 3);
  const { offsets } = index.grams;
  return covers.map((o) => {
    const key = (symbols[o]! << 12) | (symbols[o + 1]! << 6) | symbols[o + 2]!;
    let want = 0;
    let mask = 0;
    for (let j = 0; j < 3; j++) {
      if (strict[o + j]) {
        want |= variants[o + j]! << (2 * j);
        mask |= 3 << (2 * j);
      }
    }
    return { offset: o, from: offsets[key]!, to: offsets[key + 1]!, want: want << 8, mask: mask << 8 };
  });
}

/** How many lists after the first `orderCovers` picks by distance (the rest stay shortest first). */
const FARTHEST_PICKS = 4;

/**
 * The order `proveLiteral` reads a literal's lists in (sorted in place): the shortest first, then, for the
 * next `FARTHEST_PICKS`, each time the list whose trigram lies farthest from those already read (the
 * shorter on a tie), then the rest shortest first. Trigrams of one word hold in nearly the same values, so
 * a list next to one already read rarely narrows the candidates, while every list read costs a pass over
 * them; a distant one (another word) most often does.
 */
function orderCovers(lists: Cover[]): void {
  const length = (c: Cover) => c.to - c.from;
  lists.sort((a, b) => length(a) - length(b));
  // gaps[c]: the distance from list c to the nearest list read so far (lists[0 … r - 1]).
  const gaps = lists.map((c) => Math.abs(c.offset - lists[0]!.offset));
  for (let r = 1; r < Math.min(lists.length - 1, 1 + FARTHEST_PICKS); r++) {
    let best = r;
    for (let c = r + 1; c < lists.length; c++) if (gaps[c]! > gaps[best]!) best = c;
    // Moved to `r`, the lists between keep their order (the shorter first on a tie).
    const chosen = lists.splice(best, 1)[0]!;
    lists.splice(r, 0, chosen);
    gaps.splice(r, 0, gaps.splice(best, 1)[0]!);
    for (let c = r + 1; c < lists.length; c++)
      gaps[c] = Math.min(gaps[c]!, Math.abs(lists[c]!.offset - chosen.offset));
  }
}

/**
 * The list entries `proveLiteral` would read for `literal` (the lengths of its covering trigrams' lists, an
 * upper bound), or -1 when it cannot prove it: what the planner prices a proof at, without reading a list.
 */
export function proofEntries(index: TextIndex, literal: RegexLiteral): number {
  const lists = literalCovers(index, literal);
  if (lists === undefined) return -1;
  let entries = 0;
  for (const list of lists) entries += list.to - list.from;
  return entries;
}

/**
 * Answers a literal pattern (as `checkLiteral`) from the trigram lists' `meta` alone, without reading the
 * values: the literal's trigrams at offsets 0, 3, 6, … and `length - 3` cover every character of it. A value
 * holds the literal at offset `p` for sure when each of these trigrams first occurs in it at `p` plus its
 * offset in the literal, written as the literal writes it (same folded symbols and, where case matters, the
 * same `foldVariant`; under `i`, ASCII letters need only the same symbol, which is exactly RE2's simple case
 * folding of ASCII letters: `k` with `K` and U+212A, `s` with `S` and U+017F). `^`/`$` then ask for `p = 0`
 * / `p + length` = the value's length. A value lacking one of the trigrams cannot match (it is skipped); a
 * `^literal` whose trigram first occurs after its offset in the literal cannot either. Every other value
 * holding all of them (a trigram first seen elsewhere, an offset past 254) is left to `undecided`.
 *
 * Answers string values with ids below `index.count` only (the caller tests the non-string values and those
 * added since the index was built). A literal not proved from the lists is first compared where the lists
 * place it, then searched in the value (its first occurrence, where the anchors allow it): on the corpus when
 * the index has one (its lowered copy under `i`), else, when case matters and `values` is given, on the value
 * itself; a match is accepted.
 * @param timer - ticked once per list entry read
 * @param values - the column's values by id (read only when the index has no corpus)
 * @param within - when given, only these ids (ascending) are candidates: for a chain's later segments
 * @throws {SearchTimeoutError} from `timer`
 * @returns the ids accepted (with where the literal first occurs in each, `at`) and those left undecided
 *   (`LiteralProof`), or undefined when it cannot answer
 *   (no `meta` in the index, a literal of fewer than three characters, or one with a character that no
 *   trigram records as written)
 */
export function proveLiteral(
  index: TextIndex,
  literal: RegexLiteral,
  timer: BudgetTimer,
  values?: readonly unknown[],
  within?: Int32Array,
): PlacedProof | undefined {
  const meta = index.grams.meta;
  const lists = literalCovers(index, literal);
  if (meta === undefined || lists === undefined) return undefined;
  const { ids } = index.grams;
  const text = literal.text;
  orderCovers(lists);
  const anchorStart = literal.anchorStart;
  // The candidates: ids of the shortest list, with where the literal would start, and whether proved so far.
  const first = lists[0]!;
  const size = within === undefined ? first.to - first.from : within.length;
  timer.tick(size);
  const cand = new Int32Array(size);
  const base = new Int32Array(size);
  const proved = new Uint8Array(size);
  let m: number;
  if (within === undefined) m = seedCandidates(ids, meta, first, anchorStart, cand, base, proved);
  else {
    // Within given ids (a chain's later segment): they are narrowed by the first list too, and placed there.
    cand.set(within);
    base.fill(UNPLACED);
    proved.fill(1);
    m = narrowCandidates(ids, meta, first, anchorStart, cand, base, proved, within.length);
  }
  for (let l = 1; l < lists.length && m > 0; l++) {
    const list = lists[l]!;
    timer.tick(Math.min(list.to - list.from, m * 16));
    m = narrowCandidates(ids, meta, list, anchorStart, cand, base, proved, m);
  }
  // A value not proved from the lists is read where the literal would start (found from the shortest list):
  // in the corpus when the index has one (the lowered corpus under `i`: a match of the lowered literal there
  // is a case-insensitive match), else in the value itself when case matters. The literal there is a match;
  // elsewhere, the pattern decides.
  const corpus = literal.ignoreCase ? index.lowered() : index.corpus;
  const hint = corpus === undefined && values !== undefined && !literal.ignoreCase ? values : undefined;
  const undecided = new Int32Array(m);
  const accepted = settleCandidates(
    { cand, base, proved, m, undecided },
    index.starts,
    literal,
    corpus,
    literal.ignoreCase ? text.toLowerCase() : text,
    hint,
  );
  return {
    held: m,
    accepted: cand.subarray(0, accepted),
    at: base.subarray(0, accepted),
    undecided: undecided.subarray(0, m - accepted),
  };
}

/** `proveLiteral`'s candidates after the lists: ids, where the literal would start, whether proved. */
interface Placed {
  readonly cand: Int32Array;
  readonly base: Int32Array;
  readonly proved: Uint8Array;
  readonly m: number;
  /** Receives the ids left undecided, ascending. */
  readonly undecided: Int32Array;
}

/**
 * `proveLiteral`'s last pass: a candidate placed where the anchors allow and proved from the lists is
 * accepted; else, when `corpus` is given, it is accepted when the corpus holds `probe` where the lists place
 * it, or where `probe` first occurs in the value's text there, if the anchors allow that place; else, when
 * `values` is given, the same of the value itself; any other is undecided. The accepted ids are
 * compacted to the front of `cand` (returns how many) with their places at the front of `base` (where the
 * literal first occurs: the shortest list's trigram first occurs at its offset in it), the undecided
 * written to `undecided`, both ascending.
 */
function settleCandidates(
  placed: Placed,
  starts: Int32Array,
  literal: RegexLiteral,
  corpus: string | undefined,
  probe: string,
  values: readonly unknown[] | undefined,
): number {
  const { cand, base, proved, m, undecided } = placed;
  const { anchorStart, anchorEnd, text } = literal;
  const n = text.length;
  let a = 0;
  let u = 0;
  for (let k = 0; k < m; k++) {
    const id = cand[k]!;
    const at = base[k]!;
    // Proved without `$`: the literal lies within the value, whose length need not be read.
    if (proved[k] === 1 && !anchorEnd && at >= 0 && (!anchorStart || at === 0)) {
      base[a] = at;
      cand[a++] = id;
      continue;
    }
    const start = starts[id]!;
    const length = starts[id + 1]! - 1 - start;
    const fits = at >= 0 && (!anchorStart || at === 0) && (anchorEnd ? at + n === length : at + n <= length);
    if (
      fits &&
      (proved[k] === 1 ||
        (corpus !== undefined
          ? corpus.startsWith(probe, start + at)
          : values !== undefined && (values[id] as string).startsWith(text, at)))
    ) {
      base[a] = at;
      cand[a++] = id;
      continue;
    }
    // Not where the lists place it (a trigram of the literal is first seen earlier in the value): where the
    // literal first occurs in the value itself, when that is where the anchors want it.
    const first =
      corpus !== undefined
        ? firstOccurrence(corpus, probe, start, length)
        : values !== undefined
          ? firstOccurrence(values[id] as string, text, 0, length)
          : -1;
    if (first >= 0 && (!anchorStart || first === 0) && (!anchorEnd || first + n === length)) {
      base[a] = first;
      cand[a++] = id;
    } else undecided[u++] = id;
  }
  return a;
}

/**
 * Where `probe` first occurs in `text[start … start + length)` (a value in the corpus, or the value
 * itself), as an offset from `start`; -1 when it does not occur there. The search never runs past the value.
 */
function firstOccurrence(text: string, probe: string, start: number, length: number): number {
  if (probe.length > length) return -1;
  return text.slice(start, start + length).indexOf(probe);
}

// ---------------------------------------------------------------------------------------------------------
// Text column

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
  /** Per pattern key: the answer per value id (0 false, 1 true), kept until the next add. */
  private readonly acceptCache = new Map<string, AcceptTable>();

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
    const capacity = this.queuedCapacity;
    const queue = this.queue;
    const hashes = this.queueHashes;
    const index = this.index;
    const values = this.values;
    const counts = this.counts;
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
    this.queuedBytes = undefined;
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
    if (this.acceptCache.size > 0) this.acceptCache.clear();
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
    const n = this.values.length;
    const offsets = new Int32Array(n + 1);
    for (let id = 0; id < n; id++) offsets[id + 1] = offsets[id]! + this.counts[id]!;
    const cursor = offsets.slice(0, n);
    const rows = new Int32Array(offsets[n]!);
    const ids = this.ids;
    for (let row = 0; row < this.rows; row++) {
      const id = ids[row]!;
      if (id >= 0) rows[cursor[id]!++] = row;
    }
    this.postingCache = { offsets, rows };
    return this.postingCache;
  }

  /** A cached accept table for a pattern key, or undefined. */
  cachedAccept(key: string): AcceptTable | undefined {
    return this.acceptCache.get(key);
  }

  /** Keeps an accept table for a pattern key (at most `ACCEPT_CACHE_SIZE`, oldest dropped first). */
  keepAccept(key: string, accept: AcceptTable): void {
    if (this.acceptCache.size >= ACCEPT_CACHE_SIZE) {
      const oldest = this.acceptCache.keys().next().value;
      if (oldest !== undefined) this.acceptCache.delete(oldest);
    }
    this.acceptCache.set(key, accept);
  }

  /** Bytes held: the ids, the postings and text index when built, the cached accept tables. */
  bytes(): number {
    let bytes = this.ids.byteLength + 8 * this.values.length;
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
