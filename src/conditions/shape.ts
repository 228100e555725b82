/**
 * What a condition matches by its shape alone, whatever the incidents hold (docs/semantics.md 3.3,
 * docs/semantics.md 1.1). TriggerIncidentExternalAction refuses a condition that matches every incident
 * this way, as it refuses `{}`: `[{}]`, `{"$and": [{}]}` and `{"$or": [{}, …]}` would fire the playbooks
 * of the site's first incident.
 */

import { assertNever, type Condition, isFieldNode } from "./ast.js";
import { requireParsedCondition } from "./parse.js";

/**
 * True when the condition matches every incident by its shape alone, so that no record can fail it
 * (docs/semantics.md 3.3; docs/semantics.md 1.1). Decided on the parsed condition, bottom up:
 * - an AND matches everything when all its parts do (`{}`, `{"$and": [{}]}`, `{"$and": [{}, {}]}`);
 * - an OR matches everything when one of its parts does (`[{}]`, `{"$or": [{}, {"Title": "x"}]}`);
 * - a NOR matches everything when each of its parts matches nothing (`{"$nor": [{"$nor": [{}]}]}`);
 * - a field condition matches everything only when it is `{"$nin": []}` (no value to exclude), or a `$not`
 *   of a field condition that matches nothing.
 *
 * Matching nothing by shape is the dual: an AND with a part that matches nothing, an OR (or a NOR's
 * negation) all of whose parts match nothing, `{"$in": []}`, `{"$all": []}`, a `$not` of an everything
 * condition, and `{"$nor": [{}]}`. Such a condition is not refused: it finds no incident.
 *
 * Field conditions that hold for most records (`{"a": {"$exists": true}}`, `{"a": {"$ne": 1}}`) or that
 * cover every case only together (`{"$or": [{"a": {"$exists": true}}, {"a": {"$exists": false}}]}`) are
 * not decided by shape: they are not refused.
 *
 * Pure; linear in the number of nodes.
 * @param condition - a condition from `parseSearchConditions`
 * @returns true when every incident matches by shape
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions`
 *   (docs/semantics.md 1.1)
 * @example matchesEverythingByShape(parseSearchConditions([{}])) //=> true
 * @example matchesEverythingByShape(parseSearchConditions({ $nor: [{}] })) //=> false (it matches nothing)
 */
export function matchesEverythingByShape(condition: Condition): boolean {
  requireParsedCondition(condition, "matchesEverythingByShape");
  return decided(condition, true);
}

/**
 * True when `node` matches every incident (`all`) or no incident (`!all`) by its shape alone: the rules of
 * `matchesEverythingByShape`, each side the dual of the other.
 */
function decided(node: Condition, all: boolean): boolean {
  if (isFieldNode(node)) {
    // `{"$nin": []}` excludes no value; `{"$in": []}` and `{"$all": []}` admit none.
    const empty = "operands" in node && node.operands.length === 0;
    return empty && (all ? node.kind === "nin" : node.kind === "in" || node.kind === "all");
  }
  const same = (child: Condition): boolean => decided(child, all);
  switch (node.kind) {
    case "and":
      return all ? node.children.every(same) : node.children.some(same);
    case "or":
      return all ? node.children.some(same) : node.children.every(same);
    case "nor":
      // The negation of an OR: everything when each part matches nothing, nothing when one matches everything.
      return all
        ? node.children.every((child) => decided(child, false))
        : node.children.some((child) => decided(child, true));
    case "not":
      return decided(node.child, !all);
    default:
      return assertNever(node);
  }
}
