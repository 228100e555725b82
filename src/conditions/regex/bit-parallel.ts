/**
 * Our own linear-time regex matcher: a bit-parallel simulation of the position automaton (Glushkov) of
 * an RE2 program (docs/semantics.md 1.7, "Matching cost").
 *
 * Why: re2js matches with a lazy DFA that caches states, and falls back to its NFA when a pattern has
 * too many states (`[ab]*a[ab]{996}c` has 2^996). Its NFA follows one thread per instruction per
 * character at 15–130 ns each: the worst patterns the budget allows (4,000 instructions in one condition)
 * took seconds on a 10 KB value. This simulation keeps one BIT per position instead of one thread, and
 * moves 32 positions with each machine-word operation.
 *
 * How:
 * - The program is re2js's own compiled program (its parser, simplifier and compiler decide the language:
 *   case folding, Unicode classes, `.` with or without `s`, counted repetition expanded, `^`/`$` with or
 *   without `m`). Its character-consuming instructions are the POSITIONS, numbered in program order, which
 *   is the left-to-right order of the pattern; everything else (alternation, no-op, capture, empty-width
 *   assertion) is folded into the transitions between positions, once, when the matcher is built.
 * - A transition p → q may pass empty-width assertions (`^ $ \A \z \b \B`, with or without `m`); it is
 *   labelled with the assertions it needs, and is taken only where the context of that place in the value
 *   (begin/end of text or line, word boundary) satisfies them all.
 * - The state after reading a character is the set of positions that just read it. Its successor is
 *   `(follow(D) ∪ start) ∩ class(c)`, where `follow` is split into three parts: the shift by one of
 *   concatenation (p → p+1, unlabelled: one shift and one mask per word), self-loops (`x*`, `x+` on one
 *   position: one mask), and the exceptions, all other transitions. Exceptions are looked up 8 source
 *   positions at a time in tables of the union of their follow sets (Navarro and Raffinot's chunked
 *   tables), built lazily, per context, within a byte budget; past the budget a chunk is computed from
 *   its rows directly (up to 8 times slower for that chunk, never unbounded).
 * - `class(c)`: the boundaries of every class of the program cut the code points into intervals on which
 *   every class is constant; each interval's set of positions is computed once, on first use.
 * - An unanchored search: the start set is added at every place; the search stops at the first place
 *   where a match ends.
 *
 * Cost: per character, O(W) word operations (W = positions / 32) plus O(W) per active chunk of exceptions
 * (at most positions / 8 chunks); nothing depends on the value but its length. Memory: the rows, the
 * interval sets and the tables, all bounded by the program's size and counted in `bytes`.
 */

import { RE2JS } from "re2js";
import { parseRegexTree, REGEX_OP } from "./program.js";

/** The instruction of a compiled re2js program (re2js 2.10 `Inst`), as far as the matcher reads it. */
interface EngineInst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  readonly runes: ArrayLike<number>;
  matchRune(rune: number): boolean;
}

/** A compiled re2js program (re2js 2.10 `Prog`). */
interface EngineProg {
  readonly inst: readonly EngineInst[];
  readonly start: number;
}

/** re2js's instruction kinds, read from its `Inst` class on a probe (the version is pinned). */
const INST = (() => {
  const probe = RE2JS.compile("a") as unknown as { re2Input?: { prog?: EngineProg } };
  const ctor = probe.re2Input?.prog?.inst[0]?.constructor as unknown as Record<string, unknown> | undefined;
  const read = (name: string): number => {
    const value = ctor?.[name];
    if (typeof value !== "number")
      throw new Error(`incident-query: unsupported re2js version (no Inst.${name}).`);
    return value;
  };
  return {
    ALT: read("ALT"),
    ALT_MATCH: read("ALT_MATCH"),
    CAPTURE: read("CAPTURE"),
    EMPTY_WIDTH: read("EMPTY_WIDTH"),
    FAIL: read("FAIL"),
    MATCH: read("MATCH"),
    NOP: read("NOP"),
    RUNE: read("RUNE"),
    RUNE1: read("RUNE1"),
    RUNE_ANY: read("RUNE_ANY"),
    RUNE_ANY_NOT_NL: read("RUNE_ANY_NOT_NL"),
  };
})();

/** Empty-width assertion bits, as re2js's `Utils.EMPTY_*` (an `EMPTY_WIDTH` instruction's `arg`). */
const BEGIN_LINE = 1;
const END_LINE = 2;
const BEGIN_TEXT = 4;
const END_TEXT = 8;
const WORD_BOUNDARY = 16;
const NO_WORD_BOUNDARY = 32;

/** The largest code point. */
const MAX_RUNE = 0x10ffff;

/**
 * The most positions (character-consuming instructions) a program may have for this matcher: the
 * budget of docs/semantics.md 1.7 allows 1,000 per pattern; `compileRegex` keeps re2js for anything larger
 * (only reachable by calling it directly, never through a parsed condition).
 */
export const MAX_POSITIONS = 4096;

/** The most class boundaries (see the module comment) a program may have for this matcher. */
export const MAX_CUTS = 16_384;

/** The most shift distances of one matcher (each costs one pass over the state per character). */
export const MAX_SHIFTS = 8;

/** The most bytes the lazily built exception tables of one matcher may take (beyond: computed directly). */
export const TABLE_BYTES = 4 * 1024 * 1024;

/** Estimated bytes of one typed array beyond its elements (the view object and its buffer). */
const ARRAY_OVERHEAD = 256;

/** True for `[0-9A-Za-z_]` (RE2's word characters; ASCII only, as re2js). */
function isWordUnit(unit: number): boolean {
  return (
    (unit >= 97 && unit <= 122) || (unit >= 65 && unit <= 90) || (unit >= 48 && unit <= 57) || unit === 95
  );
}

/**
 * The assertions that hold between the code unit `before` and the code unit `after` (−1: the start or the
 * end of the value), as re2js's `Utils.emptyOpContext`.
 */
function contextOf(before: number, after: number): number {
  let ctx = 0;
  if (before < 0) ctx |= BEGIN_TEXT | BEGIN_LINE;
  else if (before === 10) ctx |= BEGIN_LINE;
  if (after < 0) ctx |= END_TEXT | END_LINE;
  else if (after === 10) ctx |= END_LINE;
  ctx |= isWordUnit(before) !== isWordUnit(after) ? WORD_BOUNDARY : NO_WORD_BOUNDARY;
  return ctx;
}

/** Every context a value can present (each kind of neighbour on either side). */
const ALL_CONTEXTS: readonly number[] = (() => {
  const kinds = [-1, 10, 97, 32];
  const seen = new Set<number>();
  for (const before of kinds) for (const after of kinds) seen.add(contextOf(before, after));
  return [...seen];
})();

/** Case-folding orbits of single runes (a rune and every rune RE2 folds it with), as sorted ranges. */
const orbits = new Map<number, Int32Array>();

/**
 * The runes RE2 folds `rune` with, as sorted ranges: re2js's own parser folds the class `[rune X]` (X, a
 * code point that folds with nothing, keeps the parser from turning a one-rune class into a literal; it
 * is removed again).
 */
function orbitOf(rune: number): Int32Array {
  let ranges = orbits.get(rune);
  if (ranges === undefined) {
    const sentinel = rune === MAX_RUNE ? MAX_RUNE - 1 : MAX_RUNE;
    const tree = parseRegexTree(
      `[\\x{${rune.toString(16)}}\\x{${sentinel.toString(16)}}]`,
      RE2JS.CASE_INSENSITIVE,
    );
    const kept: number[] = [rune, rune];
    if (tree.op === REGEX_OP.CHAR_CLASS) {
      for (let i = 0; i + 1 < tree.runes.length; i += 2) {
        for (let r = tree.runes[i] as number; r <= (tree.runes[i + 1] as number); r++) {
          if (r !== sentinel) kept.push(r, r);
        }
      }
    }
    ranges = normalizeRanges(kept);
    orbits.set(rune, ranges);
  }
  return ranges;
}

/** Sorted, merged copy of the ranges `[lo0, hi0, lo1, hi1, …]`. */
function normalizeRanges(runes: ArrayLike<number>): Int32Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < runes.length; i += 2) pairs.push([runes[i] as number, runes[i + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) out[last] = Math.max(out[last] as number, hi);
    else out.push(lo, hi);
  }
  return Int32Array.from(out);
}

/** True when `rune` lies in one of the sorted `ranges`. */
function inRanges(ranges: Int32Array, rune: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rune < (ranges[2 * mid] as number)) hi = mid - 1;
    else if (rune > (ranges[2 * mid + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The code points an instruction matches, as sorted ranges (`undefined`: not a rune instruction). */
function rangesOf(inst: EngineInst): Int32Array | undefined {
  switch (inst.op) {
    case INST.RUNE1:
      return Int32Array.from([inst.runes[0] as number, inst.runes[0] as number]);
    case INST.RUNE_ANY:
      return Int32Array.from([0, MAX_RUNE]);
    case INST.RUNE_ANY_NOT_NL:
      return Int32Array.from([0, 9, 11, MAX_RUNE]);
    case INST.RUNE: {
      if (inst.runes.length === 1) {
        const rune = inst.runes[0] as number;
        // Folding: the orbit, restricted to what the engine's own instruction accepts.
        const orbit = orbitOf(rune);
        const kept: number[] = [];
        for (let i = 0; i < orbit.length; i += 2) {
          for (let r = orbit[i] as number; r <= (orbit[i + 1] as number); r++) {
            if (r === rune || inst.matchRune(r)) kept.push(r, r);
          }
        }
        if (kept.length === 0) kept.push(rune, rune);
        return normalizeRanges(kept);
      }
      return normalizeRanges(inst.runes);
    }
    default:
      return undefined;
  }
}

/** A transition target found by `closure`: a position (≥ 0) or the match (−1), and its assertions. */
type Reach = (target: number, mask: number) => void;

/** Why the program cannot run on this matcher (the caller keeps re2js). */
export class UnsupportedProgram extends Error {}

/** The lazily built DFA of a one-word program: state sets, their ids, and transitions by interval. */
interface Dfa {
  readonly ids: Map<number, number>;
  readonly states: number[];
  readonly rows: Int32Array[];
}

/** The most states the DFA of one matcher keeps (each a row of one number per class interval). */
export const DFA_STATES = 64;

/** The most class intervals for which a one-word program gets a DFA. */
const DFA_INTERVALS = 512;

/** A lazily built table of a chunk in one context: 256 rows of `hi - lo` words, and which are built. */
interface Table {
  readonly data: Int32Array;
  readonly built: Uint8Array;
}

/**
 * A compiled bit-parallel matcher of one re2js program. `test(value)` answers whether the program matches
 * any part of `value` (unanchored search, RE2 semantics), in time linear in `value.length`.
 */
export class BitParallelMatcher {
  /** Words per state set. */
  private readonly words: number;
  /** Context bits the program's assertions read (contexts are projected onto them). */
  private readonly used: number;
  /** Positions p with an unlabelled p → p+1 transition. */
  /** Columns (see the constructor): the exceptional sources in order, the columns (target, mask, first
   * run, runs: four numbers each), their runs of source indices (two numbers each), prefix counts. */
  private readonly columnSources: Int32Array;
  private readonly columns: Int32Array;
  private readonly columnRuns: Int32Array;
  private readonly activeBefore: Int32Array;
  private readonly columnCount: number;
  /** The shift distances, and by distance the sources that take it, by assertion mask. */
  private readonly distances: Int32Array;
  private readonly shiftSets: readonly Map<number, Int32Array>[];
  /** By context: the sources of each distance enabled there (`distances.length` × W words). */
  private readonly shiftsByCtx: (Int32Array | undefined)[] = [];
  /** Positions p with an unlabelled p → p transition. */
  /** Exceptional rows: for position p, the masks and follow sets of its transitions. */
  private readonly rowMasks: (number[] | undefined)[];
  private readonly rowBits: (Int32Array[] | undefined)[];
  /** Chunks, five numbers each: word, shift, bits of exceptional sources, first and past-last row word. */
  private readonly chunks: Int32Array;
  private readonly chunkCount: number;
  /** Groups of sources sharing one row: their sources, rows (W words each), extents (4 numbers each). */
  private readonly groupCount: number;
  private readonly groupSources: Int32Array;
  private readonly groupRows: Int32Array;
  private readonly groupExtent: Int32Array;
  /** The flood (see the constructor): run starts, the bit past each run, both with the runs. */
  private readonly floods: boolean;
  private readonly floodStart: Int32Array;
  private readonly floodEnd: Int32Array;
  private readonly floodArea: Int32Array;
  /** Tables by context, then by chunk. */
  private readonly tables: (Table | undefined)[][] = [];
  private tableBytes = 0;
  /** Start transitions and match transitions (target, mask). */
  private readonly startTargets: Int32Array;
  private readonly startMasks: Int32Array;
  private readonly acceptTargets: Int32Array;
  private readonly acceptMasks: Int32Array;
  /** Whether the empty string matches in a context, by context. */
  private readonly nullable: Uint8Array;
  private readonly initByCtx: (Int32Array | undefined)[] = [];
  private readonly acceptByCtx: (Int32Array | undefined)[] = [];
  /** Classes: ranges, the positions of each, the interval cuts and the lazily computed interval sets. */
  private readonly classRanges: Int32Array[];
  private readonly classPositions: Int32Array[];
  private readonly cuts: Int32Array;
  private readonly latin: Int32Array;
  private readonly intervalBits: Int32Array;
  private readonly intervalReady: Uint8Array;
  private readonly current: Int32Array;
  /** Every match starts at the start of the value (`^` without `m`, `\A`): no new start after it. */
  private readonly anchored: boolean;
  /** One-word programs: the union of the enabled rows of each position, by context (32 words each). */
  private readonly wordRows: (Int32Array | undefined)[] = [];
  /** One-word programs: the exceptional positions. */
  private readonly wordExceptions: number;
  /** One-word programs without assertions and with few class intervals: the lazily built DFA. */
  private readonly dfa: Dfa | undefined;
  /** One-word programs: the group of each position (−1: none). */
  private readonly groupOf: Int32Array;
  private readonly next: Int32Array;
  /** Upper estimate of the bytes this matcher keeps alive, the table budget included. */
  readonly bytes: number;

  /**
   * Builds the matcher from a compiled re2js program.
   * @throws {UnsupportedProgram} when the program has an instruction this matcher does not know, more than
   *   `MAX_POSITIONS` positions or more than `MAX_CUTS` class boundaries
   */
  constructor(prog: EngineProg) {
    const insts = prog.inst;
    const n = insts.length;
    // Positions: the rune instructions reachable from the start, in program order.
    const reachable = new Uint8Array(n);
    const stack: number[] = [prog.start];
    reachable[prog.start] = 1;
    while (stack.length > 0) {
      const i = stack.pop() as number;
      const inst = insts[i] as EngineInst;
      const op = inst.op;
      const outs =
        op === INST.ALT || op === INST.ALT_MATCH
          ? [inst.out, inst.arg]
          : op === INST.MATCH || op === INST.FAIL
            ? []
            : [inst.out];
      if (
        op !== INST.ALT &&
        op !== INST.ALT_MATCH &&
        op !== INST.MATCH &&
        op !== INST.FAIL &&
        op !== INST.NOP &&
        op !== INST.CAPTURE &&
        op !== INST.EMPTY_WIDTH &&
        op !== INST.RUNE &&
        op !== INST.RUNE1 &&
        op !== INST.RUNE_ANY &&
        op !== INST.RUNE_ANY_NOT_NL
      ) {
        throw new UnsupportedProgram(`instruction ${op}`);
      }
      for (const o of outs) {
        if (reachable[o] === 0) {
          reachable[o] = 1;
          stack.push(o);
        }
      }
    }
    const posOf = new Int32Array(n).fill(-1);
    const instOf: number[] = [];
    const rangesByPosition: Int32Array[] = [];
    // The compiler shares one rune array among the copies of a counted repetition: ranges by that array.
    const rangesByRunes = new Map<ArrayLike<number>, Int32Array | undefined>();
    for (let i = 0; i < n; i++) {
      if (reachable[i] !== 1) continue;
      const inst = insts[i] as EngineInst;
      let ranges: Int32Array | undefined;
      if (inst.op === INST.RUNE && inst.runes.length > 1) {
        ranges = rangesByRunes.get(inst.runes);
        if (ranges === undefined) {
          ranges = rangesOf(inst);
          rangesByRunes.set(inst.runes, ranges);
        }
      } else ranges = rangesOf(inst);
      if (ranges === undefined) continue;
      posOf[i] = instOf.length;
      instOf.push(i);
      rangesByPosition.push(ranges);
    }
    const m = instOf.length;
    if (m > MAX_POSITIONS) throw new UnsupportedProgram(`${m} positions`);
    const W = Math.max(1, (m + 31) >> 5);
    this.words = W;

    // Closure over non-consuming instructions, with the assertions met on the way.
    // Visited (instruction, assertions) pairs of the current closure: an epoch per instruction for no
    // assertions, a set for the rest (rare).
    const seen = new Int32Array(n);
    const seenMasked = new Set<number>();
    let epoch = 0;
    let used = 0;
    const closure = (from: number, reach: Reach): void => {
      epoch++;
      seenMasked.clear();
      const todo: number[] = [from, 0];
      while (todo.length > 0) {
        const mask = todo.pop() as number;
        const i = todo.pop() as number;
        if (mask === 0) {
          if (seen[i] === epoch) continue;
          seen[i] = epoch;
        } else {
          const key = i * 64 + mask;
          if (seenMasked.has(key)) continue;
          seenMasked.add(key);
        }
        const inst = insts[i] as EngineInst;
        const op = inst.op;
        if (posOf[i] !== -1) reach(posOf[i] as number, mask);
        else if (op === INST.MATCH) reach(-1, mask);
        else if (op === INST.ALT || op === INST.ALT_MATCH) todo.push(inst.arg, mask, inst.out, mask);
        else if (op === INST.NOP || op === INST.CAPTURE) todo.push(inst.out, mask);
        else if (op === INST.EMPTY_WIDTH) {
          const next = mask | (inst.arg & 63);
          used |= inst.arg & 63;
          // \b and \B at the same place never hold together.
          if ((next & WORD_BOUNDARY) === 0 || (next & NO_WORD_BOUNDARY) === 0) todo.push(inst.out, next);
        }
      }
    };

    // Every transition as rows: for each source (each position, then the start as source m), its
    // targets by assertion mask.
    const sourceMasks: number[][] = [];
    const sourceRows: Int32Array[][] = [];
    const accepts: number[] = [];
    const nullableMasks: number[] = [];
    // Rows without assertions are views of one buffer (one allocation, not one per source).
    const plainRows = new Int32Array((m + 1) * W);
    const addTarget = (source: number, q: number, mask: number): void => {
      const masks = sourceMasks[source] as number[];
      let at = masks.indexOf(mask);
      if (at < 0) {
        at = masks.length;
        masks.push(mask);
        (sourceRows[source] as Int32Array[]).push(
          mask === 0 ? plainRows.subarray(source * W, (source + 1) * W) : new Int32Array(W),
        );
      }
      const row = (sourceRows[source] as Int32Array[])[at] as Int32Array;
      row[q >> 5] = (row[q >> 5] as number) | (1 << (q & 31));
    };
    for (let p = 0; p <= m; p++) {
      sourceMasks.push([]);
      sourceRows.push([]);
      closure(p < m ? (insts[instOf[p] as number] as EngineInst).out : prog.start, (q, mask) => {
        if (q >= 0) addTarget(p, q, mask);
        else if (p < m) accepts.push(p, mask);
        else nullableMasks.push(mask);
      });
    }

    // Flood: q → q+1 wherever every row holding q also holds q+1 (a run of optional items: `(?:a?){n}`,
    // `(?:[ab]*a){n}`). The union of such rows is closed under it, so each row keeps only what the flood
    // cannot add back, and the step floods once, with arithmetic on whole words (see `flood`).
    const violations = new Int32Array(W);
    for (const rows of sourceRows) {
      for (const row of rows) {
        for (let w = 0; w < W; w++) {
          const up = ((row[w] as number) >>> 1) | (w + 1 < W ? (row[w + 1] as number) << 31 : 0);
          violations[w] = (violations[w] as number) | ((row[w] as number) & ~up);
        }
      }
    }
    const floodMask = new Int32Array(W);
    let floods = false;
    for (let q = 0; q + 1 < m; q++) {
      if (((violations[q >> 5] as number) & (1 << (q & 31))) === 0) {
        floodMask[q >> 5] = (floodMask[q >> 5] as number) | (1 << (q & 31));
        floods = true;
      }
    }
    if (floods) {
      for (const rows of sourceRows) {
        for (const row of rows) {
          let carry = 0;
          for (let w = 0; w < W; w++) {
            const f = (row[w] as number) & (floodMask[w] as number);
            const implied = (f << 1) | carry;
            carry = f >>> 31;
            row[w] = (row[w] as number) & ~implied;
          }
        }
      }
    }
    // The runs of the flood: the first bit of each, and the bit just past each (where it lands).
    this.floodStart = new Int32Array(W);
    this.floodEnd = new Int32Array(W);
    this.floodArea = new Int32Array(W);
    this.floods = floods;
    {
      let carry = 0;
      for (let w = 0; w < W; w++) {
        const f = floodMask[w] as number;
        const shifted = (f << 1) | carry;
        carry = f >>> 31;
        this.floodStart[w] = f & ~shifted;
        this.floodEnd[w] = shifted & ~f;
        this.floodArea[w] = f | shifted;
      }
    }

    // Shifts: the distances d = q − p that most transitions share, each one shift of the whole state under
    // a mask of the sources that take it (per context): d = 1 is concatenation, d = 0 a self-loop, others
    // the regular strides of counted repetition. Every other transition is an exception: rows shared by
    // several sources become groups (one test and one union for all), the others chunked tables.
    // Columns: a target whose sources (under one mask) are a few runs of consecutive sources, as in the
    // exits of nested loops (every loop start is entered from the end of any loop inside it). Such a
    // target costs one range test per run, on prefix counts of the active sources, instead of a bit in
    // the rows of all its sources.
    // In-degrees first (by target and mask), so that only targets with many sources are listed.
    const degree = new Map<number, number>();
    if (W > 1) {
      for (let p = 0; p < m; p++) {
        const masks = sourceMasks[p] as number[];
        const rows = sourceRows[p] as Int32Array[];
        for (let r = 0; r < masks.length; r++) {
          const row = rows[r] as Int32Array;
          const mask = masks[r] as number;
          for (let w = 0; w < W; w++) {
            let bits = row[w] as number;
            while (bits !== 0) {
              const key = (w * 32 + 31 - Math.clz32(bits & -bits)) * 64 + mask;
              bits &= bits - 1;
              degree.set(key, (degree.get(key) ?? 0) + 1);
            }
          }
        }
      }
    }
    const sourcesOf = new Map<number, number[]>();
    for (const [key, count] of degree) if (count >= 8) sourcesOf.set(key, []);
    if (sourcesOf.size > 0) {
      for (let p = 0; p < m; p++) {
        const masks = sourceMasks[p] as number[];
        const rows = sourceRows[p] as Int32Array[];
        for (let r = 0; r < masks.length; r++) {
          const row = rows[r] as Int32Array;
          for (let w = 0; w < W; w++) {
            let bits = row[w] as number;
            while (bits !== 0) {
              const key = (w * 32 + 31 - Math.clz32(bits & -bits)) * 64 + (masks[r] as number);
              bits &= bits - 1;
              sourcesOf.get(key)?.push(p);
            }
          }
        }
      }
    }
    const candidates = [...sourcesOf].filter(([, list]) => W > 1 && list.length >= 8);
    const indexOf = new Int32Array(m).fill(-1);
    const exceptionalSources: number[] = [];
    for (const [, list] of candidates) for (const p of list) indexOf[p] = 0;
    for (let p = 0; p < m; p++) {
      if (indexOf[p] === 0) {
        indexOf[p] = exceptionalSources.length;
        exceptionalSources.push(p);
      }
    }
    const columns: number[] = [];
    const runs: number[] = [];
    for (const [key, list] of candidates) {
      const found: number[] = [];
      for (let k = 0; k < list.length; k++) {
        const index = indexOf[list[k] as number] as number;
        if (k === 0 || index !== (indexOf[list[k - 1] as number] as number) + 1) found.push(index, index);
        else found[found.length - 1] = index;
      }
      if (found.length / 2 > list.length / 8) continue;
      const q = Math.floor(key / 64);
      const mask = key % 64;
      columns.push(q, mask, runs.length / 2, found.length / 2);
      runs.push(...found);
      for (const source of list) {
        const r = (sourceMasks[source] as number[]).indexOf(mask);
        const row = (sourceRows[source] as Int32Array[])[r] as Int32Array;
        row[q >> 5] = (row[q >> 5] as number) & ~(1 << (q & 31));
      }
    }
    this.columnSources = Int32Array.from(exceptionalSources);
    this.columns = Int32Array.from(columns);
    this.columnRuns = Int32Array.from(runs);
    this.activeBefore = new Int32Array(exceptionalSources.length + 1);
    this.columnCount = columns.length / 4;

    const counts = new Map<number, number>();
    for (let p = 0; p < m; p++) {
      for (const row of sourceRows[p] as Int32Array[]) {
        for (let w = 0; w < W; w++) {
          let bits = row[w] as number;
          while (bits !== 0) {
            const q = w * 32 + 31 - Math.clz32(bits & -bits);
            bits &= bits - 1;
            counts.set(q - p, (counts.get(q - p) ?? 0) + 1);
          }
        }
      }
    }
    const distances = [...counts]
      .filter(([d, n]) => n >= 2 || d === 0 || d === 1)
      .sort((x, y) => y[1] - x[1] || Math.abs(x[0]) - Math.abs(y[0]))
      .slice(0, MAX_SHIFTS)
      .map(([d]) => d);
    const shiftSets: Map<number, Int32Array>[] = distances.map(() => new Map());
    const rowMasks: (number[] | undefined)[] = new Array(m);
    const rowBits: (Int32Array[] | undefined)[] = new Array(m);
    const groups = new Map<string, { sources: number[]; row: Int32Array }>();
    let rowWords = 0;
    let shiftWords = 0;
    for (let p = 0; p < m; p++) {
      const masks = sourceMasks[p] as number[];
      const rows = sourceRows[p] as Int32Array[];
      for (let r = 0; r < masks.length; r++) {
        const row = rows[r] as Int32Array;
        const mask = masks[r] as number;
        distances.forEach((d, j) => {
          const q = p + d;
          if (q < 0 || q >= m || ((row[q >> 5] as number) & (1 << (q & 31))) === 0) return;
          row[q >> 5] = (row[q >> 5] as number) & ~(1 << (q & 31));
          const sets = shiftSets[j] as Map<number, Int32Array>;
          let set = sets.get(mask);
          if (set === undefined) {
            set = new Int32Array(W);
            sets.set(mask, set);
            shiftWords += W;
          }
          set[p >> 5] = (set[p >> 5] as number) | (1 << (p & 31));
        });
      }
    }

    for (let p = 0; p < m; p++) {
      const masks = sourceMasks[p] as number[];
      const rows = sourceRows[p] as Int32Array[];
      let exceptional = false;
      for (const row of rows)
        for (let w = 0; w < W && !exceptional; w++) if (row[w] !== 0) exceptional = true;
      if (!exceptional) continue;
      if (masks.length === 1 && masks[0] === 0) {
        const row = rows[0] as Int32Array;
        const key = row.join(",");
        const group = groups.get(key);
        if (group === undefined) groups.set(key, { sources: [p], row });
        else group.sources.push(p);
        continue;
      }
      rowMasks[p] = masks;
      rowBits[p] = rows;
      rowWords += rows.length * W;
    }
    this.distances = Int32Array.from(distances);
    this.shiftSets = shiftSets;
    // A row of one source only is not a group: it goes to the chunked tables.
    const grouped: { sources: number[]; row: Int32Array }[] = [];
    for (const group of groups.values()) {
      if (group.sources.length > 1) grouped.push(group);
      else {
        const p = group.sources[0] as number;
        rowMasks[p] = [0];
        rowBits[p] = [group.row];
        rowWords += W;
      }
    }
    this.groupCount = grouped.length;
    this.groupSources = new Int32Array(grouped.length * W);
    this.groupRows = new Int32Array(grouped.length * W);
    this.groupExtent = new Int32Array(grouped.length * 4);
    grouped.forEach((group, g) => {
      let srcLo = W;
      let srcHi = 0;
      for (const p of group.sources) {
        const at = g * W + (p >> 5);
        this.groupSources[at] = (this.groupSources[at] as number) | (1 << (p & 31));
        srcLo = Math.min(srcLo, p >> 5);
        srcHi = Math.max(srcHi, (p >> 5) + 1);
      }
      let lo = W;
      let hi = 0;
      for (let w = 0; w < W; w++) {
        const bits = group.row[w] as number;
        this.groupRows[g * W + w] = bits;
        if (bits !== 0) {
          lo = Math.min(lo, w);
          hi = w + 1;
        }
      }
      this.groupExtent.set([srcLo, srcHi, lo, Math.max(lo, hi)], g * 4);
    });
    this.rowMasks = rowMasks;
    this.rowBits = rowBits;

    // Chunks: each byte of a word that holds exceptional positions; its rows' extent in words.
    const chunks: number[] = [];
    for (let w = 0; w < W; w++) {
      for (let shift = 0; shift < 32; shift += 8) {
        let bits = 0;
        let lo = W;
        let hi = 0;
        for (let b = 0; b < 8; b++) {
          const p = w * 32 + shift + b;
          const rows = p < m ? rowBits[p] : undefined;
          if (rows === undefined) continue;
          bits |= 1 << b;
          for (const row of rows) {
            for (let x = 0; x < W; x++) {
              if (row[x] !== 0) {
                if (x < lo) lo = x;
                if (x + 1 > hi) hi = x + 1;
              }
            }
          }
        }
        if (bits !== 0 && hi > lo) chunks.push(w, shift, bits, lo, hi);
      }
    }
    this.chunks = Int32Array.from(chunks);
    this.chunkCount = chunks.length / 5;

    const starts: number[] = [];
    const startMasks = sourceMasks[m] as number[];
    const startRows = sourceRows[m] as Int32Array[];
    for (let r = 0; r < startMasks.length; r++) {
      const row = startRows[r] as Int32Array;
      for (let q = 0; q < m; q++) {
        if (((row[q >> 5] as number) & (1 << (q & 31))) !== 0) starts.push(q, startMasks[r] as number);
      }
    }
    this.used = used;
    this.startTargets = Int32Array.from(starts.filter((_, k) => k % 2 === 0));
    this.startMasks = Int32Array.from(starts.filter((_, k) => k % 2 === 1));
    this.acceptTargets = Int32Array.from(accepts.filter((_, k) => k % 2 === 0));
    this.acceptMasks = Int32Array.from(accepts.filter((_, k) => k % 2 === 1));
    this.nullable = new Uint8Array(64);
    for (let ctx = 0; ctx < 64; ctx++) {
      for (const mask of nullableMasks) if ((mask & ~ctx) === 0) this.nullable[ctx] = 1;
    }

    // Classes (deduplicated by their ranges) and the cuts between intervals.
    const byKey = new Map<string, number>();
    let lastKey = "";
    const classRanges: Int32Array[] = [];
    const classMembers: number[][] = [];
    const cutSet = new Set<number>();
    for (let p = 0; p < m; p++) {
      const ranges = rangesByPosition[p] as Int32Array;
      const previous = p > 0 ? rangesByPosition[p - 1] : undefined;
      const key = ranges === previous ? lastKey : ranges.join(",");
      lastKey = key;
      let c = byKey.get(key);
      if (c === undefined) {
        c = classRanges.length;
        byKey.set(key, c);
        classRanges.push(ranges);
        classMembers.push([]);
        for (let i = 0; i < ranges.length; i += 2) {
          cutSet.add(ranges[i] as number);
          if ((ranges[i + 1] as number) < MAX_RUNE) cutSet.add((ranges[i + 1] as number) + 1);
        }
        if (cutSet.size > MAX_CUTS) throw new UnsupportedProgram(`${cutSet.size} class boundaries`);
      }
      (classMembers[c] as number[]).push(p);
    }
    this.classRanges = classRanges;
    this.classPositions = classMembers.map((list) => Int32Array.from(list));
    this.cuts = Int32Array.from([...cutSet].sort((a, b) => a - b));
    const intervals = this.cuts.length + 1;
    this.latin = new Int32Array(256);
    for (let cp = 0, k = 0; cp < 256; cp++) {
      while (k < this.cuts.length && (this.cuts[k] as number) <= cp) k++;
      this.latin[cp] = k;
    }
    this.intervalBits = new Int32Array(intervals * W);
    this.intervalReady = new Uint8Array(intervals);
    this.current = new Int32Array(W);
    this.anchored =
      startMasks.every((mask) => (mask & BEGIN_TEXT) !== 0) &&
      nullableMasks.every((mask) => (mask & BEGIN_TEXT) !== 0);
    let wordExceptions = 0;
    if (W === 1) for (let p = 0; p < m; p++) if (rowBits[p] !== undefined) wordExceptions |= 1 << p;
    for (const group of grouped) for (const p of group.sources) wordExceptions |= W === 1 ? 1 << p : 0;
    this.wordExceptions = wordExceptions;
    this.groupOf = new Int32Array(W === 1 ? 32 : 0).fill(-1);
    if (W === 1)
      grouped.forEach((group, g) => {
        for (const p of group.sources) (this.groupOf as Int32Array)[p] = g;
      });
    this.next = new Int32Array(W);

    // The DFA steps in context 0; a program whose only assertion is the end of the text (`$` without `m`)
    // sees context 0 at every character and `END_TEXT` only after the last, where `testDfa` checks it.
    this.dfa =
      W === 1 && (used & ~END_TEXT) === 0 && intervals <= DFA_INTERVALS
        ? { ids: new Map([[0, 0]]), states: [0], rows: [new Int32Array(intervals)] }
        : undefined;
    // Tables: 256 rows of each chunk's extent, per context the program can see.
    const contexts = new Set(ALL_CONTEXTS.map((ctx) => ctx & used)).size;
    const chunkCount = this.chunkCount;
    let tableMax = 0;
    for (let c = 0; c < chunkCount; c++) {
      tableMax +=
        (256 * ((this.chunks[5 * c + 4] as number) - (this.chunks[5 * c + 3] as number)) * 4 + 256) *
        contexts;
    }
    const rowArrays = rowBits.reduce((sum, rows) => sum + (rows?.length ?? 0), 0);
    // Typed arrays: their bytes plus about 200 bytes each (the array object and its buffer); JavaScript
    // arrays and objects: 16 bytes per element, 64 per object.
    const shiftArrays = shiftSets.reduce((sum, sets) => sum + sets.size, 0);
    const arrays =
      rowArrays + shiftArrays + 2 * classRanges.length + 3 * contexts + 2 * chunkCount * contexts + 20;
    this.bytes =
      12288 +
      ARRAY_OVERHEAD * arrays +
      4 *
        (rowWords +
          shiftWords +
          W * (10 + intervals + 2 * contexts + 2 * grouped.length) +
          5 * chunkCount +
          4 * grouped.length) +
      intervals +
      8 * (starts.length + accepts.length) +
      classRanges.reduce((sum, r) => sum + 4 * r.length, 0) +
      4 * m +
      16 * (2 * m + 64 + chunkCount * (1 + contexts)) +
      64 * (chunkCount + contexts) +
      Math.min(TABLE_BYTES, tableMax) +
      (this.dfa === undefined ? 0 : DFA_STATES * (4 * intervals + ARRAY_OVERHEAD + 64));
  }

  /**
   * The sources of each shift distance enabled in context `ctx` (cached per context): `distances.length`
   * × W words, then for each distance the first and past-last word holding sources.
   */
  private shiftsFor(ctx: number): Int32Array {
    let shifts = this.shiftsByCtx[ctx];
    if (shifts === undefined) {
      const W = this.words;
      const K = this.distances.length;
      const made = new Int32Array(K * W + 2 * K);
      this.shiftSets.forEach((sets, j) => {
        for (const [mask, set] of sets) {
          if ((mask & ~ctx) !== 0) continue;
          for (let w = 0; w < W; w++) made[j * W + w] = (made[j * W + w] as number) | (set[w] as number);
        }
        let lo = W;
        let hi = 0;
        for (let w = 0; w < W; w++) {
          if (made[j * W + w] !== 0) {
            lo = Math.min(lo, w);
            hi = w + 1;
          }
        }
        made[K * W + 2 * j] = lo;
        made[K * W + 2 * j + 1] = Math.max(lo, hi);
      });
      shifts = made;
      this.shiftsByCtx[ctx] = shifts;
    }
    return shifts;
  }

  /** ORs into `out` every shift of `state` (see `distances`) enabled by `shifts` (see `shiftsFor`). */
  private shift(state: Int32Array, out: Int32Array, shifts: Int32Array): void {
    const W = this.words;
    const distances = this.distances;
    const K = distances.length;
    for (let j = 0; j < K; j++) {
      const d = distances[j] as number;
      const base = j * W;
      const e = d < 0 ? -d : d;
      const dw = e >> 5;
      const db = e & 31;
      const hi = shifts[K * W + 2 * j + 1] as number;
      for (let w = shifts[K * W + 2 * j] as number; w < hi; w++) {
        const x = (state[w] as number) & (shifts[base + w] as number);
        if (x === 0) continue;
        if (d >= 0) {
          const t = w + dw;
          if (t < W) out[t] = (out[t] as number) | (x << db);
          if (db !== 0 && t + 1 < W) out[t + 1] = (out[t + 1] as number) | (x >>> (32 - db));
        } else {
          const t = w - dw;
          if (t >= 0) out[t] = (out[t] as number) | (x >>> db);
          if (db !== 0 && t - 1 >= 0) out[t - 1] = (out[t - 1] as number) | (x << (32 - db));
        }
      }
    }
  }

  /** The set of positions that start a match in context `ctx` (cached per context). */
  private initFor(ctx: number): Int32Array {
    return positionsIn(this.initByCtx, this.startTargets, this.startMasks, ctx, this.words);
  }

  /** The set of positions after which a match ends in context `ctx` (cached per context). */
  private acceptFor(ctx: number): Int32Array {
    return positionsIn(this.acceptByCtx, this.acceptTargets, this.acceptMasks, ctx, this.words);
  }

  /** The offset in `intervalBits` of the positions whose class holds `cp`, computed on first use. */
  private classOffset(cp: number): number {
    let k: number;
    if (cp < 256) k = this.latin[cp] as number;
    else {
      const cuts = this.cuts;
      let lo = 0;
      let hi = cuts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((cuts[mid] as number) <= cp) lo = mid + 1;
        else hi = mid;
      }
      k = lo;
    }
    const W = this.words;
    if (this.intervalReady[k] === 0) {
      const rep = k === 0 ? 0 : (this.cuts[k - 1] as number);
      const bits = this.intervalBits;
      const base = k * W;
      for (let c = 0; c < this.classRanges.length; c++) {
        if (!inRanges(this.classRanges[c] as Int32Array, rep)) continue;
        const members = this.classPositions[c] as Int32Array;
        for (let j = 0; j < members.length; j++) {
          const p = members[j] as number;
          bits[base + (p >> 5)] = (bits[base + (p >> 5)] as number) | (1 << (p & 31));
        }
      }
      this.intervalReady[k] = 1;
    }
    return k * W;
  }

  /** ORs into `out` the follow sets, in context `ctx`, of the exceptional positions of `state`. */
  private exceptions(state: Int32Array, out: Int32Array, ctx: number): void {
    const W = this.words;
    if (this.columnCount > 0) {
      const sources = this.columnSources;
      const before = this.activeBefore;
      let count = 0;
      for (let k = 0; k < sources.length; k++) {
        const p = sources[k] as number;
        before[k] = count;
        count += ((state[p >> 5] as number) >>> (p & 31)) & 1;
      }
      before[sources.length] = count;
      if (count > 0) {
        const columns = this.columns;
        const runs = this.columnRuns;
        for (let c = 0; c < this.columnCount; c++) {
          const mask = columns[4 * c + 1] as number;
          if ((mask & ~ctx) !== 0) continue;
          const q = columns[4 * c] as number;
          if (((out[q >> 5] as number) & (1 << (q & 31))) !== 0) continue;
          const first = columns[4 * c + 2] as number;
          const last = first + (columns[4 * c + 3] as number);
          for (let r = first; r < last; r++) {
            if (
              (before[(runs[2 * r + 1] as number) + 1] as number) > (before[runs[2 * r] as number] as number)
            ) {
              out[q >> 5] = (out[q >> 5] as number) | (1 << (q & 31));
              break;
            }
          }
        }
      }
    }
    const extent = this.groupExtent;
    const sources = this.groupSources;
    const rows = this.groupRows;
    for (let g = 0; g < this.groupCount; g++) {
      const base = g * W;
      const srcHi = extent[4 * g + 1] as number;
      let hit = false;
      for (let w = extent[4 * g] as number; w < srcHi; w++) {
        if (((state[w] as number) & (sources[base + w] as number)) !== 0) {
          hit = true;
          break;
        }
      }
      if (!hit) continue;
      const hi = extent[4 * g + 3] as number;
      for (let w = extent[4 * g + 2] as number; w < hi; w++)
        out[w] = (out[w] as number) | (rows[base + w] as number);
    }
    const chunks = this.chunks;
    let byChunk = this.tables[ctx];
    if (byChunk === undefined) {
      byChunk = new Array(this.chunkCount);
      this.tables[ctx] = byChunk;
    }
    for (let c = 0; c < this.chunkCount; c++) {
      const word = chunks[5 * c] as number;
      const shift = chunks[5 * c + 1] as number;
      const index = ((state[word] as number) >>> shift) & (chunks[5 * c + 2] as number);
      if (index === 0) continue;
      const lo = chunks[5 * c + 3] as number;
      const hi = chunks[5 * c + 4] as number;
      const width = hi - lo;
      let table = byChunk[c];
      if (table === undefined && this.tableBytes + 256 * width * 4 <= TABLE_BYTES) {
        table = { data: new Int32Array(256 * width), built: new Uint8Array(256) };
        this.tableBytes += 256 * width * 4;
        byChunk[c] = table;
      }
      if (table === undefined) {
        // Over the table budget: the rows directly.
        for (let b = 0; b < 8; b++)
          if ((index >> b) & 1) this.orRow(word * 32 + shift + b, ctx, out, 0, lo, hi);
        continue;
      }
      const at = index * width - lo;
      const data = table.data;
      if (table.built[index] === 0) {
        for (let b = 0; b < 8; b++)
          if ((index >> b) & 1) this.orRow(word * 32 + shift + b, ctx, data, at, lo, hi);
        table.built[index] = 1;
      }
      for (let w = lo; w < hi; w++) out[w] = (out[w] as number) | (data[at + w] as number);
    }
  }

  /**
   * Closes `set` under the flood: from the lowest member of each run onwards, every position of the run
   * and the one just past it (NR-grep's optional-character step, over words with borrows: `set | F`
   * minus the run starts borrows from each run's start up to its lowest member).
   */
  private flood(set: Int32Array): void {
    const W = this.words;
    const start = this.floodStart;
    const end = this.floodEnd;
    const area = this.floodArea;
    let borrow = 0;
    for (let w = 0; w < W; w++) {
      const filled = (set[w] as number) | (end[w] as number);
      let diff = (filled >>> 0) - ((start[w] as number) >>> 0) - borrow;
      borrow = diff < 0 ? 1 : 0;
      diff >>>= 0;
      set[w] = (set[w] as number) | ((area[w] as number) & ~(diff ^ filled));
    }
  }

  /** ORs the follow set of position p in context ctx, words lo..hi, into `out` at `offset + word`. */
  private orRow(p: number, ctx: number, out: Int32Array, offset: number, lo: number, hi: number): void {
    const masks = this.rowMasks[p] as number[];
    const rows = this.rowBits[p] as Int32Array[];
    for (let r = 0; r < masks.length; r++) {
      if (((masks[r] as number) & ~ctx) !== 0) continue;
      const row = rows[r] as Int32Array;
      for (let w = lo; w < hi; w++) out[offset + w] = (out[offset + w] as number) | (row[w] as number);
    }
  }

  /** One-word programs: the follow set of each position in context `ctx`, exceptions included. */
  private wordRowsFor(ctx: number): Int32Array {
    let rows = this.wordRows[ctx];
    if (rows === undefined) {
      rows = new Int32Array(32);
      for (let p = 0; p < 32; p++) {
        if (((this.wordExceptions >>> p) & 1) === 0) continue;
        const g = this.groupOf[p] as number;
        if (g >= 0) rows[p] = this.groupRows[g] as number;
        else this.orRow(p, ctx, rows, p, 0, 1);
      }
      this.wordRows[ctx] = rows;
    }
    return rows;
  }

  /** One-word state `state` after reading a character of interval `k`, without assertions (context 0). */
  private stepWord(state: number, k: number): number {
    let next = this.initFor(0)[0] as number;
    if (state !== 0) {
      const distances = this.distances;
      const shifts = this.shiftsFor(0);
      for (let j = 0; j < distances.length; j++) {
        const x = state & (shifts[j] as number);
        if (x === 0) continue;
        const d = distances[j] as number;
        next |= d >= 0 ? x << d : x >>> -d;
      }
      let bits = state & this.wordExceptions;
      if (bits !== 0) {
        const rows = this.wordRowsFor(0);
        while (bits !== 0) {
          const p = 31 - Math.clz32(bits & -bits);
          next |= rows[p] as number;
          bits &= bits - 1;
        }
      }
    }
    if (this.floods) {
      const filled = next | (this.floodEnd[0] as number);
      const diff = ((filled >>> 0) - ((this.floodStart[0] as number) >>> 0)) >>> 0;
      next |= (this.floodArea[0] as number) & ~(diff ^ filled);
    }
    return next & (this.intervalBits[this.classReady(k)] as number);
  }

  /** Interval `k`, its positions computed (one-word programs: the offset is `k`). */
  private classReady(k: number): number {
    if (this.intervalReady[k] === 1) return k;
    return this.classOffset(k === 0 ? 0 : (this.cuts[k - 1] as number));
  }

  /**
   * `test` for one-word programs without assertions other than the end of the text, as a lazily built DFA:
   * its states are the sets of positions met so far (at most `DFA_STATES`), its transitions filled on first
   * use, by class interval. Past the states' budget a missing transition is computed and not kept: the
   * bit-parallel step, never worse. Every character is read in context 0 (no assertion holds before a
   * character); after the last one, the context is `used` (`END_TEXT` when the program asserts it).
   */
  private testDfa(value: string, dfa: Dfa): boolean {
    if (this.nullable[0] === 1) return true;
    const length = value.length;
    const latin = this.latin;
    const accept = this.acceptFor(0)[0] as number;
    let state = 0;
    let id = dfa.ids.get(0) as number;
    for (let i = 0; i < length; i++) {
      // A surrogate pair is one code point; a lone surrogate is itself (as RE2 reads UTF-16).
      const cp = value.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      const k = cp < 256 ? (latin[cp] as number) : this.intervalOf(cp);
      const cached = id >= 0 ? ((dfa.rows[id] as Int32Array)[k] as number) : 0;
      if (cached !== 0) {
        id = cached - 1;
        state = dfa.states[id] as number;
      } else {
        const next = this.stepWord(state, k);
        let nextId = dfa.ids.get(next);
        if (nextId === undefined && dfa.states.length < DFA_STATES) {
          nextId = dfa.states.length;
          dfa.ids.set(next, nextId);
          dfa.states.push(next);
          dfa.rows.push(new Int32Array(this.cuts.length + 1));
        }
        if (id >= 0 && nextId !== undefined) (dfa.rows[id] as Int32Array)[k] = nextId + 1;
        id = nextId ?? -1;
        state = next;
      }
      if ((state & accept) !== 0) return true;
    }
    const end = this.used; // 0, or END_TEXT: what holds after the last character
    return end !== 0 && (this.nullable[end] === 1 || (state & (this.acceptFor(end)[0] as number)) !== 0);
  }

  /** The class interval of code point `cp`. */
  private intervalOf(cp: number): number {
    const cuts = this.cuts;
    let lo = 0;
    let hi = cuts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cuts[mid] as number) <= cp) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** `test` for programs of at most 32 positions: the state in one number. */
  private testWord(value: string): boolean {
    const used = this.used;
    const length = value.length;
    const distances = this.distances;
    const shiftCount = distances.length;
    const exceptions = this.wordExceptions;
    const floods = this.floods;
    const floodStart = (this.floodStart[0] as number) >>> 0;
    const floodEnd = this.floodEnd[0] as number;
    const floodArea = this.floodArea[0] as number;
    const anchored = this.anchored;
    const classBits = this.intervalBits;
    const ready = this.intervalReady;
    const latin = this.latin;
    let ctx = 0;
    let init = this.initFor(0)[0] as number;
    let accept = this.acceptFor(0)[0] as number;
    let rows = exceptions === 0 ? undefined : this.wordRowsFor(0);
    let shifts = this.shiftsFor(0);
    let nullable = this.nullable[0] === 1;
    let state = 0;
    let before = -1;
    let i = 0;
    for (;;) {
      let unit = -1;
      let cp = -1;
      let width = 1;
      if (i < length) {
        unit = value.charCodeAt(i);
        cp = value.codePointAt(i) as number; // a surrogate pair is one code point, a lone surrogate itself
        if (cp > 0xffff) width = 2;
      }
      if (used !== 0) {
        const next = contextOf(before, unit) & used;
        if (next !== ctx) {
          ctx = next;
          init = this.initFor(ctx)[0] as number;
          accept = this.acceptFor(ctx)[0] as number;
          if (exceptions !== 0) rows = this.wordRowsFor(ctx);
          shifts = this.shiftsFor(ctx);
          nullable = this.nullable[ctx] === 1;
        }
      }
      if (nullable || (state & accept) !== 0) return true;
      if (cp < 0) return false;
      if (state === 0 && i > 0 && anchored) return false;
      const k = cp < 256 && ready[latin[cp] as number] === 1 ? (latin[cp] as number) : this.classOffset(cp);
      let next = init;
      if (state !== 0) {
        for (let j = 0; j < shiftCount; j++) {
          const x = state & (shifts[j] as number);
          if (x === 0) continue;
          const d = distances[j] as number;
          next |= d >= 0 ? x << d : x >>> -d;
        }
      }
      if (exceptions !== 0 && (state & exceptions) !== 0) {
        let bits = state & exceptions;
        while (bits !== 0) {
          const p = 31 - Math.clz32(bits & -bits);
          next |= (rows as Int32Array)[p] as number;
          bits &= bits - 1;
        }
      }
      if (floods) {
        const filled = next | floodEnd;
        const diff = ((filled >>> 0) - floodStart) >>> 0;
        next |= floodArea & ~(diff ^ filled);
      }
      state = next & (classBits[k] as number);
      before = width === 1 ? unit : value.charCodeAt(i + 1);
      i += width;
    }
  }

  /**
   * True when the program matches some part of `value` (RE2 semantics: code points, lone surrogates as
   * themselves). Time linear in `value.length`; never throws.
   */
  test(value: string): boolean {
    if (this.words === 1)
      return this.dfa === undefined ? this.testWord(value) : this.testDfa(value, this.dfa);
    const W = this.words;
    let state = this.current;
    let next = this.next;
    state.fill(0);
    let active = false;
    const used = this.used;
    const length = value.length;
    const hasExceptions = this.chunkCount > 0 || this.groupCount > 0 || this.columnCount > 0;
    const floods = this.floods;
    const classBits = this.intervalBits;
    let before = -1;
    let i = 0;
    for (;;) {
      let unit = -1;
      let cp = -1;
      let width = 1;
      if (i < length) {
        unit = value.charCodeAt(i);
        cp = value.codePointAt(i) as number; // a surrogate pair is one code point, a lone surrogate itself
        if (cp > 0xffff) width = 2;
      }
      const ctx = used === 0 ? 0 : contextOf(before, unit) & used;
      if (this.nullable[ctx] === 1) return true;
      if (!active && i > 0 && this.anchored) return false;
      if (active) {
        const accept = this.acceptFor(ctx);
        for (let w = 0; w < W; w++) if (((state[w] as number) & (accept[w] as number)) !== 0) return true;
      }
      if (cp < 0) return false;
      const classAt = this.classOffset(cp);
      const init = this.initFor(ctx);
      let any = 0;
      if (!active) {
        if (floods) {
          for (let w = 0; w < W; w++) next[w] = init[w] as number;
          this.flood(next);
          for (let w = 0; w < W; w++) {
            const v = (next[w] as number) & (classBits[classAt + w] as number);
            next[w] = v;
            any |= v;
          }
        } else {
          for (let w = 0; w < W; w++) {
            const v = (init[w] as number) & (classBits[classAt + w] as number);
            next[w] = v;
            any |= v;
          }
        }
      } else {
        for (let w = 0; w < W; w++) next[w] = init[w] as number;
        if (hasExceptions) this.exceptions(state, next, ctx);
        this.shift(state, next, this.shiftsFor(ctx));
        if (floods) this.flood(next);
        for (let w = 0; w < W; w++) {
          const v = (next[w] as number) & (classBits[classAt + w] as number);
          next[w] = v;
          any |= v;
        }
      }
      active = any !== 0;
      const swap = state;
      state = next;
      next = swap;
      before = value.charCodeAt(i + width - 1);
      i += width;
    }
  }
}

/** re2js's prefilter of a pattern (re2js 2.10 `Prefilter`): strings every match contains. */
interface EnginePrefilter {
  readonly type: number;
  readonly str: string;
  readonly subs: readonly EnginePrefilter[];
}

/** re2js's prefilter kinds (`Prefilter.Type`). */
const EXACT = 1;
const AND = 2;
const OR = 3;

/**
 * A necessary condition for a match, as strings the value must contain: re2js's own prefilter (the
 * strings its `test` looks for first, with `indexOf`, before matching), kept when it is a string, all of
 * some strings, or any of some strings; `undefined` otherwise.
 */
export type RequiredText = { readonly all: readonly string[] } | { readonly any: readonly string[] };

function requiredText(prefilter: EnginePrefilter | null | undefined): RequiredText | undefined {
  if (prefilter === null || prefilter === undefined) return undefined;
  const exact = (p: EnginePrefilter) => p.type === EXACT && typeof p.str === "string" && p.str.length > 0;
  if (exact(prefilter)) return { all: [prefilter.str] };
  if (prefilter.type === AND && prefilter.subs.length > 0 && prefilter.subs.every(exact)) {
    return { all: prefilter.subs.map((p) => p.str) };
  }
  if (prefilter.type === OR && prefilter.subs.length > 0 && prefilter.subs.every(exact)) {
    return { any: prefilter.subs.map((p) => p.str) };
  }
  return undefined;
}

/** True when `value` holds the required text (each `includes` is linear: V8's string search). */
function holds(required: RequiredText, value: string): boolean {
  if ("all" in required) {
    for (const text of required.all) if (!value.includes(text)) return false;
    return true;
  }
  for (const text of required.any) if (value.includes(text)) return true;
  return false;
}

/** A compiled matcher: the bit-parallel automaton, behind re2js's prefilter when it has one. */
export interface CompiledMatcher {
  test(value: string): boolean;
  readonly bytes: number;
}

/**
 * Builds a bit-parallel matcher for a pattern compiled by re2js, behind the pattern's required text when
 * re2js found one (at most 32 strings, each scanned once: linear).
 * @param compiled - `RE2JS.compile(source, flags)`
 * @returns the matcher
 * @throws {UnsupportedProgram} as `BitParallelMatcher`'s constructor
 */
export function bitParallelMatcher(compiled: RE2JS): CompiledMatcher {
  const input = (
    compiled as unknown as { re2Input?: { prog?: EngineProg; prefilter?: EnginePrefilter | null } }
  ).re2Input;
  const prog = input?.prog;
  if (prog === undefined) throw new UnsupportedProgram("no program");
  const matcher = new BitParallelMatcher(prog);
  const required = requiredText(input?.prefilter);
  if (required === undefined || ("any" in required ? required.any : required.all).length > 32) return matcher;
  const texts = "any" in required ? required.any : required.all;
  return {
    bytes: matcher.bytes + texts.reduce((sum, text) => sum + 64 + 2 * text.length, 64),
    test: (value) => holds(required, value) && matcher.test(value),
  };
}

/**
 * The set (of `words` words) of the `targets` whose assertion mask `ctx` satisfies (every asserted context
 * bit present), cached in `cache` per context.
 */
function positionsIn(
  cache: (Int32Array | undefined)[],
  targets: Int32Array,
  masks: Int32Array,
  ctx: number,
  words: number,
): Int32Array {
  let set = cache[ctx];
  if (set === undefined) {
    set = new Int32Array(words);
    for (let k = 0; k < targets.length; k++) {
      if (((masks[k] as number) & ~ctx) === 0) {
        const q = targets[k] as number;
        set[q >> 5] = (set[q >> 5] as number) | (1 << (q & 31));
      }
    }
    cache[ctx] = set;
  }
  return set;
}
