/**
 * The logical nodes of a plan (plan/index.ts has the map): AND, OR and NOT under three-valued logic, each
 * answering a row by folding its children's answers (node.ts) and every row by choosing a physical pass.
 * An AND runs a selective child's rows as a seed (row-passes.ts), column leaves deciding every row fused
 * (passes.ts; dictionary leaves of low-cardinality columns as a label expression over per-code bitsets,
 * label-bitsets.ts), a `CreatedUtcTime` segment of the creation order, or its children most selective
 * first, each over the rows still possible, switching to row-at-a-time when few remain; text leaves that
 * cost more than the rows the others leave run last, row by row (`deferTextLeaves`). An OR or NOT of labels
 * runs as a label expression, else as the union or complement of its children's bitsets.
 */

import type { Condition } from "../../conditions/ast.js";
import { assertNever } from "../../conditions/ast.js";
import { and, type Bitset, bitsToRows, emptyBitset, fullBitset, not, or, popcount } from "../bitset.js";
import { CODE_MISSING, type Codes, type DateColumn } from "../columns.js";
import { denseLabels, type LabelExpression } from "../label-bitsets.js";
import { ORDER_FIELD } from "../order.js";
import type { BudgetTimer } from "../search-budget.js";
import {
  andEstimate,
  deferPays,
  orEstimate,
  ROW_MODE_FRACTION,
  SCAN_SEED_FRACTION,
  SEED_FRACTION,
} from "./cost.js";
import { DateLeaf } from "./date-leaf.js";
import { DictionaryLeaf, HashLeaf, ResidualLeaf } from "./leaves.js";
import {
  allOf,
  anyOf,
  type DenseResult,
  FALSE,
  type OrderAccess,
  type PlanNode,
  TRUE,
  type Tri,
  UNBOUNDED,
  UNKNOWN,
} from "./node.js";
import {
  type AnswerSink,
  fusedScan,
  fusedScanWithDates,
  RowAnswers,
  RowTally,
  segmentPositions,
} from "./passes.js";
import { rowModePass, seededPass, segmentPass, thenRowsPass } from "./row-passes.js";
import { TextLeaf } from "./text-leaf.js";

/** A child whose rows can seed a row-at-a-time pass (`AndPlan.seedLeaf`). */
type SeedLeaf = DictionaryLeaf | HashLeaf | TextLeaf;

/** The children of an AND as fused-pass inputs (`AndPlan.fusedShape`). */
type FusedShape = { codes: Codes[]; accepts: Uint8Array[]; date: DateLeaf | undefined };

/** How an AND answers densely (`AndPlan.choose`): one decision for `dense` and `strategy`. */
type Choice =
  | { readonly kind: "segment"; readonly segment: { date: DateLeaf; from: number; to: number } }
  | { readonly kind: "first"; readonly first: PlanNode }
  | { readonly kind: "seeded"; readonly seed: SeedLeaf }
  | { readonly kind: "fused"; readonly shape: FusedShape; readonly byCodeBitsets: boolean }
  | { readonly kind: "columns" };

const COLUMNS: Choice = Object.freeze({ kind: "columns" });

/** The strategy of an AND of labels over per-code bitsets (`AndPlan.strategy`). */
export const FUSED_CODE_BITSETS = "fused code bitsets";

/**
 * AND of children under three-valued logic (false wins, then unknown). Evaluation: a selective child's
 * rows seed a row-at-a-time pass; else column leaves deciding every row run fused (dictionary leaves of
 * low-cardinality columns as word-wide operations on per-code bitsets, otherwise up to three column leaves
 * in one pass over the rows); else children run most selective first, each over the rows still possible,
 * switching to row-at-a-time when few remain.
 */
export class AndPlan implements PlanNode {
  readonly condition: Condition;
  readonly children: readonly PlanNode[];
  readonly estimate: number;
  readonly size: number;
  private readonly timer: BudgetTimer;

  /**
   * Text leaves run last, row by row, on the rows the other children leave (see `deferTextLeaves`); empty
   * when none is.
   */
  readonly deferred: readonly TextLeaf[];
  /** The other children, as one node (an AND of them, or the one child), when `deferred` is not empty. */
  private readonly first: PlanNode | undefined;

  /** The creation order and its date column, for `segmentScan` (absent: no segment scans). */
  private readonly order: OrderAccess | undefined;
  /** False: label expressions without generated code (`Storage.codegen`). */
  private readonly codegen: boolean;

  constructor(
    node: Condition,
    children: PlanNode[],
    size: number,
    timer: BudgetTimer = UNBOUNDED,
    order?: OrderAccess,
    codegen = true,
  ) {
    this.condition = node;
    this.size = size;
    this.timer = timer;
    this.order = order;
    this.codegen = codegen;
    const deferred = deferTextLeaves(children, size, order?.column);
    // Most selective first; deferred text leaves after the other column leaves; residual leaves (unknown
    // everywhere) last.
    this.children = children
      .map((child, index) => ({
        child,
        index,
        key:
          child instanceof ResidualLeaf
            ? 4 + child.estimate
            : deferred.includes(child as TextLeaf)
              ? 2 + child.estimate
              : child.estimate,
      }))
      .sort((a, b) => a.key - b.key || a.index - b.index)
      .map((entry) => entry.child);
    this.estimate = andEstimate(children);
    this.deferred = deferred;
    const rest = this.children.filter((child) => !deferred.includes(child as TextLeaf));
    this.first =
      deferred.length === 0
        ? undefined
        : rest.length === 1
          ? rest[0]!
          : new AndPlan(node, rest, size, timer, undefined, codegen);
  }

  row(i: number): Tri {
    return allOf(this.children, i);
  }

  dense(within: Bitset | null): DenseResult {
    const choice = this.choose(within);
    switch (choice.kind) {
      case "segment": {
        const out = new RowAnswers(this.size);
        this.segmentScan(within, choice.segment, out);
        // P is T itself when no row is unknown.
        return { t: out.t, p: out.unknown ? out.p : out.t };
      }
      case "first":
        return this.thenRows(choice.first.dense(within), this.deferred);
      case "seeded":
        return this.seeded(within, choice.seed);
      case "fused": {
        const fused = this.fused(within, choice.shape, choice.byCodeBitsets);
        if (fused !== undefined) return fused;
        break;
      }
      case "columns":
        break;
      default:
        assertNever(choice);
    }
    let t: Bitset | null = null;
    let p: Bitset | null = within;
    const children = this.children;
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!;
      if (child instanceof ResidualLeaf) continue; // unknown everywhere: leaves p as is, t empty
      if (p !== null && popcount(p) < this.size * ROW_MODE_FRACTION) {
        return this.rowMode(t, p, k);
      }
      const result = child.dense(p);
      t = t === null ? result.t : and(t, result.t);
      p = p === null ? result.p : and(p, result.p);
      this.timer.tick(this.size); // the word-wide ANDs
    }
    if (p === null) {
      const all = fullBitset(this.size);
      return { t: this.hasResidual() ? emptyBitset(this.size) : all, p: all };
    }
    if (t === null || this.hasResidual()) return { t: emptyBitset(this.size), p };
    return { t: and(t, p), p };
  }

  /**
   * `count`'s pass when this AND scans a segment of the creation order (`strategy()` begins "segment"): the
   * rows surely true counted and the unknown ones listed (`RowTally`), with no bitset of every row
   * allocated or written; undefined for any other strategy (`count` then counts `dense(null)`).
   * @throws {SearchTimeoutError} from the budget's timer
   */
  tallyBySegment(): RowTally | undefined {
    const segment = this.segmentChoice();
    if (segment === undefined) return undefined;
    const tally = new RowTally();
    this.segmentScan(null, segment, tally);
    return tally;
  }

  /**
   * When one child selects few rows (a dictionary leaf by its postings, a hash leaf by its hits), only
   * those rows are examined, row by row: a selection vector instead of column scans.
   */
  private seeded(within: Bitset | null, best: SeedLeaf): DenseResult {
    // A hash leaf's candidates are its hits (surely true) then the rows holding an array (unknown: an
    // element may equal an operand, or not); a text leaf's, the rows of its accepted values (surely true)
    // then those holding an array or an object (unknown). A dictionary leaf's seed rows are re-read with
    // the others.
    const rows =
      best instanceof DictionaryLeaf
        ? best.seedRows()
        : best instanceof HashLeaf
          ? [...best.hits, ...best.index.arrayRows]
          : best.candidates();
    const sure =
      best instanceof HashLeaf
        ? best.hits.length
        : best instanceof TextLeaf
          ? rows.length - best.unknownCount
          : rows.length;
    // Dictionary children are read straight from their columns (no virtual call per row).
    const codes: Codes[] = [];
    const accepts: Uint8Array[] = [];
    const others: PlanNode[] = [];
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf) {
        codes.push(child.column.codes);
        accepts.push(child.accept);
      } else if (child !== best) others.push(child);
    }
    return seededPass(rows, sure, within, { codes, accepts }, others, this.size, this.timer);
  }

  /**
   * When every child is a column leaf that decides every row (dictionary columns without arrays or objects,
   * `CreatedUtcTime`-style intervals on a date column without arrays), one branch-free pass over the
   * columns ANDs the children's answers: no intermediate bitsets.
   */
  private fused(within: Bitset | null, shape: FusedShape, byCodeBitsets: boolean): DenseResult | undefined {
    const { codes, accepts, date } = shape;
    if (byCodeBitsets) {
      const bits = this.fusedByCodeBitsets();
      if (bits !== undefined) return { t: bits, p: bits };
    }
    if (codes.length > 3) return undefined;
    // Fewer than three columns: repeat the first (AND is idempotent), so one loop shape serves all.
    while (codes.length < 3) {
      codes.push(codes[0]!);
      accepts.push(accepts[0]!);
    }
    const size = this.size;
    const t = new Uint32Array((size + 31) >>> 5);
    if (date === undefined) fusedScan(t, size, within, codes, accepts, this.timer);
    else fusedScanWithDates(t, size, within, codes, accepts, date.column.ms, date.interval!, this.timer);
    if (within !== null) for (let w = 0; w < t.length; w++) t[w]! &= within[w]!;
    return { t, p: t };
  }

  /**
   * The children as fused-pass inputs when every child is a column leaf deciding every row (at most one
   * date interval), with at least one dictionary leaf; otherwise undefined.
   */
  private fusedShape(): FusedShape | undefined {
    const codes: Codes[] = [];
    const accepts: Uint8Array[] = [];
    let date: DateLeaf | undefined;
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf && child.unknownCount === 0) {
        codes.push(child.column.codes);
        accepts.push(child.accept);
      } else if (child instanceof DateLeaf && date === undefined && child.decidesByInterval()) {
        date = child;
      } else return undefined;
    }
    return codes.length === 0 ? undefined : { codes, accepts, date };
  }

  /**
   * The strategy `dense(null)` takes (what `explain` reports): `seeded by <leaf>`, `fused code bitsets`,
   * `fused scan`, `fused scan with dates`, or `column scans`.
   */
  strategy(): string {
    const choice = this.choose(null);
    switch (choice.kind) {
      case "segment":
        if (this.deferred.length === 0) return `segment ${ORDER_FIELD}, labels by word`;
        return `segment ${ORDER_FIELD}, then per row ${this.deferred.map((leaf) => leaf.describe()).join(", ")}`;
      case "first": {
        const first = choice.first instanceof AndPlan ? choice.first.strategy() : choice.first.describe();
        return `${first}, then per row ${this.deferred.map((leaf) => leaf.describe()).join(", ")}`;
      }
      case "seeded":
        return `seeded by ${choice.seed.describe()}`;
      case "fused":
        if (choice.byCodeBitsets) return FUSED_CODE_BITSETS;
        if (choice.shape.codes.length <= 3) {
          return choice.shape.date === undefined ? "fused scan" : "fused scan with dates";
        }
        return "column scans";
      case "columns":
        return "column scans";
      default:
        return assertNever(choice);
    }
  }

  /**
   * How `dense(within)` answers, decided once for `dense` and `strategy` (which reports `choose(null)`): a
   * segment scan of the creation order, the first child then the deferred ones row by row, a seeded
   * row-at-a-time pass, a fused pass (over per-code bitsets when every child keeps them and nothing narrows
   * the rows), or column scans.
   */
  private choose(within: Bitset | null): Choice {
    const segment = this.segmentChoice();
    if (segment !== undefined) return { kind: "segment", segment };
    if (this.first !== undefined) return { kind: "first", first: this.first };
    const seed = this.seedLeaf(this.seedFraction(within));
    if (seed !== undefined) return { kind: "seeded", seed };
    const shape = this.fusedShape();
    if (shape === undefined) return COLUMNS;
    const byCodeBitsets =
      shape.date === undefined &&
      within === null &&
      this.children.every((child) => child instanceof DictionaryLeaf && child.column.keepsCodeBitsets());
    return { kind: "fused", shape, byCodeBitsets };
  }

  /**
   * The largest fraction of the rows a seed may select: `SCAN_SEED_FRACTION` when `dense(within)` would
   * otherwise scan every row (`fused scan`, `fused scan with dates`), else `SEED_FRACTION` (per-code
   * bitsets and column scans work a word of 32 rows at a time).
   */
  private seedFraction(within: Bitset | null): number {
    const shape = this.fusedShape();
    if (shape === undefined || shape.codes.length > 3) return SEED_FRACTION;
    const bitsets =
      shape.date === undefined &&
      within === null &&
      this.children.every((child) => child instanceof DictionaryLeaf && child.column.keepsCodeBitsets());
    return bitsets ? SEED_FRACTION : SCAN_SEED_FRACTION;
  }

  /**
   * The child whose rows seed a row-at-a-time pass: the most selective dictionary leaf that rejects
   * missing values, positive hash leaf, or text leaf rejecting missing and null values (by its estimate:
   * its accepted values are known only once its table is built), when it selects at most `fraction` of
   * the rows (`seedFraction`).
   */
  private seedLeaf(fraction: number): SeedLeaf | undefined {
    const limit = this.size * fraction;
    let best: DictionaryLeaf | HashLeaf | TextLeaf | undefined;
    let bestCount = limit;
    for (const child of this.children) {
      const count = seedCount(child, this.size);
      if (count !== undefined && count <= bestCount) {
        best = child as DictionaryLeaf | HashLeaf | TextLeaf;
        bestCount = count;
      }
    }
    return best;
  }

  /**
   * `fused` over whole words: the children (dictionary leaves deciding every row, of columns with per-code
   * bitsets) as a label expression (label-bitsets.ts). Undefined when a column keeps no per-code bitsets.
   */
  private fusedByCodeBitsets(): Bitset | undefined {
    const expression = labelExpression(this, this.size);
    return expression === undefined
      ? undefined
      : denseLabels(expression, this.size, this.timer, this.codegen);
  }

  private hasResidual(): boolean {
    return this.children.some((child) => child instanceof ResidualLeaf);
  }

  /**
   * The segment of the creation order to scan (`segmentScan`): when text leaves are deferred and a child is
   * a `CreatedUtcTime` interval deciding every row (`DateLeaf.decidesByInterval`) whose segment holds at
   * most half the rows; undefined otherwise.
   */
  private segmentChoice(): { date: DateLeaf; from: number; to: number } | undefined {
    const order = this.order;
    if (order === undefined) return undefined;
    const labelsOnly = this.deferred.length === 0 && this.labelsAndIntervalOnly(order);
    if (this.deferred.length === 0 && !labelsOnly) return undefined;
    for (const child of this.children) {
      if (child instanceof DateLeaf && child.column === order.column && child.decidesByInterval()) {
        const [from, to] = order.creation().segment(child.interval!);
        // Labels and the interval alone: word operations over the segment and one step per row found, so
        // a segment of any length beats a pass over the rows.
        return labelsOnly || to - from <= this.size / 2 ? { date: child, from, to } : undefined;
      }
    }
    return undefined;
  }

  /**
   * True when this AND is a `CreatedUtcTime` interval deciding every row and dictionary leaves deciding
   * every row on columns that keep per-code bitsets (at least one): a segment scan then runs in word
   * operations alone (docs/performance.md, "Labels and a creation-time interval").
   */
  private labelsAndIntervalOnly(order: OrderAccess): boolean {
    let labels = 0;
    let interval = 0;
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf && child.unknownCount === 0 && child.column.keepsCodeBitsets())
        labels++;
      else if (child instanceof DateLeaf && child.column === order.column && child.decidesByInterval())
        interval++;
      else return false;
    }
    return labels > 0 && interval === 1;
  }

  /**
   * The rows of a `CreatedUtcTime` segment, read in creation order: the interval decides every row (those
   * outside are false). Dictionary children deciding every row, of columns with few codes, select positions
   * by word operations on per-code bitsets over the order (`CreationOrder.codeBitsetsInOrder`); on the
   * positions left, the other dictionary children read their codes, and deferred text leaves their value
   * ids, from copies permuted into creation order (`CreationOrder.inOrder`: reads in ascending positions),
   * other children answer by row, and text leaves run last. `timer` counts each word-wide pass's positions
   * once per pass, then ticks once per position left.
   */
  private segmentScan(
    within: Bitset | null,
    { date, from, to }: { date: DateLeaf; from: number; to: number },
    out: AnswerSink,
  ): void {
    const creation = this.order!.creation();
    const order = creation.order;
    const codes: Codes[] = [];
    const accepts: Uint8Array[] = [];
    const selectors: { bits: readonly Uint32Array[]; accepted: number[] }[] = [];
    const others: PlanNode[] = [];
    const texts: TextLeaf[] = [];
    const textIds: Int32Array[] = [];
    for (const child of this.children) {
      if (child === date) continue;
      if (child instanceof DictionaryLeaf) {
        const column = child.column;
        if (child.unknownCount === 0 && column.keepsCodeBitsets()) {
          const accepted: number[] = [];
          for (let code = 0; code < child.accept.length; code++)
            if (child.accept[code] !== FALSE && column.counts[code]! > 0) accepted.push(code);
          selectors.push({ bits: creation.codeBitsetsInOrder(column.codes, column.values.length), accepted });
        } else {
          codes.push(creation.inOrder(column.codes));
          accepts.push(child.accept);
        }
      } else if (child instanceof TextLeaf && this.deferred.includes(child)) {
        texts.push(child);
        textIds.push(creation.inOrder(child.column.ids));
      } else others.push(child);
    }
    const timer = this.timer;
    const positions = segmentPositions(from, to, selectors, timer);
    for (const text of texts) text.prepareRows(positions.length);
    segmentPass(positions, order, within, { codes, accepts }, others, texts, textIds, out, timer);
  }

  /**
   * Finishes `leaves` row by row over the rows `result` leaves possible: a row stays true when `result`
   * says true and every leaf says true, possible unless one says false.
   */
  private thenRows(result: DenseResult, leaves: readonly PlanNode[]): DenseResult {
    const rows = bitsToRows(result.p);
    for (const leaf of leaves) if (leaf instanceof TextLeaf) leaf.prepareRows(rows.length);
    return thenRowsPass(result, rows, leaves, this.size, this.timer);
  }

  /** Finishes children `from…` row by row over the possible rows `p`. */
  private rowMode(t: Bitset | null, p: Bitset, from: number): DenseResult {
    // Residual children answer unknown for every row: folded in once, as the initial answer.
    const rest = this.children.slice(from).filter((child) => !(child instanceof ResidualLeaf));
    return rowModePass(t, p, rest, this.hasResidual(), this.size, this.timer);
  }

  describe(): string {
    return `and(${this.children.map((c) => c.describe()).join(", ")})`;
  }
}

/**
 * The text leaves among an AND's children that should run last, row by row, on the rows the others leave
 * (the cost model of docs/performance.md, "Text conditions in a conjunction"): every `perRow` leaf, and a
 * leaf whose accept table and seed would cost more than that, i.e. when
 * `rowsLeft × TEXT_ROW_COST + firstCost < valueTests + 2 × textRows`, where `rowsLeft` is the rows × the
 * other column leaves' estimates, `firstCost` what the others' cheapest start costs (a seed's rows; a
 * `CreatedUtcTime` segment of at most half the rows, or a scan, in word operations: an eighth of their
 * rows), `valueTests` the candidate values the table would test (0 once cached), and `textRows` the rows
 * the text leaf would seed (each checked against the other children). None when no other child is a
 * column leaf.
 */
function deferTextLeaves(
  children: readonly PlanNode[],
  size: number,
  orderColumn: DateColumn | undefined,
): TextLeaf[] {
  let rowsLeft = size;
  let firstCost = size / 8;
  let columns = 0;
  for (const child of children) {
    if (child instanceof TextLeaf || child instanceof ResidualLeaf) continue;
    columns++;
    rowsLeft *= child.estimate;
    const seed = seedCount(child, size);
    if (seed !== undefined) firstCost = Math.min(firstCost, seed);
    else if (
      child instanceof DateLeaf &&
      child.column === orderColumn &&
      child.decidesByInterval() &&
      child.estimate <= 0.5
    )
      firstCost = Math.min(firstCost, (child.estimate * size) / 8); // a segment scan in word operations
  }
  if (columns === 0) return [];
  const deferred: TextLeaf[] = [];
  for (const child of children) {
    if (!(child instanceof TextLeaf)) continue;
    if (child.perRow || deferPays(rowsLeft, firstCost, child.valueTests(), child.estimate * size))
      deferred.push(child);
  }
  return deferred;
}

/**
 * The rows a child would seed a row-at-a-time pass with (`AndPlan.seedLeaf`), or undefined when it cannot
 * seed one: a dictionary leaf rejecting missing values (its rows not rejected), a positive hash leaf (its
 * candidates), a text leaf listing its rows (by its estimate: its accepted values are known only once its
 * table is built).
 */
function seedCount(child: PlanNode, size: number): number | undefined {
  if (child instanceof DictionaryLeaf)
    return child.accept[CODE_MISSING] === FALSE ? child.seedCount() : undefined;
  if (child instanceof HashLeaf) return child.positive ? child.seedCount() : undefined;
  if (child instanceof TextLeaf) return child.listsRows() ? child.estimate * size : undefined;
  return undefined;
}

/** OR of children under three-valued logic (true wins, then unknown): the union of their bitsets. */
export class OrPlan implements PlanNode {
  readonly estimate: number;

  constructor(
    readonly condition: Condition,
    readonly children: readonly PlanNode[],
    readonly size: number,
    private readonly timer: BudgetTimer = UNBOUNDED,
    private readonly codegen = true,
  ) {
    this.estimate = orEstimate(children);
  }

  row(i: number): Tri {
    return anyOf(this.children, i);
  }

  dense(within: Bitset | null): DenseResult {
    const labels = denseByLabels(this, this.size, this.timer, this.codegen);
    if (labels !== undefined) return labels;
    let t = emptyBitset(this.size);
    let p = emptyBitset(this.size);
    for (const child of this.children) {
      const result = child.dense(within);
      t = or(t, result.t);
      p = or(p, result.p);
      this.timer.tick(this.size); // the word-wide ORs
    }
    return { t, p };
  }

  describe(): string {
    return `or(${this.children.map((c) => c.describe()).join(", ")})`;
  }
}

/** Negation (`$not`, and `$nor` over an OR): surely true where the child is surely false, unknown stays unknown. */
export class NotPlan implements PlanNode {
  readonly estimate: number;

  constructor(
    readonly condition: Condition,
    readonly child: PlanNode,
    readonly size: number,
    private readonly timer: BudgetTimer = UNBOUNDED,
    private readonly codegen = true,
  ) {
    this.estimate = 1 - child.estimate;
  }

  row(i: number): Tri {
    const answer = this.child.row(i);
    return answer === UNKNOWN ? UNKNOWN : answer === TRUE ? FALSE : TRUE;
  }

  dense(within: Bitset | null): DenseResult {
    const labels = denseByLabels(this, this.size, this.timer, this.codegen);
    if (labels !== undefined) return labels;
    const result = this.child.dense(within);
    return { t: not(result.p, this.size), p: not(result.t, this.size) };
  }

  describe(): string {
    return `not(${this.child.describe()})`;
  }
}

/**
 * True when `plan` is a label expression (label-bitsets.ts): a dictionary leaf deciding every row (no array
 * or object values) on a column that keeps per-code bitsets, or an AND (no text leaf deferred), OR or NOT
 * of such plans. Reads no column.
 */
export function isLabelExpression(plan: PlanNode): boolean {
  if (plan instanceof DictionaryLeaf) return plan.unknownCount === 0 && plan.column.keepsCodeBitsets();
  if (plan instanceof AndPlan) return plan.deferred.length === 0 && plan.children.every(isLabelExpression);
  if (plan instanceof OrPlan) return plan.children.every(isLabelExpression);
  if (plan instanceof NotPlan) return isLabelExpression(plan.child);
  return false;
}

/**
 * `plan` as a label expression over its columns' per-code bitsets (built on first use, O(rows) a column,
 * kept until the next add), or undefined when it is not one (`isLabelExpression`). A leaf is the OR of its
 * accepted codes' bitsets, or the complement of its rejected codes' when fewer rows' codes are rejected
 * than accepted (codes no row holds are left out of both).
 */
export function labelExpression(plan: PlanNode, size: number): LabelExpression | undefined {
  if (!isLabelExpression(plan)) return undefined;
  const build = (node: PlanNode): LabelExpression => {
    if (node instanceof DictionaryLeaf) {
      const bits = node.column.codeBitsets(size)!;
      const accepted: Bitset[] = [];
      const rejected: Bitset[] = [];
      const { accept } = node;
      const counts = node.column.counts;
      for (let code = 0; code < accept.length; code++) {
        if (counts[code]! === 0) continue;
        // UNKNOWN only on CODE_COMPLEX, which no row holds here (`unknownCount === 0`).
        (accept[code] === TRUE ? accepted : rejected).push(bits[code]!);
      }
      const complement = rejected.length < accepted.length;
      return { kind: "codes", bits: complement ? rejected : accepted, complement };
    }
    if (node instanceof AndPlan) return { kind: "and", children: node.children.map(build) };
    if (node instanceof OrPlan) return { kind: "or", children: node.children.map(build) };
    return { kind: "not", child: build((node as NotPlan).child) };
  };
  return build(plan);
}

/**
 * `plan.dense` as a label expression (every row decided, so `t` and `p` are one bitset), or undefined when
 * `plan` is not one (`isLabelExpression`).
 * @throws {SearchTimeoutError} from `timer`
 */
function denseByLabels(
  plan: PlanNode,
  size: number,
  timer: BudgetTimer,
  codegen: boolean,
): DenseResult | undefined {
  const expression = labelExpression(plan, size);
  if (expression === undefined) return undefined;
  const t = denseLabels(expression, size, timer, codegen);
  return { t, p: t };
}
