/**
 * The fold over the condition tree (plan/index.ts has the map): one plan node per condition node, a column
 * leaf where a column answers a field node (leaves.ts, text-leaf.ts), a residual leaf elsewhere, and the
 * logical nodes over them (logical.ts).
 */

import { assertNever, type Condition, type FieldNode } from "../../conditions/ast.js";
import type { BudgetTimer } from "../search-budget.js";
import { DateLeaf, dateLeafEligible } from "./date-leaf.js";
import { ConstantNode, DictionaryLeaf, HashLeaf, hashLeafEligible, ResidualLeaf } from "./leaves.js";
import { AndPlan, NotPlan, OrPlan } from "./logical.js";
import { type PlanNode, type Storage, UNBOUNDED } from "./node.js";
import { TextLeaf } from "./text-leaf.js";

/**
 * Builds the plan of a condition over a storage: column leaves where a column answers the node, residual
 * leaves elsewhere.
 * @param timer - the query's budget timer (docs/semantics.md 1.7), ticked by every pass the plan makes over rows
 *   or dictionary values; default: no budget
 * @throws {SearchTimeoutError} from `timer`, while building (dictionary accept tables) or evaluating
 */
export function buildPlan(condition: Condition, storage: Storage, timer: BudgetTimer = UNBOUNDED): PlanNode {
  const size = storage.size;
  // A field node needs no recursion (the common single-field query allocates nothing more).
  if (
    condition.kind !== "and" &&
    condition.kind !== "or" &&
    condition.kind !== "nor" &&
    condition.kind !== "not"
  )
    return leafPlan(condition, storage, timer);
  const build = (child: Condition) => buildPlan(child, storage, timer);
  switch (condition.kind) {
    case "and":
      if (condition.children.length === 0) return new ConstantNode(condition, true, size);
      if (condition.children.length === 1) return build(condition.children[0]!);
      return new AndPlan(
        condition,
        condition.children.map(build),
        size,
        timer,
        { column: storage.orderColumn, creation: () => storage.creation(timer) },
        storage.codegen,
      );
    case "or":
      if (condition.children.length === 0) return new ConstantNode(condition, false, size);
      if (condition.children.length === 1) return build(condition.children[0]!);
      return new OrPlan(condition, condition.children.map(build), size, timer, storage.codegen);
    case "nor":
      return new NotPlan(
        condition,
        condition.children.length === 0
          ? new ConstantNode(condition, false, size)
          : new OrPlan(condition, condition.children.map(build), size, timer, storage.codegen),
        size,
        timer,
        storage.codegen,
      );
    case "not":
      return new NotPlan(condition, build(condition.child), size, timer, storage.codegen);
    default:
      return assertNever(condition);
  }
}

/** The leaf of a field node: the first column that can answer it (hash, date, dictionary, text), else residual. */
function leafPlan(node: FieldNode, storage: Storage, timer: BudgetTimer): PlanNode {
  const size = storage.size;
  if (node.path.length !== 1) return new ResidualLeaf(node, size);
  const field = node.path[0]!;
  const hash = storage.hash(field);
  if (hash !== undefined && hashLeafEligible(node)) return new HashLeaf(node, hash, size, timer);
  const date = storage.date(field);
  if (date !== undefined && dateLeafEligible(node)) return new DateLeaf(node, date, size, timer);
  const dictionary = storage.dictionary(field);
  if (dictionary !== undefined) return new DictionaryLeaf(node, dictionary, storage, timer);
  const text = storage.text(field);
  if (text !== undefined && node.kind === "regex") {
    return TextLeaf.create(node, text, size, timer);
  }
  return new ResidualLeaf(node, size);
}

/** The conjuncts of a plan: an AND's children, or the plan itself. */
export function conjuncts(plan: PlanNode): readonly PlanNode[] {
  return plan instanceof AndPlan ? plan.children : [plan];
}
