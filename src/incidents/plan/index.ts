/**
 * The query planner of `IncidentSet`: turns a condition into a tree of column operators with three-valued
 * answers per row (false, true, unknown) and picks access paths. The pieces, one idea a file, in plan/:
 *
 * - node.ts: the contract of a plan node (`row`, `dense` as T/P bitsets: T surely true, P possibly true),
 *   three-valued logic (`and3`, `allOf`, `anyOf`: the one place row-at-a-time answers combine), and
 *   `Storage`, what the planner sees of an incident set.
 * - build.ts: the fold over the condition tree: a column leaf where a column answers a field node, a
 *   residual leaf (unknown for every row: the compiled row predicate decides) elsewhere.
 * - leaves.ts, text-leaf.ts: the column leaves (index probes): a dictionary leaf evaluates the node once per
 *   distinct value (an accept table over codes), a date leaf compares epoch ms, a hash leaf looks the
 *   operands up, a text leaf answers a `$regex` through the text index (text/index.ts). Rows the column
 *   cannot answer (arrays, objects) are unknown.
 * - logical.ts: AND, OR, NOT; an AND's children run most selective first, each only over the rows still
 *   possible, a selective child seeds a row-at-a-time pass, column leaves deciding every row run fused.
 * - passes.ts, row-passes.ts, walks.ts: the physical operators: word-wide bitset passes, row-at-a-time
 *   passes over a selection of rows, ordered walks to the first match.
 * - cost.ts: estimates (the fraction of rows a node selects) and the costs the choices compare.
 * - access-paths.ts: `firstPath` chooses how `findFirst` walks to the first match (a hash lookup, a segment
 *   or walk of the creation order, postings, the text index, or a union for an OR) by the rows each would
 *   examine; `denseChoice` chooses how `count` and `findAll` answer (a histogram, a segment's length, a
 *   short candidate list, or the columns). `explain()` reports these choices.
 *
 * Every leaf's answer is the reference's (docs/semantics.md 1.5) by construction: accept tables come from the
 * same leaf semantics `compile` uses (`leafSemantics`) or, for a literal `$regex` on a text column, from the
 * comparison the literal means on the value's exact text (`checkLiteral`), and anything a column cannot
 * decide is unknown. Unknown rows (P \ T) are finally decided by the compiled row predicate.
 * No access path takes a row as surely matching unless every child of every AND above it said so: a
 * candidate list (hash hits, postings) only narrows, and its rows are answered by the same leaves.
 *
 * Time budget (docs/semantics.md 1.7): a plan is built for one query with that query's `BudgetTimer`; every
 * loop over rows ticks it (row loops once per row, column passes once per 32-row word), and word-wide
 * bitset passes (32 rows per operation) count their rows once per pass.
 */

export { denseChoice, firstPath } from "./access-paths.js";
export { buildPlan } from "./build.js";
export type { RowCheck, Storage } from "./node.js";
