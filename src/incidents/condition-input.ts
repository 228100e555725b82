/**
 * What `IncidentSet` methods accept: a parsed `Condition`, or raw Search Conditions JSON, which is parsed.
 *
 * The two never overlap: a Condition node has an array (`path`, `children`) or an object (`child`) as a
 * direct value, which raw Search Conditions refuse (DECISIONS.md 1.2). Because raw JSON may come from the
 * network, an input shaped like a Condition is used as one only when it is well formed within the parse
 * limits (DECISIONS.md 1.7): kinds, paths, operands and regex patterns are checked, so that a forged AST
 * can neither bypass the limits nor reach the engine malformed. Anything else is parsed as raw JSON.
 */

import type { Condition, FieldKind, Operand } from "../conditions/ast.js";
import type { ConditionLimits, ParseOptions } from "../conditions/options.js";
import { resolveParseOptions } from "../conditions/options.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { regexSyntaxProblem } from "../conditions/regex.js";

const FIELD_KINDS: ReadonlySet<string> = new Set<FieldKind>(["text", "enum", "date", "open"]);

/**
 * Returns the condition for an input of `findFirst`, `findAll`, `count`.
 * @param input - a Condition, or raw Search Conditions JSON
 * @param options - catalogue and limits used to parse raw JSON (and to bound a Condition)
 * @param checked - Conditions already found well formed under these options (a Condition is read-only
 *   data), so that a repeated query is not checked again
 * @throws {SearchConditionsError} when the input is raw JSON with issues
 */
export function toCondition(
  input: unknown,
  options: ParseOptions | undefined,
  checked: WeakSet<object> = new WeakSet(),
): Condition {
  if (isConditionNode(input)) {
    const node = input as Condition;
    if (checked.has(node)) return node;
    const limits = resolveParseOptions(options).limits;
    if (wellFormed(input, limits, { depth: 0, nodes: 0 })) {
      checked.add(node);
      return node;
    }
  }
  return parseSearchConditions(input, options);
}

/** True when `value` is shaped like a Condition node (its `kind` and its array or object member). */
export function isConditionNode(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const node = value as Record<string, unknown>;
  switch (node.kind) {
    case "and":
    case "or":
    case "nor":
      return Array.isArray(node.children);
    case "not":
      return typeof node.child === "object" && node.child !== null;
    case "eq":
    case "ne":
    case "range":
    case "in":
    case "nin":
    case "all":
    case "regex":
    case "exists":
    case "size":
      return Array.isArray(node.path);
    default:
      return false;
  }
}

function own(node: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(node, key);
  return descriptor === undefined ? undefined : descriptor.value;
}

function operandOk(value: unknown, limits: ConditionLimits): value is Operand {
  if (typeof value !== "object" || value === null) return false;
  const type = own(value, "type");
  const v = own(value, "value");
  switch (type) {
    case "string":
      return typeof v === "string" && v.length <= limits.stringLength;
    case "number":
      return typeof v === "number";
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return true;
    case "date":
      return typeof v === "number" && Number.isFinite(v);
    default:
      return false;
  }
}

function operandsOk(value: unknown, limits: ConditionLimits): boolean {
  return (
    Array.isArray(value) &&
    value.length <= limits.setSize &&
    value.every((operand) => operandOk(operand, limits))
  );
}

function boundOk(value: unknown, limits: ConditionLimits): boolean {
  if (value === undefined) return true;
  if (typeof value !== "object" || value === null) return false;
  // Every operand kind may bound a range (booleans and null on open fields, DECISIONS.md 1.4).
  return typeof own(value, "inclusive") === "boolean" && operandOk(own(value, "operand"), limits);
}

/** Checks a Condition-shaped value within the limits, depth first, counting nodes. */
function wellFormed(
  value: unknown,
  limits: ConditionLimits,
  count: { depth: number; nodes: number },
): boolean {
  if (!isConditionNode(value)) return false;
  count.nodes++;
  if (count.nodes > limits.nodes || count.depth > limits.depth) return false;
  const node = value as Record<string, unknown>;
  const kind = own(node, "kind");
  if (kind === "and" || kind === "or" || kind === "nor") {
    const children = own(node, "children");
    if (!Array.isArray(children) || ((kind === "or" || kind === "nor") && children.length === 0))
      return false;
    count.depth++;
    const ok = children.every((child) => wellFormed(child, limits, count));
    count.depth--;
    return ok;
  }
  if (kind === "not") {
    count.depth++;
    const ok = wellFormed(own(node, "child"), limits, count);
    count.depth--;
    return ok;
  }
  const path = own(node, "path");
  if (
    !Array.isArray(path) ||
    path.length === 0 ||
    !path.every((segment) => typeof segment === "string" && segment !== "") ||
    !FIELD_KINDS.has(own(node, "fieldKind") as string)
  ) {
    return false;
  }
  switch (kind) {
    case "eq":
    case "ne":
      return operandOk(own(node, "operand"), limits);
    case "in":
    case "nin":
    case "all":
      return operandsOk(own(node, "operands"), limits);
    case "range": {
      const lower = own(node, "lower");
      const upper = own(node, "upper");
      return (lower !== undefined || upper !== undefined) && boundOk(lower, limits) && boundOk(upper, limits);
    }
    case "regex": {
      const source = own(node, "source");
      const flags = own(node, "flags");
      return (
        typeof source === "string" &&
        source.length <= limits.patternLength &&
        typeof flags === "string" &&
        /^i?m?s?$/.test(flags) &&
        regexSyntaxProblem(source, flags) === undefined
      );
    }
    case "exists":
      return typeof own(node, "exists") === "boolean";
    case "size": {
      const size = own(node, "size");
      return typeof size === "number" && Number.isInteger(size) && size >= 0;
    }
    default:
      return false;
  }
}
