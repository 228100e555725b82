/**
 * Label expressions: an AND, OR or NOT of dictionary leaves that decide every row (no array or object
 * values), on columns that keep a bitset of rows per code (`DictionaryColumn.codeBitsets`). Such an
 * expression is answered 32 rows per word operation over those bitsets (docs/performance.md, "Label
 * expressions"):
 *
 * - **A generated loop** (the default): one loop over the words computes the whole expression per word
 *   (`(b0[w] & b1[w]) | ~b2[w]`) and counts or stores it, so each bitset is read once and no intermediate
 *   bitset is written. Its source is built with `new Function` from the expression's shape alone (the kinds
 *   of its nodes, how many bitsets each leaf reads, which are complemented): no value of a condition or of
 *   a record ever enters it. Loops are kept by shape (at most `MAX_LOOPS`, least recently used dropped),
 *   so a repeated shape runs optimized code. It pays on the rows `IncidentSet.count: OR of two objects`
 *   and `$ne + $nin + equality` (bench/label-pairs.ts, paired rounds against the blocks at 1M incidents,
 *   median blocks ÷ loop over two runs: 1.98 and 1.71, 2.56 and 2.25; docs/performance.md, "Label
 *   expressions"); `findAll` gains within the noise (1.43 and 1.10, 1.23 and 1.04), its time spent
 *   gathering the records.
 * - **Blocks** (where `new Function` is unavailable or not wanted, the set's `compile.codegen: false`, or
 *   for an expression reading more than `MAX_GENERATED_BITSETS` bitsets): each node writes its words of a
 *   block of `BLOCK_WORDS` words into a buffer of its depth, which stays in the processor's cache.
 *
 * Both tick the budget as they go: after each block, or after each run of `CHUNK_WORDS` words of a
 * generated loop.
 */

import { sharedCache } from "../conditions/lru.js";
import { type Bitset, clearTail, popcount32 } from "./bitset.js";
import type { BudgetTimer } from "./search-budget.js";

/**
 * An expression over per-code bitsets (each `size` rows, bits past `size` clear):
 * - `codes`: the rows holding one of the codes whose bitsets are `bits` (none: no row), or with
 *   `complement` every row holding none of them;
 * - `and` / `or` of at least one child; `not` of one.
 */
export type LabelExpression =
  | { readonly kind: "codes"; readonly bits: readonly Bitset[]; readonly complement: boolean }
  | { readonly kind: "and" | "or"; readonly children: readonly LabelExpression[] }
  | { readonly kind: "not"; readonly child: LabelExpression };

/** Words of a block: 1 KiB a buffer, so that every depth's buffer stays in the first-level cache. */
const BLOCK_WORDS = 256;

/** Word operations of one pass over a block's words, as rows examined (the budget's unit). */
const ROWS_PER_WORD = 32;

/** The buffers of one evaluation, by depth (made on first need). */
type Scratch = Uint32Array[];

function buffer(scratch: Scratch, depth: number): Uint32Array {
  let out = scratch[depth];
  if (out === undefined) {
    out = new Uint32Array(BLOCK_WORDS);
    scratch[depth] = out;
  }
  return out;
}

/**
 * A single code's bitset when `expr` is one (complemented or not), for the loops that combine it straight
 * from its column instead of copying it into a buffer first.
 */
function single(expr: LabelExpression): Bitset | undefined {
  return expr.kind === "codes" && expr.bits.length === 1 ? expr.bits[0] : undefined;
}

/**
 * Writes words `from … from + n - 1` of `expr` into `out[0 … n - 1]`, using the buffers of `depth` and
 * deeper. Returns the word operations done, for the budget. Bits past the rows may be set in the last word
 * (a complement): the caller clears them.
 */
function evaluateBlock(
  expr: LabelExpression,
  out: Uint32Array,
  from: number,
  n: number,
  scratch: Scratch,
  depth: number,
): number {
  switch (expr.kind) {
    case "codes": {
      const { bits, complement } = expr;
      if (bits.length === 0) {
        out.fill(complement ? 0xffffffff : 0, 0, n);
        return n;
      }
      const first = bits[0]!;
      for (let i = 0; i < n; i++) out[i] = first[from + i]!;
      for (let c = 1; c < bits.length; c++) {
        const b = bits[c]!;
        for (let i = 0; i < n; i++) out[i]! |= b[from + i]!;
      }
      if (complement) for (let i = 0; i < n; i++) out[i] = ~out[i]!;
      return n * (bits.length + (complement ? 1 : 0));
    }
    case "not": {
      const ops = evaluateBlock(expr.child, out, from, n, scratch, depth);
      for (let i = 0; i < n; i++) out[i] = ~out[i]!;
      return ops + n;
    }
    case "and":
    case "or": {
      const { children } = expr;
      const isAnd = expr.kind === "and";
      let ops = evaluateBlock(children[0]!, out, from, n, scratch, depth);
      for (let k = 1; k < children.length; k++) {
        const child = children[k]!;
        const b = single(child);
        let any = 0;
        if (b !== undefined) {
          // One code: combined straight from its bitset.
          const flip = (child as { complement: boolean }).complement ? 0xffffffff : 0;
          if (isAnd)
            for (let i = 0; i < n; i++) {
              const x = out[i]! & (b[from + i]! ^ flip);
              out[i] = x;
              any |= x;
            }
          else for (let i = 0; i < n; i++) out[i]! |= b[from + i]! ^ flip;
          ops += n;
        } else {
          const tmp = buffer(scratch, depth);
          ops += evaluateBlock(child, tmp, from, n, scratch, depth + 1) + n;
          if (isAnd)
            for (let i = 0; i < n; i++) {
              const x = out[i]! & tmp[i]!;
              out[i] = x;
              any |= x;
            }
          else for (let i = 0; i < n; i++) out[i]! |= tmp[i]!;
        }
        // An AND whose block is empty stays empty: the other children are not read for it.
        if (isAnd && any === 0) {
          out.fill(0, 0, n);
          break;
        }
      }
      return ops;
    }
  }
}

/** Clears, in the block ending at the last word, the bits past `size`. */
function clearBlockTail(out: Uint32Array, n: number, from: number, words: number, size: number): void {
  const rest = size & 31;
  if (from + n === words && rest !== 0) out[n - 1]! &= 2 ** rest - 1;
}

/** Words evaluated between two ticks of the budget (32,768 rows). */
const CHUNK_WORDS = 1024;

/** Bitsets one generated loop reads at most; a larger expression is evaluated by blocks. */
const MAX_GENERATED_BITSETS = 64;

/** Generated loops kept, by shape; past this many, the least recently used is dropped. */
const MAX_LOOPS = 256;

/**
 * A generated loop: over words `from … to - 1` of the expression whose bitsets are `bits` (in the order of
 * the shape's leaves), the word `last` masked by `mask`; counts the rows set, or (given `out`) stores the
 * words and returns 0.
 */
type WordLoop = (
  bits: readonly Bitset[],
  from: number,
  to: number,
  last: number,
  mask: number,
  out: Bitset | null,
) => number;

/**
 * Generated loops by shape and mode (`count` or `dense`): `cacheStats().labelLoops`, 256 shapes, 8 MiB,
 * least recently used dropped; a loop weighs its source twice over (text and code) and 2 KiB.
 */
const loops = sharedCache<WordLoop>("labelLoops", MAX_LOOPS, 8 * 1024 * 1024);
/** Set once `new Function` threw an `EvalError` (a Content-Security-Policy): never tried again. */
let generationRefused = false;

/**
 * The JavaScript expression of `expr`'s word `w`, with its bitsets pushed to `bits` in the order the
 * expression names them (`b0`, `b1`, …): built from the shape only.
 */
function wordSource(expr: LabelExpression, bits: Bitset[]): string {
  switch (expr.kind) {
    case "codes": {
      if (expr.bits.length === 0) return expr.complement ? "-1" : "0";
      const terms = expr.bits.map((b) => {
        bits.push(b);
        return `b${bits.length - 1}[w]`;
      });
      const union = terms.length === 1 ? terms[0]! : `(${terms.join(" | ")})`;
      return expr.complement ? `~${union}` : union;
    }
    case "not":
      return `~(${wordSource(expr.child, bits)})`;
    case "and":
    case "or":
      return `(${expr.children.map((child) => wordSource(child, bits)).join(expr.kind === "and" ? " & " : " | ")})`;
  }
}

/** `expr`'s generated loop and the bitsets it reads, or undefined (too many bitsets, no `new Function`). */
function generatedLoop(
  expr: LabelExpression,
  counting: boolean,
): { loop: WordLoop; bits: Bitset[] } | undefined {
  if (generationRefused) return undefined;
  const bits: Bitset[] = [];
  const word = wordSource(expr, bits);
  if (bits.length > MAX_GENERATED_BITSETS) return undefined;
  const key = `${counting ? "count" : "dense"} ${bits.length} ${word}`;
  let loop = loops.get(key);
  if (loop === undefined) {
    const declarations = bits.map((_, k) => `const b${k} = B[${k}];`).join(" ");
    const step = counting
      ? "if (x !== 0) { x -= (x >>> 1) & 0x55555555; x = (x & 0x33333333) + ((x >>> 2) & 0x33333333); " +
        "total += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24; }"
      : "out[w] = x;";
    const source =
      `"use strict"; ${declarations} let total = 0; ` +
      `for (let w = from; w < to; w++) { let x = ${word}; if (w === last) x &= mask; ${step} } return total;`;
    try {
      loop = new Function("B", "from", "to", "last", "mask", "out", source) as WordLoop;
    } catch (error) {
      if (error instanceof EvalError) {
        generationRefused = true;
        return undefined;
      }
      throw error;
    }
    loops.set(key, loop, 4 * source.length + 2048);
  }
  return { loop, bits };
}

/** The mask of the last word: its bits of rows below `size`. */
function lastMask(size: number): number {
  const rest = size & 31;
  return rest === 0 ? -1 : 2 ** rest - 1;
}

/**
 * The rows of `expr` among `size` rows (no bitset of every row is written).
 * @param timer - ticked once per row per `CHUNK_WORDS` words evaluated
 * @param codegen - false: never a generated loop (the blocks alone)
 * @throws {SearchTimeoutError} from `timer`
 */
export function countLabels(expr: LabelExpression, size: number, timer: BudgetTimer, codegen = true): number {
  const words = (size + 31) >>> 5;
  const generated = codegen ? generatedLoop(expr, true) : undefined;
  if (generated !== undefined) {
    const { loop, bits } = generated;
    const mask = lastMask(size);
    let total = 0;
    for (let from = 0; from < words; from += CHUNK_WORDS) {
      const to = Math.min(words, from + CHUNK_WORDS);
      total += loop(bits, from, to, words - 1, mask, null);
      timer.tick((to - from) * ROWS_PER_WORD);
    }
    return total;
  }
  const scratch: Scratch = [];
  const out = new Uint32Array(BLOCK_WORDS);
  let total = 0;
  for (let from = 0; from < words; from += BLOCK_WORDS) {
    const n = Math.min(BLOCK_WORDS, words - from);
    const ops = evaluateBlock(expr, out, from, n, scratch, 1);
    clearBlockTail(out, n, from, words, size);
    for (let i = 0; i < n; i++) {
      const x = out[i]!;
      if (x !== 0) total += popcount32(x);
    }
    timer.tick((ops + n) * ROWS_PER_WORD);
  }
  return total;
}

/**
 * The rows of `expr` among `size` rows, as a bitset (bits past `size` clear).
 * @param timer - ticked once per row per `CHUNK_WORDS` words evaluated
 * @param codegen - false: never a generated loop (the blocks alone)
 * @throws {SearchTimeoutError} from `timer`
 */
export function denseLabels(expr: LabelExpression, size: number, timer: BudgetTimer, codegen = true): Bitset {
  const words = (size + 31) >>> 5;
  const t = new Uint32Array(words);
  const generated = codegen ? generatedLoop(expr, false) : undefined;
  if (generated !== undefined) {
    const { loop, bits } = generated;
    const mask = lastMask(size);
    for (let from = 0; from < words; from += CHUNK_WORDS) {
      const to = Math.min(words, from + CHUNK_WORDS);
      loop(bits, from, to, words - 1, mask, t);
      timer.tick((to - from) * ROWS_PER_WORD);
    }
    return t;
  }
  const scratch: Scratch = [];
  for (let from = 0; from < words; from += BLOCK_WORDS) {
    const n = Math.min(BLOCK_WORDS, words - from);
    const ops = evaluateBlock(expr, t.subarray(from, from + n), from, n, scratch, 1);
    timer.tick(ops * ROWS_PER_WORD);
  }
  clearTail(t, size);
  return t;
}
