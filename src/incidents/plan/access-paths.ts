/**
 * Choosing an access path (plan/index.ts has the map): how `findFirst`, `count` and `findAll` answer a query.
 * `firstPath` prices each way to the first match by the rows it would examine (cost.ts) and takes the
 * cheapest: a hash lookup, a walk of the creation order or of a segment of it, a walk of per-label
 * postings in creation order, the rows of a text leaf's accepted values, or for an OR the union of its
 * children's paths; `denseChoice` chooses how `count` and `findAll` answer: a histogram, a segment's length,
 * a short candidate list, or the plan over the columns (logical.ts). `explain()` reports these choices.
 * No path takes a row as surely matching unless every child of every AND above it said so: a candidate
 * list (hash hits, postings) only narrows, and its rows are answered by the plan and the row predicate.
 */

import type { Condition } from "../../conditions/ast.js";
import { popcount } from "../bitset.js";
import { CODE_MISSING } from "../columns.js";
import { countLabels } from "../label-bitsets.js";
import { type CreationOrder, ORDER_FIELD } from "../order.js";
import type { BudgetTimer } from "../search-budget.js";
import { buildPlan, conjuncts } from "./build.js";
import { candidateLimit, postingsCost, scanCost, textRowsCost } from "./cost.js";
import { DateLeaf } from "./date-leaf.js";
import { DictionaryLeaf, HashLeaf, ResidualLeaf } from "./leaves.js";
import {
  AndPlan,
  FUSED_CODE_BITSETS,
  isLabelExpression,
  labelExpression,
  NotPlan,
  OrPlan,
} from "./logical.js";
import { FALSE, type PlanNode, type Storage, UNBOUNDED } from "./node.js";
import { type FoundRows, positionsInCreationOrder, type RowTally, resolveUnknown } from "./passes.js";
import { TextLeaf } from "./text-leaf.js";
import { firstChecked, firstOf, postingsFirst, scanFirst, verifier } from "./walks.js";

/** The access path's strategy for an OR or NOT of labels over per-code bitsets (`denseChoice`). */
const LABEL_BITSETS = "label bitsets";

/**
 * One way to answer a query. `name` is what `explain()` reports; `cost` (for `findFirst`) the expected rows
 * examined; `run` answers (a row number for `findFirst`, -1 when none matches).
 */
export interface AccessPath<R> {
  readonly name: string;
  readonly cost: number;
  readonly run: () => R;
}

/**
 * The cheapest access path for the first match of `condition` (docs/semantics.md 1.9): a hash lookup, a
 * walk of the creation order, a walk of per-label postings in creation order, or the rows of a `$regex`'s
 * accepted values from the text index; for an OR, the union of its children's paths (the earliest of their
 * first rows). A `CreatedUtcTime` interval in the conjunction narrows both walks to its segment of the order
 * (rows whose `CreatedUtcTime` holds an array, which sort with the undated, are checked after the segment).
 * Every row a path returns is verified by the whole plan and, where the columns cannot decide, by the row
 * predicate: a path only narrows.
 * @param storage - the set's columns; `storage.creation` must already be up to date (findFirst prepares it)
 * @param timer - the query's budget timer, ticked once per row examined
 * @throws {SearchTimeoutError} from `timer`, while planning (accept tables) or running
 */
export function firstPath(condition: Condition, storage: Storage, timer: BudgetTimer): AccessPath<number> {
  const creation = storage.creation(UNBOUNDED);
  const rank = creation.rank;
  if (condition.kind === "or" && condition.children.length > 1) {
    const paths = condition.children.map((child) => firstPath(child, storage, timer));
    return {
      name: `union(${paths.map((p) => p.name).join(", ")})`,
      cost: paths.reduce((sum, p) => sum + p.cost, 0),
      run: () => {
        let best = -1;
        for (const path of paths) {
          const row = path.run();
          if (row >= 0 && (best < 0 || rank[row]! < rank[best]!)) best = row;
        }
        return best;
      },
    };
  }
  const size = storage.size;
  const orderColumn = storage.orderColumn;
  const plan = buildPlan(condition, storage, timer);
  const leaves = conjuncts(plan);
  // The window of the creation order, and the selectivity of everything else.
  let from = 0;
  let to = size;
  let windowed = false;
  let rest = 1;
  for (const leaf of leaves) {
    if (leaf instanceof DateLeaf && leaf.column === orderColumn && leaf.interval !== undefined) {
      const [a, b] = creation.segment(leaf.interval);
      from = Math.max(from, a);
      to = Math.min(to, b);
      windowed = true;
    } else rest *= leaf.estimate;
  }
  to = Math.max(from, to);
  rest = Math.max(rest, 1 / Math.max(size, 1));
  const complexRows = orderColumn.complexRows;
  const tail = windowed && complexRows.length > 0;
  const window = to - from;
  // The candidate paths as data (name, cost, what to walk); the cheapest one gets the only closure.
  const choices: FirstChoice[] = [
    {
      kind: "scan",
      name: windowed ? `date-range ${ORDER_FIELD}` : "scan",
      cost: scanCost(window, rest, tail ? complexRows.length : 0),
    },
  ];
  for (const leaf of leaves) {
    if (leaf instanceof HashLeaf && leaf.positive) {
      const candidates = leaf.candidates();
      choices.push({ kind: "hash", name: `hash ${leaf.index.field}`, cost: candidates.length, candidates });
    } else if (leaf instanceof TextLeaf && leaf.listsRows()) {
      choices.push({
        kind: "text",
        name: `text-index ${leaf.column.field}`,
        cost: textRowsCost(size, leaf.estimate, leaf.column.complexRows.length),
        leaf,
      });
    } else if (leaf instanceof DictionaryLeaf && leaf.accept[CODE_MISSING] === FALSE && leaf.estimate > 0) {
      choices.push({
        kind: "postings",
        name: `postings ${leaf.column.field}${windowed ? ` in date-range ${ORDER_FIELD}` : ""}`,
        cost: postingsCost(window, leaf.estimate, rest, size, leaf.acceptedCodes().length),
        leaf,
      });
    }
  }
  let choice = choices[0]!;
  for (const other of choices) if (other.cost < choice.cost) choice = other;
  return new FirstPath(choice, { condition, plan, storage, creation, timer, from, to, tail });
}

/** What running a `findFirst` path needs (see `FirstPath`). */
interface FirstPathContext {
  readonly condition: Condition;
  readonly plan: PlanNode;
  readonly storage: Storage;
  readonly creation: CreationOrder;
  readonly timer: BudgetTimer;
  /** The window of the creation order. */
  readonly from: number;
  readonly to: number;
  /** Whether rows whose `CreatedUtcTime` holds an array are checked after the window. */
  readonly tail: boolean;
}

/**
 * The chosen access path of `findFirst` (`firstPath`), run by a method: no closure is made per query on the
 * way to a key's row.
 */
class FirstPath implements AccessPath<number> {
  readonly name: string;
  readonly cost: number;

  constructor(
    private readonly choice: FirstChoice,
    private readonly context: FirstPathContext,
  ) {
    this.name = choice.name;
    this.cost = choice.cost;
  }

  run(): number {
    const { choice } = this;
    const { condition, plan, storage, creation, timer, from, to, tail } = this.context;
    const rank = creation.rank;
    const check = storage.check(condition);
    // Verified by the whole predicate (the hash only narrows; its row() would build bitsets).
    if (choice.kind === "hash") return firstChecked(choice.candidates, rank, check, timer);
    const verify = verifier(plan, check, timer);
    if (choice.kind === "text") {
      // The rows of the accepted values (the pattern tested once per candidate value), then those the
      // column cannot decide; each verified by the whole plan.
      const best = firstOf(choice.leaf.acceptedRows(), rank, verify);
      const complex = firstOf(choice.leaf.column.complexRows, rank, verify);
      return best < 0 || (complex >= 0 && rank[complex]! < rank[best]!) ? complex : best;
    }
    const row =
      choice.kind === "scan"
        ? scanFirst(creation.order, from, to, verify)
        : postingsFirst(choice.leaf, storage, creation, verify, from, to);
    // Rows whose CreatedUtcTime holds an array sort with the undated: checked after the window.
    return row >= 0 || !tail ? row : firstOf(storage.orderColumn.complexRows, rank, verify);
  }
}

/** A candidate access path of `findFirst` (see `firstPath`), as data: what it walks and its cost. */
type FirstChoice =
  | { readonly kind: "scan"; readonly name: string; readonly cost: number }
  | { readonly kind: "hash"; readonly name: string; readonly cost: number; readonly candidates: number[] }
  | { readonly kind: "text"; readonly name: string; readonly cost: number; readonly leaf: TextLeaf }
  | {
      readonly kind: "postings";
      readonly name: string;
      readonly cost: number;
      readonly leaf: DictionaryLeaf;
    };

/** A short candidate list (`candidateChoice`): a hash leaf's candidates, or a segment of the creation order. */
type CandidateChoice =
  | { kind: "hash"; leaf: HashLeaf; cost: number }
  | { kind: "date"; from: number; to: number; cost: number };

/**
 * A short candidate list that a conjunct narrows the rows to: the hits of a positive hash leaf (and the rows
 * holding an array), or a `CreatedUtcTime` segment of the creation order (and the rows holding an array),
 * when at most max(64, rows / 64) rows; undefined otherwise. The creation order must be up to date.
 */
function candidateChoice(
  plan: PlanNode,
  storage: Storage,
  creation: CreationOrder,
): CandidateChoice | undefined {
  const limit = candidateLimit(storage.size);
  const complex = storage.orderColumn.complexRows.length;
  let best: CandidateChoice | undefined;
  for (const leaf of conjuncts(plan)) {
    if (leaf instanceof HashLeaf && leaf.positive) {
      const cost = leaf.seedCount();
      if (cost <= limit && (best === undefined || cost < best.cost)) best = { kind: "hash", leaf, cost };
    } else if (
      leaf instanceof DateLeaf &&
      leaf.column === storage.orderColumn &&
      leaf.interval !== undefined
    ) {
      const [from, to] = creation.segment(leaf.interval);
      const cost = to - from + complex;
      if (cost <= limit && (best === undefined || cost < best.cost)) best = { kind: "date", from, to, cost };
    }
  }
  return best;
}

/**
 * The access path of `findAll` (`counting`: false) or `count` (true) for `condition` and its plan:
 * - `histogram` (count only): one dictionary leaf deciding every row: the sum of its accepted codes' counts;
 *   `histogram text-index`: one text leaf deciding every row: the sum of its accepted values' counts;
 * - `segment CreatedUtcTime` (count only): a `CreatedUtcTime` range alone, on a column without arrays: the
 *   length of its segment of the creation order;
 * - `candidates hash <field>` / `candidates date-range CreatedUtcTime`: a short candidate list (see
 *   `candidateChoice`), each row verified by the plan and the row predicate;
 * - `columns` (for an AND, `columns: <strategy>`, see `AndPlan.strategy`): the plan over bitsets, the rows it
 *   cannot decide given to the row predicate; when no column answers any part (a residual leaf), `count` runs
 *   the compiled row scan itself, without bitsets, under the same name.
 * `run` returns the matching rows in creation order (`findAll`: a list, or `PositionedRows`) or their number
 * (`count`). Histogram paths
 * need no creation order; every other path brings it up to date first (`storage.creation`).
 * @throws {SearchTimeoutError} from `timer`, while running
 */
export function denseChoice(
  condition: Condition,
  plan: PlanNode,
  storage: Storage,
  timer: BudgetTimer,
  counting: true,
): AccessPath<number>;

export function denseChoice(
  condition: Condition,
  plan: PlanNode,
  storage: Storage,
  timer: BudgetTimer,
  counting: false,
): AccessPath<FoundRows>;

export function denseChoice(
  condition: Condition,
  plan: PlanNode,
  storage: Storage,
  timer: BudgetTimer,
  counting: boolean,
): AccessPath<number> | AccessPath<FoundRows> {
  if (counting) {
    if (plan instanceof DictionaryLeaf && plan.unknownCount === 0) {
      return { name: "histogram", cost: 0, run: () => plan.trueCount };
    }
    if (plan instanceof TextLeaf && !plan.perRow && plan.unknownCount === 0) {
      return { name: "histogram text-index", cost: 0, run: () => plan.trueCount() };
    }
    // Labels only: counted block by block, without a bitset of every row (label-bitsets.ts).
    const labels =
      plan instanceof AndPlan
        ? plan.strategy() === FUSED_CODE_BITSETS
        : (plan instanceof OrPlan || plan instanceof NotPlan) && isLabelExpression(plan);
    if (labels) {
      const size = storage.size;
      return {
        name: `columns: ${plan instanceof AndPlan ? FUSED_CODE_BITSETS : LABEL_BITSETS}`,
        cost: size / 32,
        run: () => countLabels(labelExpression(plan, size)!, size, timer, storage.codegen),
      };
    }
  }
  const creation = storage.creation(timer);
  const orderColumn = storage.orderColumn;
  if (
    counting &&
    plan instanceof DateLeaf &&
    plan.column === orderColumn &&
    plan.interval !== undefined &&
    orderColumn.complexRows.length === 0
  ) {
    const [from, to] = creation.segment(plan.interval);
    return { name: `segment ${ORDER_FIELD}`, cost: 0, run: () => to - from };
  }
  const check = storage.check(condition);
  const choice = candidateChoice(plan, storage, creation);
  const rank = creation.rank;
  const byRank = (a: number, b: number) => rank[a]! - rank[b]!;
  let path: AccessPath<Int32Array | number[]>;
  if (choice?.kind === "hash") {
    path = {
      name: `candidates hash ${choice.leaf.index.field}`,
      cost: choice.cost,
      run: () => {
        const rows = choice.leaf.candidates().filter((row) => {
          timer.tick();
          return check(row);
        });
        return rows.sort(byRank);
      },
    };
  } else if (choice?.kind === "date") {
    const verify = verifier(plan, check, timer);
    path = {
      name: `candidates date-range ${ORDER_FIELD}`,
      cost: choice.cost,
      run: () => {
        const rows: number[] = [];
        for (let j = choice.from; j < choice.to; j++) {
          const row = creation.order[j]!;
          if (verify(row)) rows.push(row);
        }
        const complex = orderColumn.complexRows.filter(verify);
        complex.sort(byRank);
        return rows.concat(complex);
      },
    };
  } else if (counting && plan instanceof ResidualLeaf) {
    // No column answers any part: the compiled row scan itself, without selection bitsets.
    const size = storage.size;
    return {
      name: "columns",
      cost: size,
      run: () => {
        let total = 0;
        for (let row = 0; row < size; row++) {
          timer.tick();
          if (check(row)) total++;
        }
        return total;
      },
    };
  } else {
    const dense = () => resolveUnknown(plan.dense(null), check, timer);
    const name =
      plan instanceof AndPlan
        ? `columns: ${plan.strategy()}`
        : (plan instanceof OrPlan || plan instanceof NotPlan) && isLabelExpression(plan)
          ? `columns: ${LABEL_BITSETS}`
          : "columns";
    if (counting) {
      const tallied = plan instanceof AndPlan ? plan : undefined;
      return {
        name,
        cost: storage.size,
        run: () => {
          const tally = tallied?.tallyBySegment();
          return tally === undefined ? popcount(dense()) : resolveTally(tally, check, timer);
        },
      };
    }
    const alone = plan instanceof TextLeaf ? plan : undefined;
    return {
      name,
      cost: storage.size,
      run: () => alone?.positionsInOrder(creation) ?? positionsInCreationOrder(dense(), creation, timer),
    };
  }
  if (!counting) return path;
  return { name: path.name, cost: path.cost, run: () => path.run().length };
}

/**
 * The number of rows a tally (`AndPlan.tallyBySegment`) finds: its rows surely true, and each unknown row
 * the row predicate `decide` accepts (one `timer` tick each, as `resolveUnknown`).
 * @throws {SearchTimeoutError} from `timer`
 */
function resolveTally(tally: RowTally, decide: (row: number) => boolean, timer: BudgetTimer): number {
  let total = tally.sure;
  for (const row of tally.unknown) {
    timer.tick();
    if (decide(row)) total++;
  }
  return total;
}
