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

/** The most bytes the lazily built exception tables of one matcher may take (beyond: computed directly). */
export const TABLE_BYTES = 4 * 1024 * 1024;

/** Estimated bytes of one typed array beyond its elements (the view object and its buffer). */
const ARRAY_OVERHEAD = 200;

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

/** One chunk of exceptional source positions: byte `shift/8` of word `word`, and the words its rows span. */
interface Chunk {
  readonly word: number;
  readonly shift: number;
  readonly bits: number;
  readonly lo: number;
  readonly hi: number;
}

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
  private readonly shiftMask: Int32Array;
  /** Positions p with an unlabelled p → p transition. */
  private readonly selfMask: Int32Array;
  /** Exceptional rows: for position p, the masks and follow sets of its transitions. */
  private readonly rowMasks: (number[] | undefined)[];
  private readonly rowBits: (Int32Array[] | undefined)[];
  private readonly chunks: readonly Chunk[];
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
    for (let i = 0; i < n; i++) {
      if (reachable[i] === 1 && rangesOf(insts[i] as EngineInst) !== undefined) {
        posOf[i] = instOf.length;
        instOf.push(i);
      }
    }
    const m = instOf.length;
    if (m > MAX_POSITIONS) throw new UnsupportedProgram(`${m} positions`);
    const W = Math.max(1, (m + 31) >> 5);
    this.words = W;

    // Closure over non-consuming instructions, with the assertions met on the way.
    const seen = new Int32Array(n * 64);
    let epoch = 0;
    let used = 0;
    const closure = (from: number, reach: Reach): void => {
      epoch++;
      const todo: number[] = [from, 0];
      while (todo.length > 0) {
        const mask = todo.pop() as number;
        const i = todo.pop() as number;
        const key = i * 64 + mask;
        if (seen[key] === epoch) continue;
        seen[key] = epoch;
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

    const shiftMask = new Int32Array(W);
    const selfMask = new Int32Array(W);
    const rowMasks: (number[] | undefined)[] = new Array(m);
    const rowBits: (Int32Array[] | undefined)[] = new Array(m);
    const accepts: number[] = [];
    let rowWords = 0;
    for (let p = 0; p < m; p++) {
      const targets: number[] = [];
      closure((insts[instOf[p] as number] as EngineInst).out, (q, mask) => {
        if (q < 0) accepts.push(p, mask);
        else targets.push(q, mask);
      });
      let exceptional = false;
      for (let k = 0; k < targets.length; k += 2) {
        const q = targets[k] as number;
        const mask = targets[k + 1] as number;
        const word = p >> 5;
        if (mask === 0 && q === p + 1) shiftMask[word] = (shiftMask[word] as number) | (1 << (p & 31));
        else if (mask === 0 && q === p) selfMask[word] = (selfMask[word] as number) | (1 << (p & 31));
        else exceptional = true;
      }
      if (!exceptional) continue;
      const masks: number[] = [];
      const bits: Int32Array[] = [];
      for (let k = 0; k < targets.length; k += 2) {
        const q = targets[k] as number;
        const mask = targets[k + 1] as number;
        let at = masks.indexOf(mask);
        if (at < 0) {
          at = masks.length;
          masks.push(mask);
          bits.push(new Int32Array(W));
          rowWords += W;
        }
        const row = bits[at] as Int32Array;
        row[q >> 5] = (row[q >> 5] as number) | (1 << (q & 31));
      }
      rowMasks[p] = masks;
      rowBits[p] = bits;
    }
    this.shiftMask = shiftMask;
    this.selfMask = selfMask;
    this.rowMasks = rowMasks;
    this.rowBits = rowBits;

    // Chunks: each byte of a word that holds exceptional positions; its rows' extent in words.
    const chunks: Chunk[] = [];
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
        if (bits !== 0 && hi > lo) chunks.push({ word: w, shift, bits, lo, hi });
      }
    }
    this.chunks = chunks;

    const starts: number[] = [];
    const nullableMasks: number[] = [];
    closure(prog.start, (q, mask) => {
      if (q < 0) nullableMasks.push(mask);
      else starts.push(q, mask);
    });
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
    const classRanges: Int32Array[] = [];
    const classMembers: number[][] = [];
    const cutSet = new Set<number>();
    for (let p = 0; p < m; p++) {
      const ranges = rangesOf(insts[instOf[p] as number] as EngineInst) as Int32Array;
      const key = ranges.join(",");
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
    this.next = new Int32Array(W);

    // Tables: 256 rows of each chunk's extent, per context the program can see.
    const contexts = new Set(ALL_CONTEXTS.map((ctx) => ctx & used)).size;
    const tableMax = chunks.reduce((sum, c) => sum + 256 * (c.hi - c.lo) * 4 + 256, 0) * contexts;
    const rowArrays = rowBits.reduce((sum, rows) => sum + (rows?.length ?? 0), 0);
    // Typed arrays: their bytes plus about 200 bytes each (the array object and its buffer); JavaScript
    // arrays and objects: 16 bytes per element, 64 per object.
    const arrays = rowArrays + 2 * classRanges.length + 2 * contexts + 2 * chunks.length * contexts + 12;
    this.bytes =
      2048 +
      ARRAY_OVERHEAD * arrays +
      4 * (rowWords + W * (6 + intervals + 2 * contexts)) +
      intervals +
      8 * (starts.length + accepts.length) +
      classRanges.reduce((sum, r) => sum + 4 * r.length, 0) +
      4 * m +
      16 * (2 * m + 64 + chunks.length * (1 + contexts)) +
      64 * (chunks.length + contexts) +
      Math.min(TABLE_BYTES, tableMax);
  }

  /** The set of positions that start a match in context `ctx` (cached per context). */
  private initFor(ctx: number): Int32Array {
    let init = this.initByCtx[ctx];
    if (init === undefined) {
      init = new Int32Array(this.words);
      for (let k = 0; k < this.startTargets.length; k++) {
        if (((this.startMasks[k] as number) & ~ctx) === 0) {
          const q = this.startTargets[k] as number;
          init[q >> 5] = (init[q >> 5] as number) | (1 << (q & 31));
        }
      }
      this.initByCtx[ctx] = init;
    }
    return init;
  }

  /** The set of positions after which a match ends in context `ctx` (cached per context). */
  private acceptFor(ctx: number): Int32Array {
    let accept = this.acceptByCtx[ctx];
    if (accept === undefined) {
      accept = new Int32Array(this.words);
      for (let k = 0; k < this.acceptTargets.length; k++) {
        if (((this.acceptMasks[k] as number) & ~ctx) === 0) {
          const p = this.acceptTargets[k] as number;
          accept[p >> 5] = (accept[p >> 5] as number) | (1 << (p & 31));
        }
      }
      this.acceptByCtx[ctx] = accept;
    }
    return accept;
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
    const chunks = this.chunks;
    let byChunk = this.tables[ctx];
    if (byChunk === undefined) {
      byChunk = new Array(chunks.length);
      this.tables[ctx] = byChunk;
    }
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c] as Chunk;
      const index = ((state[chunk.word] as number) >>> chunk.shift) & chunk.bits;
      if (index === 0) continue;
      const lo = chunk.lo;
      const width = chunk.hi - lo;
      let table = byChunk[c];
      if (table === undefined && this.tableBytes + 256 * width * 4 <= TABLE_BYTES) {
        table = { data: new Int32Array(256 * width), built: new Uint8Array(256) };
        this.tableBytes += 256 * width * 4;
        byChunk[c] = table;
      }
      if (table === undefined) {
        // Over the table budget: the rows directly.
        for (let b = 0; b < 8; b++)
          if ((index >> b) & 1) this.orRow(chunk.word * 32 + chunk.shift + b, ctx, out, 0, lo, chunk.hi);
        continue;
      }
      const base = index * width;
      const data = table.data;
      if (table.built[index] === 0) {
        for (let b = 0; b < 8; b++)
          if ((index >> b) & 1)
            this.orRow(chunk.word * 32 + chunk.shift + b, ctx, data, base - lo, lo, chunk.hi);
        table.built[index] = 1;
      }
      for (let w = lo; w < chunk.hi; w++) out[w] = (out[w] as number) | (data[base - lo + w] as number);
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

  /**
   * True when the program matches some part of `value` (RE2 semantics: code points, lone surrogates as
   * themselves). Time linear in `value.length`; never throws.
   */
  test(value: string): boolean {
    const W = this.words;
    let state = this.current;
    let next = this.next;
    state.fill(0);
    let active = false;
    const used = this.used;
    const length = value.length;
    const shiftMask = this.shiftMask;
    const selfMask = this.selfMask;
    const hasExceptions = this.chunks.length > 0;
    const classBits = this.intervalBits;
    let before = -1;
    let i = 0;
    for (;;) {
      let unit = -1;
      let cp = -1;
      let width = 1;
      if (i < length) {
        unit = value.charCodeAt(i);
        cp = unit;
        if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < length) {
          const low = value.charCodeAt(i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            cp = (unit - 0xd800) * 1024 + (low - 0xdc00) + 0x10000;
            width = 2;
          }
        }
      }
      const ctx = used === 0 ? 0 : contextOf(before, unit) & used;
      if (this.nullable[ctx] === 1) return true;
      if (active) {
        const accept = this.acceptFor(ctx);
        for (let w = 0; w < W; w++) if (((state[w] as number) & (accept[w] as number)) !== 0) return true;
      }
      if (cp < 0) return false;
      const classAt = this.classOffset(cp);
      const init = this.initFor(ctx);
      let any = 0;
      if (!active) {
        for (let w = 0; w < W; w++) {
          const v = (init[w] as number) & (classBits[classAt + w] as number);
          next[w] = v;
          any |= v;
        }
      } else {
        if (hasExceptions) {
          next.fill(0);
          this.exceptions(state, next, ctx);
        } else next.fill(0);
        let carry = 0;
        for (let w = 0; w < W; w++) {
          const x = state[w] as number;
          const s = x & (shiftMask[w] as number);
          const v =
            ((next[w] as number) | (s << 1) | carry | (x & (selfMask[w] as number)) | (init[w] as number)) &
            (classBits[classAt + w] as number);
          carry = s >>> 31;
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

/**
 * Builds a bit-parallel matcher for a pattern compiled by re2js.
 * @param compiled - `RE2JS.compile(source, flags)`
 * @returns the matcher
 * @throws {UnsupportedProgram} as `BitParallelMatcher`'s constructor
 */
export function bitParallelMatcher(compiled: RE2JS): BitParallelMatcher {
  const prog = (compiled as unknown as { re2Input?: { prog?: EngineProg } }).re2Input?.prog;
  if (prog === undefined) throw new UnsupportedProgram("no program");
  return new BitParallelMatcher(prog);
}
