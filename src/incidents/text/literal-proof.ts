/**
 * The literal proof (text/index.ts has the map): a literal pattern answered from the trigram lists' `meta`
 * alone, without reading the values: its trigrams at offsets 0, 3, 6, … and `length - 3` cover every
 * character, and a value holds the literal for sure where each of them first occurs at its place, written
 * as the literal writes it. Values the lists cannot decide are compared where the lists place the literal,
 * then searched (on the corpus, or the value itself), else left to the pattern. Exact (docs/semantics.md
 * 1.7); the planner prices a proof by its lists' entries (`proofEntries`).
 */

import type { RegexLiteral } from "../../conditions/regex/matcher.js";
import type { BudgetTimer } from "../search-budget.js";
import type { TextIndex } from "./corpus-index.js";
import { foldSymbol, foldVariant, OPAQUE } from "./fold.js";

/** One trigram of a literal's cover (`proveLiteral`): its list's entries, its offset in the literal, its written form. */
interface Cover {
  /** The trigram's offset in the literal. */
  readonly offset: number;
  /** The trigram's key (its list: `GramIndex.idsOf` and `metaOf`). */
  readonly key: number;
  /** Its list's entries in the index: `from … to - 1` (its length: `to - from`). */
  readonly from: number;
  readonly to: number;
  /** The `meta` bits 8–13 the literal writes (`want`), of those that must agree (`mask`). */
  readonly want: number;
  readonly mask: number;
}

/** The trigram list a proof reads: its value ids and their `meta`, unpacked (`GramIndex.idsOf`, `metaOf`). */
interface ProofLists {
  readonly ids: Int32Array;
  readonly meta: Uint16Array;
}

/**
 * `proveLiteral`'s candidates, by index: the value id (`cand`), where the literal would start in it
 * (`base`), and whether every trigram read so far is proved there (`proved`: 1 or 0).
 */
interface Candidates {
  readonly cand: Int32Array;
  readonly base: Int32Array;
  readonly proved: Uint8Array;
}

/**
 * `proveLiteral`'s first list: its ids become the candidates, each with where the literal would start
 * (`base`) and whether the trigram is proved there (`proved`). Returns the candidates kept (a `^` literal
 * drops values whose trigram first occurs past its offset). A loop of its own, so that the engine optimizes
 * it once for every query.
 */
function seedCandidates(lists: ProofLists, cover: Cover, anchorStart: boolean, c: Candidates): number {
  const { ids, meta } = lists;
  const { cand, base, proved } = c;
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
  lists: ProofLists,
  cover: Cover,
  anchorStart: boolean,
  c: Candidates,
  m: number,
): number {
  const { ids, meta } = lists;
  const { cand, base, proved } = c;
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
export interface PlacedProof extends LiteralProof {
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
    return { offset: o, key, from: offsets[key]!, to: offsets[key + 1]!, want: want << 8, mask: mask << 8 };
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
  const grams = index.grams;
  const lists = literalCovers(index, literal);
  if (grams.meta === undefined || lists === undefined) return undefined;
  // A cover's list, unpacked when it is read: its entries are then `0 … length - 1`.
  const unpack = (cover: Cover): [ProofLists, Cover] => [
    { ids: grams.idsOf(cover.key), meta: grams.metaOf(cover.key)! },
    { ...cover, from: 0, to: cover.to - cover.from },
  ];
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
  const c: Candidates = { cand, base, proved };
  let m: number;
  if (within === undefined) m = seedCandidates(...unpack(first), anchorStart, c);
  else {
    // Within given ids (a chain's later segment): they are narrowed by the first list too, and placed there.
    cand.set(within);
    base.fill(UNPLACED);
    proved.fill(1);
    m = narrowCandidates(...unpack(first), anchorStart, c, within.length);
  }
  for (let l = 1; l < lists.length && m > 0; l++) {
    const list = lists[l]!;
    timer.tick(Math.min(list.to - list.from, m * 16));
    m = narrowCandidates(...unpack(list), anchorStart, c, m);
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
interface Placed extends Candidates {
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
