/**
 * The construction of a bit-parallel matcher (bit-parallel.ts explains the method): from a compiled re2js
 * program, its positions, the transitions between them folded over the non-consuming instructions with
 * their assertions, and the structures the step reads: the flood of runs of optional items, the shift
 * distances, the columns, the groups and the chunks of exceptional transitions, the classes cut into
 * intervals, the DFA of a one-word program, and the estimate of the bytes it all keeps alive.
 *
 * Why one piece: the constructor is one pass over the transitions, each stage taking out of the rows what
 * the one before it left (the flood, then the columns, the shifts, the groups, the chunks), so its stages
 * share their working arrays; it is a class (the matcher extends it) so that the matcher's hot loops read
 * the structures as fields of one object.
 */

import {
  ALL_CONTEXTS,
  BEGIN_TEXT,
  END_TEXT,
  type EngineInst,
  type EngineProg,
  INST,
  MAX_RUNE,
  NO_WORD_BOUNDARY,
  rangesOf,
  WORD_BOUNDARY,
} from "./re2-program.js";

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

/** A transition target found by `closure`: a position (≥ 0) or the match (−1), and its assertions. */
type Reach = (target: number, mask: number) => void;

/** Why the program cannot run on this matcher (the caller keeps re2js). */
export class UnsupportedProgram extends Error {}

/** The lazily built DFA of a one-word program: state sets, their ids, and transitions by interval. */
export interface Dfa {
  readonly ids: Map<number, number>;
  readonly states: number[];
  readonly rows: Int32Array[];
}

/** The most states the DFA of one matcher keeps (each a row of one number per class interval). */
export const DFA_STATES = 64;

/** The most class intervals for which a one-word program gets a DFA. */
const DFA_INTERVALS = 512;

/** The structures of a bit-parallel matcher, built once from a compiled re2js program. */
export class PositionAutomaton {
  /** Words per state set. */
  protected readonly words: number;
  /** Context bits the program's assertions read (contexts are projected onto them). */
  protected readonly used: number;
  /** Columns (see the constructor): the exceptional sources in order, the columns (target, mask, first
   * run, runs: four numbers each), their runs of source indices (two numbers each), prefix counts. */
  protected readonly columnSources: Int32Array;
  protected readonly columns: Int32Array;
  protected readonly columnRuns: Int32Array;
  protected readonly activeBefore: Int32Array;
  protected readonly columnCount: number;
  /** The shift distances, and by distance the sources that take it, by assertion mask. */
  protected readonly distances: Int32Array;
  protected readonly shiftSets: readonly Map<number, Int32Array>[];
  /** Exceptional rows: for position p, the masks and follow sets of its transitions. */
  protected readonly rowMasks: (number[] | undefined)[];
  protected readonly rowBits: (Int32Array[] | undefined)[];
  /** Chunks, five numbers each: word, shift, bits of exceptional sources, first and past-last row word. */
  protected readonly chunks: Int32Array;
  protected readonly chunkCount: number;
  /** Groups of sources sharing one row: their sources, rows (W words each), extents (4 numbers each). */
  protected readonly groupCount: number;
  protected readonly groupSources: Int32Array;
  protected readonly groupRows: Int32Array;
  protected readonly groupExtent: Int32Array;
  /** The flood (see the constructor): run starts, the bit past each run, both with the runs. */
  protected readonly floods: boolean;
  protected readonly floodStart: Int32Array;
  protected readonly floodEnd: Int32Array;
  protected readonly floodArea: Int32Array;
  /** Start transitions and match transitions (target, mask). */
  protected readonly startTargets: Int32Array;
  protected readonly startMasks: Int32Array;
  protected readonly acceptTargets: Int32Array;
  protected readonly acceptMasks: Int32Array;
  /** Whether the empty string matches in a context, by context. */
  protected readonly nullable: Uint8Array;
  /** Classes: ranges, the positions of each, the interval cuts and the lazily computed interval sets. */
  protected readonly classRanges: Int32Array[];
  protected readonly classPositions: Int32Array[];
  protected readonly cuts: Int32Array;
  protected readonly latin: Int32Array;
  protected readonly intervalBits: Int32Array;
  protected readonly intervalReady: Uint8Array;
  protected readonly current: Int32Array;
  /** Every match starts at the start of the value (`^` without `m`, `\A`): no new start after it. */
  protected readonly anchored: boolean;
  /** One-word programs: the exceptional positions. */
  protected readonly wordExceptions: number;
  /** One-word programs without assertions and with few class intervals: the lazily built DFA. */
  protected readonly dfa: Dfa | undefined;
  /** One-word programs: the group of each position (−1: none). */
  protected readonly groupOf: Int32Array;
  protected readonly next: Int32Array;
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
      forEachRow(sourceMasks, sourceRows, m, (_p, mask, row) =>
        forEachBit(row, W, (q) => degree.set(q * 64 + mask, (degree.get(q * 64 + mask) ?? 0) + 1)),
      );
    }
    const sourcesOf = new Map<number, number[]>();
    for (const [key, count] of degree) if (count >= 8) sourcesOf.set(key, []);
    if (sourcesOf.size > 0) {
      forEachRow(sourceMasks, sourceRows, m, (p, mask, row) =>
        forEachBit(row, W, (q) => sourcesOf.get(q * 64 + mask)?.push(p)),
      );
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
    forEachRow(sourceMasks, sourceRows, m, (p, _mask, row) =>
      forEachBit(row, W, (q) => counts.set(q - p, (counts.get(q - p) ?? 0) + 1)),
    );
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
    forEachRow(sourceMasks, sourceRows, m, (p, mask, row) => {
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
    });

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
}

/** Calls `visit` with each row of each position `p < m` (`masks[p][r]` is the assertion mask of `rows[p][r]`). */
function forEachRow(
  masks: readonly number[][],
  rows: readonly Int32Array[][],
  m: number,
  visit: (p: number, mask: number, row: Int32Array) => void,
): void {
  for (let p = 0; p < m; p++) {
    const pMasks = masks[p] as number[];
    const pRows = rows[p] as Int32Array[];
    for (let r = 0; r < pMasks.length; r++) visit(p, pMasks[r] as number, pRows[r] as Int32Array);
  }
}

/** Calls `visit` with each position of a set of `words` words, in ascending order. */
function forEachBit(set: Int32Array, words: number, visit: (q: number) => void): void {
  for (let w = 0; w < words; w++) {
    let bits = set[w] as number;
    while (bits !== 0) {
      visit(w * 32 + 31 - Math.clz32(bits & -bits));
      bits &= bits - 1;
    }
  }
}
