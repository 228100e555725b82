/**
 * What a condition matches by its shape alone, whatever the incidents hold (docs/semantics.md 3.3,
 * docs/semantics.md 1.1). TriggerIncidentExternalAction refuses a condition that matches every incident
 * this way, as it refuses `{}`: `[{}]`, `{"$and": [{}]}` and `{"$or": [{}, …]}` would fire the playbooks
 * of the site's first incident.
 */

import { assertNever, type Condition } from "./ast.js";
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
  return everything(condition);
}

function everything(node: Condition): boolean {
  switch (node.kind) {
    case "and":
      return node.children.every(everything);
    case "or":
      return node.children.some(everything);
    case "nor":
      return node.children.every(nothing);
    case "not":
      return nothing(node.child);
    case "nin":
      return node.operands.length === 0;
    case "eq":
    case "ne":
    case "range":
    case "in":
    case "all":
    case "regex":
    case "exists":
    case "size":
    case "type":
    case "mod":
    case "elemMatch":
      return false;
    default:
      return assertNever(node);
  }
}

function nothing(node: Condition): boolean {
  switch (node.kind) {
    case "and":
      return node.children.some(nothing);
    case "or":
      return node.children.every(nothing);
    case "nor":
      return node.children.some(everything);
    case "not":
      return everything(node.child);
    case "in":
    case "all":
      return node.operands.length === 0;
    case "eq":
    case "ne":
    case "range":
    case "nin":
    case "regex":
    case "exists":
    case "size":
    case "type":
    case "mod":
    case "elemMatch":
      return false;
    default:
      return assertNever(node);
  }
}
