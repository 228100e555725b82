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
 * Files: re2-program.ts reads re2js's program, position-automaton.ts builds the structures below once,
 * this module steps them over a value.
 *
 * Cost: per character, O(W) word operations (W = positions / 32) plus O(W) per active chunk of exceptions
 * (at most positions / 8 chunks); nothing depends on the value but its length. Memory: the rows, the
 * interval sets and the tables, all bounded by the program's size and counted in `bytes`.
 */

import type { RE2JS } from "re2js";
import {
  DFA_STATES,
  type Dfa,
  PositionAutomaton,
  TABLE_BYTES,
  UnsupportedProgram,
} from "./position-automaton.js";
import {
  contextOf,
  type EnginePrefilter,
  type EngineProg,
  holds,
  inRanges,
  requiredText,
} from "./re2-program.js";

export {
  DFA_STATES,
  MAX_CUTS,
  MAX_POSITIONS,
  MAX_SHIFTS,
  TABLE_BYTES,
  UnsupportedProgram,
} from "./position-automaton.js";
export type { RequiredText } from "./re2-program.js";

/** A lazily built table of a chunk in one context: 256 rows of `hi - lo` words, and which are built. */
interface Table {
  readonly data: Int32Array;
  readonly built: Uint8Array;
}

/**
 * A compiled bit-parallel matcher of one re2js program. `test(value)` answers whether the program matches
 * any part of `value` (unanchored search, RE2 semantics), in time linear in `value.length`.
 */
export class BitParallelMatcher extends PositionAutomaton {
  /** By context: the sources of each distance enabled there (`distances.length` × W words). */
  private readonly shiftsByCtx: (Int32Array | undefined)[] = [];
  /** Tables by context, then by chunk. */
  private readonly tables: (Table | undefined)[][] = [];
  private tableBytes = 0;
  private readonly initByCtx: (Int32Array | undefined)[] = [];
  private readonly acceptByCtx: (Int32Array | undefined)[] = [];
  /** One-word programs: the union of the enabled rows of each position, by context (32 words each). */
  private readonly wordRows: (Int32Array | undefined)[] = [];

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
    const k = cp < 256 ? (this.latin[cp] as number) : this.intervalOf(cp);
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
      // A surrogate pair is one code point, a lone surrogate itself; -1 past the end. The context reads a
      // code point as its first code unit would be read: neither a surrogate nor a code point past U+FFFF
      // is a word character or a newline.
      const cp = i < length ? (value.codePointAt(i) as number) : -1;
      if (used !== 0) {
        const next = contextOf(before, cp) & used;
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
      before = cp;
      i += cp > 0xffff ? 2 : 1;
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
      // A surrogate pair is one code point, a lone surrogate itself; -1 past the end. The context reads a
      // code point as its first code unit would be read: neither a surrogate nor a code point past U+FFFF
      // is a word character or a newline.
      const cp = i < length ? (value.codePointAt(i) as number) : -1;
      const ctx = used === 0 ? 0 : contextOf(before, cp) & used;
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
      before = cp;
      i += cp > 0xffff ? 2 : 1;
    }
  }
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
