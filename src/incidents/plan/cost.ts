/**
 * The planner's cost model (plan/index.ts has the map): how many rows a node selects (its `estimate`, the
 * expected fraction of true rows, unknown rows counted half) and what each way of answering costs, in rows
 * examined. Numbers and formulas only: the nodes call these, and the choices that compare them
 * (`deferTextLeaves`, `AndPlan.seedLeaf`, `firstPath`, `candidateChoice`) read the nodes. docs/performance.md
 * gives the measurements behind the constants.
 */

import { TRUE, type Tri, UNKNOWN } from "./node.js";

/** Below this fraction of possible rows, an AND switches from column scans to row-at-a-time. */
export const ROW_MODE_FRACTION = 1 / 24;

/** An AND child selecting at most this fraction of the rows seeds row-at-a-time evaluation. */
export const SEED_FRACTION = 1 / 8;

/**
 * The seed fraction when the alternative is a fused scan of every row (a date interval among the
 * children, or columns without per-code bitsets): a seed row costs about three times a scanned row, so
 * seeding pays up to about a third of the rows; a quarter keeps a margin.
 */
export const SCAN_SEED_FRACTION = 1 / 4;

/** A text leaf's row check costs about this many cheap column checks (a memo read, else a string search). */
export const TEXT_ROW_COST = 4;

/**
 * Trigram list entries read in the time of one test of a value by its pattern (a few nanoseconds an entry
 * in a pass over the lists, a few hundred for a test that reaches the value's text): `TextLeaf.prepareRows`.
 */
export const LIST_ENTRIES_PER_TEST = 32;

/** The estimate of a leaf that counted its rows: `trueRows` surely true, `unknownRows` undecided, of `size`. */
export function countedEstimate(trueRows: number, unknownRows: number, size: number): number {
  return size === 0 ? 0 : (trueRows + unknownRows / 2) / size;
}

/**
 * The estimate of a hash leaf: `probed` rows may equal an operand, `arrayRows` hold an array; for `$ne` /
 * `$nin` (not `positive`) the complement.
 */
export function hashEstimate(probed: number, arrayRows: number, size: number, positive: boolean): number {
  const fraction = size === 0 ? 0 : (probed + arrayRows / 2) / size;
  return positive ? fraction : 1 - fraction;
}

/**
 * The guess for a `$regex` no column narrows (a residual leaf, a per-row text leaf): a literal pattern
 * (`literal`) selects fewer rows.
 */
export function regexGuess(literal: boolean): number {
  return literal ? 0.1 : 0.2;
}

/** The guess for any other node no column answers. */
export const RESIDUAL_GUESS = 0.5;

/**
 * The fraction of true rows (unknown counted half) among up to 256 evenly spaced rows of `size`, by
 * `row(i)` (a date leaf: no histogram to read).
 */
export function sampledEstimate(size: number, row: (i: number) => Tri): number {
  if (size === 0) return 0;
  const step = Math.max(1, Math.floor(size / 256));
  let hits = 0;
  let seen = 0;
  for (let i = 0; i < size; i += step) {
    const answer = row(i);
    hits += answer === TRUE ? 1 : answer === UNKNOWN ? 0.5 : 0;
    seen++;
  }
  return hits / seen;
}

/** The estimate of an AND: the product of its children's (as if independent). */
export function andEstimate(children: readonly { readonly estimate: number }[]): number {
  return children.reduce((product, child) => product * child.estimate, 1);
}

/** The estimate of an OR: the sum of its children's, at most 1. */
export function orEstimate(children: readonly { readonly estimate: number }[]): number {
  return Math.min(
    1,
    children.reduce((sum, child) => sum + child.estimate, 0),
  );
}

/**
 * Whether a text leaf should run last in a conjunction, row by row (`deferTextLeaves`, docs/performance.md
 * "Text conditions in a conjunction"): `rowsLeft × TEXT_ROW_COST + firstCost < valueTests + 2 × textRows`.
 * @param rowsLeft - the rows × the other column leaves' estimates
 * @param firstCost - what the others' cheapest start costs (a seed's rows, a segment or a scan in word
 *   operations)
 * @param valueTests - the candidate values the leaf's accept table would test (0 once cached)
 * @param textRows - the rows the text leaf would seed (each checked against the other children)
 */
export function deferPays(
  rowsLeft: number,
  firstCost: number,
  valueTests: number,
  textRows: number,
): boolean {
  return rowsLeft * TEXT_ROW_COST + firstCost < valueTests + 2 * textRows;
}

/**
 * The rows `findFirst` expects to examine walking `window` positions of the creation order when the rest
 * of the conjunction selects a fraction `rest` of the rows (about `1 / rest` rows to the first match), plus
 * `tailRows` checked after the window (rows whose `CreatedUtcTime` holds an array).
 */
export function scanCost(window: number, rest: number, tailRows: number): number {
  return Math.min(window, 1 / rest) + tailRows;
}

/**
 * The rows `findFirst` expects to examine through a text leaf selecting a fraction `estimate` of `size`
 * rows: its accepted rows (twice: listed, then checked) and the `complexRows` it cannot decide.
 */
export function textRowsCost(size: number, estimate: number, complexRows: number): number {
  return 2 * size * estimate + complexRows;
}

/**
 * The cost of `findFirst` walking a dictionary leaf's postings (selecting a fraction `estimate`) merged in
 * creation order over `window` positions, the rest of the conjunction selecting `rest`: twice the entries
 * walked to the first match (each read, then checked), and a merge step per accepted code (`codes`).
 */
export function postingsCost(
  window: number,
  estimate: number,
  rest: number,
  size: number,
  codes: number,
): number {
  const entries = window * estimate;
  const others = Math.max(rest / estimate, 1 / Math.max(size, 1));
  return 2 * Math.min(entries, 1 / others) + 4 * codes;
}

/** Candidate lists (`candidateChoice`) of at most this many rows are walked instead of the columns. */
export function candidateLimit(size: number): number {
  return Math.max(64, size / 64);
}
