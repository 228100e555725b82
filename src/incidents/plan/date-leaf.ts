/**
 * The date leaf of a plan (plan/index.ts has the map): a field node on a catalogue date field answered by its
 * date column (epoch ms per row, and a state: a date, missing, null, another scalar, an array). A positive
 * range or `$eq` date is an interval (`interval`): the passes compare ms branch-free (passes.ts), and on
 * `CreatedUtcTime` it is a segment of the creation order (order.ts). Rows holding an array are unknown.
 * Answers are the reference's (docs/semantics.md 1.5): the leaf semantics `compile` uses (`leafSemantics`).
 */

import { assertNever, type FieldNode, type Operand } from "../../conditions/ast.js";
import { leafSemantics } from "../../conditions/leaf.js";
import type { Bitset } from "../bitset.js";
import {
  DATE_COMPLEX,
  DATE_MISSING,
  DATE_NULL,
  DATE_OTHER,
  DATE_VALUE,
  type DateColumn,
} from "../columns.js";
import type { MsInterval } from "../order.js";
import type { BudgetTimer } from "../search-budget.js";
import { sampledEstimate } from "./cost.js";
import { type DenseResult, FALSE, type PlanNode, TRUE, type Tri, UNBOUNDED, UNKNOWN } from "./node.js";
import { datesPass, intervalPass, possibleWith } from "./passes.js";

/** The field nodes a date column can answer (see `dateLeafEligible`). */
export type DateEligibleNode = Extract<FieldNode, { kind: "range" | "eq" | "ne" | "in" | "nin" | "exists" }>;

/**
 * Whether a field node can be answered by a date column: a single-segment node on a catalogue date field
 * whose operands are all dates (or null, for equality): ranges, `$eq`/`$ne`, `$in`/`$nin`, `$exists`.
 */
export function dateLeafEligible(node: FieldNode): node is DateEligibleNode {
  if (node.fieldKind !== "date" || node.path.length !== 1) return false;
  switch (node.kind) {
    case "range":
      return (
        (node.lower !== undefined || node.upper !== undefined) &&
        (node.lower === undefined || node.lower.operand.type === "date") &&
        (node.upper === undefined || node.upper.operand.type === "date")
      );
    case "eq":
    case "ne":
      return dateOrNull(node.operand);
    case "in":
    case "nin":
      return node.operands.every(dateOrNull);
    case "exists":
      return true;
    default:
      // No date operand (`$all`, `$regex`, `$size`, `$type`, `$mod`, the bit tests, `$elemMatch`, and any
      // kind added later): the row predicate answers. Not exhaustive on purpose, since that answer is
      // always right; a new kind with date operands is indexed by naming it above.
      return false;
  }
}

/** A field node on a catalogue date field answered by its date column (epoch ms). */
export class DateLeaf implements PlanNode {
  readonly condition: DateEligibleNode;
  readonly column: DateColumn;
  readonly estimate: number;
  readonly size: number;
  /** Answers for the non-date states (missing, null, other), UNKNOWN for complex. */
  private readonly stateAnswer: Uint8Array;
  /** The test of a date value (ms). */
  readonly test: (ms: number) => boolean;
  private readonly timer: BudgetTimer;
  /** For a positive range or `$eq` date: the ms interval [lo, hi] with inclusivity (segments of the order). */
  readonly interval: MsInterval | undefined;

  constructor(node: DateEligibleNode, column: DateColumn, size: number, timer: BudgetTimer = UNBOUNDED) {
    this.condition = node;
    this.column = column;
    this.size = size;
    this.timer = timer;
    const leaf = leafSemantics(node);
    const answers = new Uint8Array(5);
    answers[DATE_MISSING] = leaf.missing ? TRUE : FALSE;
    answers[DATE_NULL] = leaf.one(null) ? TRUE : FALSE;
    // Every present non-date scalar answers alike for date operands: no date equals it or lies in a range.
    answers[DATE_OTHER] = leaf.one("not a date") ? TRUE : FALSE;
    answers[DATE_COMPLEX] = UNKNOWN;
    answers[DATE_VALUE] = UNKNOWN; // decided by `test`
    this.stateAnswer = answers;
    this.test = dateTest(node);
    this.interval = intervalOf(node);
    // No histogram of dates: evenly spaced rows are sampled.
    this.estimate = sampledEstimate(size, (i) => this.row(i));
  }

  row(i: number): Tri {
    const state = this.column.states[i]!;
    if (state === DATE_VALUE) return this.test(this.column.ms[i]!) ? TRUE : FALSE;
    return this.stateAnswer[state] as Tri;
  }

  dense(within: Bitset | null): DenseResult {
    const { size, timer } = this;
    const { ms, states, counts } = this.column;
    const words = (size + 31) >>> 5;
    const t = new Uint32Array(words);
    const interval = this.interval;
    const answers = this.stateAnswer;
    const otherTrue =
      answers[DATE_MISSING] === TRUE || answers[DATE_NULL] === TRUE || answers[DATE_OTHER] === TRUE;
    // NaN (non-dates) fails every comparison: a branch-free interval test over the ms column.
    if (interval !== undefined && !otherTrue) intervalPass(t, size, within, ms, interval, timer);
    else datesPass(t, size, within, states, ms, this.test, answers, timer);
    const p = counts[DATE_COMPLEX]! > 0 ? possibleWith(t, this.column.complexRows, timer) : t;
    return { t, p };
  }

  /** True when `interval` alone decides every row: no array values, and no non-date state is accepted. */
  decidesByInterval(): boolean {
    return (
      this.interval !== undefined &&
      this.column.counts[DATE_COMPLEX] === 0 &&
      this.stateAnswer[DATE_MISSING] === FALSE &&
      this.stateAnswer[DATE_NULL] === FALSE &&
      this.stateAnswer[DATE_OTHER] === FALSE
    );
  }

  describe(): string {
    return `date ${this.column.field}`;
  }
}

/** True when `ms` lies in `interval` (NaN, not a date, lies in none). */
function inInterval(interval: MsInterval, ms: number): boolean {
  const { lo, hi, loInclusive, hiInclusive } = interval;
  return (loInclusive ? ms >= lo : ms > lo) && (hiInclusive ? ms <= hi : ms < hi);
}

/** The test of a date value for an eligible node (see `dateLeafEligible`). */
function dateTest(node: DateEligibleNode): (ms: number) => boolean {
  switch (node.kind) {
    case "range": {
      const interval = rangeInterval(node);
      return (ms) => inInterval(interval, ms);
    }
    case "eq":
    case "ne": {
      const positive = node.kind === "eq";
      if (node.operand.type !== "date") return () => !positive;
      const k = node.operand.value;
      return (ms) => (ms === k) === positive;
    }
    case "in":
    case "nin": {
      const positive = node.kind === "in";
      const dates = new Set<number>();
      for (const o of node.operands) if (o.type === "date" && !Number.isNaN(o.value)) dates.add(o.value);
      return (ms) => dates.has(ms) === positive;
    }
    case "exists": {
      const exists = node.exists;
      return () => exists;
    }
    default:
      return assertNever(node);
  }
}

/** The interval of an eligible range node (a missing bound is infinite; bounds are dates). */
function rangeInterval(node: Extract<DateEligibleNode, { kind: "range" }>): MsInterval {
  return {
    lo: node.lower === undefined ? Number.NEGATIVE_INFINITY : (node.lower.operand as { value: number }).value,
    loInclusive: node.lower?.inclusive ?? true,
    hi: node.upper === undefined ? Number.POSITIVE_INFINITY : (node.upper.operand as { value: number }).value,
    hiInclusive: node.upper?.inclusive ?? true,
  };
}

/** The date interval of a positive range or `$eq` date node: the rows it accepts among the dated ones. */
function intervalOf(node: DateEligibleNode): MsInterval | undefined {
  if (node.kind === "range") return rangeInterval(node);
  if (node.kind === "eq" && node.operand.type === "date" && !Number.isNaN(node.operand.value)) {
    const k = node.operand.value;
    return { lo: k, loInclusive: true, hi: k, hiInclusive: true };
  }
  return undefined;
}

/** A date or null operand. */
function dateOrNull(o: Operand): boolean {
  return o.type === "date" || o.type === "null";
}
