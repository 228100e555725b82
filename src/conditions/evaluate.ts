/**
 * The reference interpreter of Search Conditions: short and obviously right, the yardstick for `compile`,
 * `IncidentSet` and the MongoDB translation (test/conformance). Semantics: DECISIONS.md 1.5.
 *
 * A field path resolves to the list of values it reaches (MongoDB): each segment reads an own data
 * property of an object; on an array it reads that property of every object element and, for a numeric
 * segment, the element at that index. Nested arrays are not entered. An own property holding `undefined`,
 * and an accessor property (never invoked), count as absent. The field is *missing* when no value is
 * reached. Field operators then look at each reached value and, when it is an array, at its elements.
 */

import {
  assertNever,
  type Condition,
  type FieldKind,
  type FieldNode,
  type Operand,
  type OrderedOperand,
  type RangeBound,
} from "./ast.js";
import { recordDateValue } from "./dates.js";
import { requireParsedCondition } from "./parse.js";
import { compileRegex } from "./regex.js";

const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** Reads an own data property; accessors and `undefined` values are absent. Never invokes user code. */
function ownValue(holder: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(holder, key);
  return descriptor === undefined ? undefined : descriptor.value;
}

/**
 * The values a field path reaches in a record (an empty list when the field is missing).
 * @param record - the incident; anything but a non-array object is read as an empty record
 * @param path - field path segments, e.g. `["Custom", "Owner"]`
 * @returns the reached values, in document order; never throws for data properties (a Proxy whose
 *   `getOwnPropertyDescriptor` trap throws is the one exception)
 * @example resolveFieldPath({ a: [{ b: 1 }, { b: [2] }] }, ["a", "b"]) //=> [1, [2]]
 */
export function resolveFieldPath(record: unknown, path: readonly string[]): unknown[] {
  let current: unknown[] =
    typeof record === "object" && record !== null && !Array.isArray(record) ? [record] : [];
  for (const segment of path) {
    const next: unknown[] = [];
    const take = (value: unknown) => {
      if (value !== undefined) next.push(value);
    };
    for (const value of current) {
      if (typeof value !== "object" || value === null) continue;
      if (Array.isArray(value)) {
        for (const element of value) {
          if (typeof element === "object" && element !== null && !Array.isArray(element)) {
            take(ownValue(element, segment));
          }
        }
        if (INDEX.test(segment)) take(ownValue(value, segment));
      } else {
        take(ownValue(value, segment));
      }
    }
    current = next;
  }
  return current;
}

/** A record value as a date (epoch ms) for a field of this kind (DECISIONS.md 1.5), else `undefined`. */
function dateOf(value: unknown, fieldKind: FieldKind): number | undefined {
  if (fieldKind === "date") return recordDateValue(value);
  return value instanceof Date ? recordDateValue(value) : undefined;
}

/** Equality of one record value (not an array) with an operand (DECISIONS.md 1.2, 1.5). */
function equals(value: unknown, operand: Operand, fieldKind: FieldKind): boolean {
  switch (operand.type) {
    case "string":
    case "boolean":
      return value === operand.value;
    case "number":
      return (
        typeof value === "number" &&
        (value === operand.value || (Number.isNaN(value) && Number.isNaN(operand.value)))
      );
    case "null":
      return value === null;
    case "date":
      return dateOf(value, fieldKind) === operand.value;
    default:
      return assertNever(operand);
  }
}

/** The record value on the operand's scale under type bracketing, or `undefined` when of another kind. */
function ordered(value: unknown, operand: OrderedOperand, fieldKind: FieldKind): number | string | undefined {
  switch (operand.type) {
    case "number":
      return typeof value === "number" && !Number.isNaN(value) ? value : undefined;
    case "string":
      return typeof value === "string" ? value : undefined;
    case "date":
      return dateOf(value, fieldKind);
    default:
      return assertNever(operand);
  }
}

/** One bound of a range against one value (not an array). Strings compare by UTF-16 code units. */
function withinBound(
  value: unknown,
  bound: RangeBound,
  side: "lower" | "upper",
  fieldKind: FieldKind,
): boolean {
  const v = ordered(value, bound.operand, fieldKind);
  if (v === undefined) return false;
  const b = bound.operand.value;
  if (side === "lower") return bound.inclusive ? v >= b : v > b;
  return bound.inclusive ? v <= b : v < b;
}

/** True when some reached value, or some element of a reached array, satisfies `test`. */
function anyValue(values: readonly unknown[], test: (value: unknown) => boolean): boolean {
  return values.some((value) => test(value) || (Array.isArray(value) && value.some(test)));
}

/** Equality with implicit array traversal; a `null` operand also matches a missing field. */
function matchesEq(values: readonly unknown[], operand: Operand, fieldKind: FieldKind): boolean {
  if (operand.type === "null" && values.length === 0) return true;
  return anyValue(values, (value) => equals(value, operand, fieldKind));
}

function evaluateField(node: FieldNode, record: unknown): boolean {
  const values = resolveFieldPath(record, node.path);
  const kind = node.fieldKind;
  switch (node.kind) {
    case "eq":
      return matchesEq(values, node.operand, kind);
    case "ne":
      return !matchesEq(values, node.operand, kind);
    case "in":
      return node.operands.some((operand) => matchesEq(values, operand, kind));
    case "nin":
      return !node.operands.some((operand) => matchesEq(values, operand, kind));
    case "all":
      return node.operands.length > 0 && node.operands.every((operand) => matchesEq(values, operand, kind));
    case "range": {
      const { lower, upper } = node;
      return (
        (lower === undefined || anyValue(values, (value) => withinBound(value, lower, "lower", kind))) &&
        (upper === undefined || anyValue(values, (value) => withinBound(value, upper, "upper", kind)))
      );
    }
    case "regex": {
      const matcher = compileRegex(node.source, node.flags);
      return anyValue(values, (value) => typeof value === "string" && matcher.test(value));
    }
    case "exists":
      return node.exists === values.length > 0;
    case "size":
      return values.some((value) => Array.isArray(value) && value.length === node.size);
    default:
      return assertNever(node);
  }
}

/**
 * Decides whether an incident matches a parsed Search Conditions object: the reference interpreter
 * (DECISIONS.md 1.5).
 *
 * - Strings compare exactly and case-sensitively; numbers numerically (a `NaN` in a record equals only a
 *   `NaN` operand and lies in no range); dates as instants.
 * - Ranges use type bracketing: number with number, string with string (UTF-16 code-unit order), date with
 *   date. A value in a catalogue `date` field is a date when it is a valid JS `Date` or an ISO-8601 UTC
 *   string; in other fields only a JS `Date` is. Each bound of a range is met by some value (MongoDB), so
 *   `{"$gt": 1, "$lt": 3}` matches `[0, 5]`.
 * - Arrays: a value matches when it or any of its elements does; `$ne`/`$nin` are the negations of
 *   equality/`$in`; `$size` looks at the array itself; `$all` is the AND of equalities (MongoDB), so
 *   `{"$all": ["x"]}` matches the scalar `"x"` and `$all: []` matches nothing.
 * - Missing fields match only `$ne`, `$nin`, `$exists: false`, `$not` and `null` equality (also in `$in`).
 * - `$regex` matches strings and string elements only.
 *
 * @param condition - a Condition from `parseSearchConditions` (only parsed conditions are accepted:
 *   docs/semantics.md 1.1)
 * @param incident - the incident record; fields are read as own data properties only (see
 *   `resolveFieldPath`), so prototype-named keys, getters and inherited properties are never consulted
 * @returns true when the incident matches
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions` (raw Search
 *   Conditions JSON, a hand-built or copied AST); the message says to call `parseSearchConditions`
 * @throws never for any record
 * @example evaluate(parseSearchConditions({ Severity: { $in: ["High"] } }), { Severity: "High" }) //=> true
 */
export function evaluate(condition: Condition, incident: object): boolean {
  requireParsedCondition(condition, "evaluate");
  return evaluateNode(condition, incident);
}

/**
 * `evaluate` without the check that the condition is a parsed one: for the engine's own callers (the
 * compiled predicates' fallback) and the interpreter's unit tests, which pin it on hand-built nodes.
 * Not part of the public API.
 * @throws {RegexSyntaxError} for a hand-built `$regex` that RE2 refuses (the parser never produces one)
 */
export function evaluateNode(condition: Condition, incident: object): boolean {
  switch (condition.kind) {
    case "and":
      return condition.children.every((child) => evaluateNode(child, incident));
    case "or":
      return condition.children.some((child) => evaluateNode(child, incident));
    case "nor":
      return !condition.children.some((child) => evaluateNode(child, incident));
    case "not":
      return !evaluateNode(condition.child, incident);
    default:
      return evaluateField(condition, incident);
  }
}
