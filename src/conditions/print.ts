/**
 * AST → canonical Search Conditions JSON (`toSearchConditions`), and AST → readable text (`explain`).
 *
 * Canonical form: for every condition produced by `parseSearchConditions`, parsing the printed JSON with
 * the same catalogue gives a deeply equal condition. Plain values for equality (but `{"$eq": s}` when `s`
 * contains `|`, so that a pipe is never split again), pipe strings for `in` nodes that came from pipe
 * alternatives, `{"$date": iso}` for dates, one operator object per field when its nodes fit in one, and
 * `$and` when they do not (two children on one field with the same operator, logical children that
 * collide, …). Rules: docs/semantics.md 1.1–1.4.
 */
import type { Condition, FieldNode, NotNode, Operand, RangeNode } from "./ast.js";
import { assertNever, fieldName } from "./ast.js";
import { formatIsoUtc, MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "./dates.js";
import { requireParsedCondition } from "./parse.js";

/** A Search Conditions JSON object, as printed. */
export type SearchConditionsJson = Record<string, unknown>;

type Entry = readonly [key: string, value: unknown];

/**
 * Prints a condition as canonical Search Conditions JSON (docs/semantics.md 1.1–1.4).
 * @param condition - a condition from `parseSearchConditions` (docs/semantics.md 1.1)
 * @returns a JSON object (never an array: a top-level OR prints as `{"$or": [...]}`) that parses back, with
 *   the same catalogue, to a condition deeply equal to `condition`
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions` (the message
 *   says to call it)
 * @example toSearchConditions(parseSearchConditions({ Severity: { $in: ["High"] } }))
 * //=> { Severity: { $in: ["High"] } }
 */
export function toSearchConditions(condition: Condition): SearchConditionsJson {
  requireParsedCondition(condition, "toSearchConditions");
  return printCondition(condition);
}

function printCondition(condition: Condition): SearchConditionsJson {
  switch (condition.kind) {
    case "and":
      return printAnd(condition.children);
    case "or":
      return toObject([["$or", condition.children.map(printCondition)]]);
    case "nor":
      return toObject([["$nor", condition.children.map(printCondition)]]);
    default: {
      const entry = entryOf(condition);
      if (entry === undefined)
        throw new TypeError(`Cannot print a '${condition.kind}' node as Search Conditions.`);
      return toObject([entry]);
    }
  }
}

/**
 * An `and`: `{}` when empty, `{"$and": [c]}` for one child (so that it stays an `and`), one operator object
 * when every child is on the same field and they fit in one, one entry per child when the keys are distinct,
 * else `{"$and": [...]}`.
 */
function printAnd(children: readonly Condition[]): SearchConditionsJson {
  if (children.length === 0) return {};
  if (children.length > 1) {
    const group = groupEntry(children);
    if (group !== undefined) return toObject([group]);
    const entries: Entry[] = [];
    const keys = new Set<string>();
    for (const child of children) {
      const entry = entryOf(child);
      if (entry === undefined || keys.has(entry[0])) break;
      keys.add(entry[0]);
      entries.push(entry);
    }
    if (entries.length === children.length) {
      // Objects enumerate array-index keys ("1", "42") first: keep the object only when its key order is
      // the children's order, so that parsing it gives the children in the same order.
      const object = toObject(entries);
      const order = Object.keys(object);
      if (entries.every((entry, index) => order[index] === entry[0])) return object;
    }
  }
  return toObject([["$and", children.map(printCondition)]]);
}

/** The condition as one entry of a condition object, or undefined when it cannot stand as one. */
function entryOf(condition: Condition): Entry | undefined {
  switch (condition.kind) {
    case "and":
      if (condition.children.length === 0) return undefined;
      return (
        (condition.children.length > 1 ? groupEntry(condition.children) : undefined) ?? [
          "$and",
          condition.children.map(printCondition),
        ]
      );
    case "or":
      return ["$or", condition.children.map(printCondition)];
    case "nor":
      return ["$nor", condition.children.map(printCondition)];
    case "not":
      return [fieldOf(condition), toObject(operatorEntries(condition) ?? unprintable(condition))];
    default:
      return [fieldName(condition), directValue(condition)];
  }
}

/**
 * Two or more field-level children on one field path, printed as one operator object, or undefined when
 * they do not fit in one: an operator twice, two ranges of one operand type (which would merge), or an `in`
 * node from pipe alternatives.
 */
function groupEntry(children: readonly Condition[]): Entry | undefined {
  let field: string | undefined;
  const entries: Entry[] = [];
  const keys = new Set<string>();
  const ranges = new RangeReplay();
  for (const child of children) {
    if (child.kind === "and" || child.kind === "or" || child.kind === "nor") return undefined;
    const childField = fieldOf(child);
    if (field !== undefined && childField !== field) return undefined;
    field = childField;
    if (child.kind === "range" && !ranges.add(child)) return undefined;
    const childEntries = operatorEntries(child);
    if (childEntries === undefined) return undefined;
    for (const entry of childEntries) {
      if (keys.has(entry[0])) return undefined;
      keys.add(entry[0]);
      entries.push(entry);
    }
  }
  return field === undefined ? undefined : [field, toObject(entries)];
}

/**
 * Replays how the parser groups the bounds of one operator object into range nodes (parse.ts): per operand
 * type, the first range takes the first lower and the first upper bound; a further bound of a side already
 * taken becomes a range of its own. `add` says whether printing the ranges seen so far, in order, in one
 * operator object gives back exactly these range nodes.
 */
class RangeReplay {
  private readonly first = new Map<string, { lower: boolean; upper: boolean }>();

  add(range: RangeNode): boolean {
    const type = (range.lower ?? range.upper)?.operand.type;
    if (type === undefined) return false;
    const first = this.first.get(type);
    if (first === undefined) {
      this.first.set(type, { lower: range.lower !== undefined, upper: range.upper !== undefined });
      return true;
    }
    // A later range survives only as a single bound whose side the first range already holds.
    if (range.lower !== undefined && range.upper !== undefined) return false;
    return range.lower !== undefined ? first.lower : first.upper;
  }
}

/** A field node's direct value: a plain value for equality, a pipe string, or an operator object. */
function directValue(node: FieldNode): unknown {
  if (node.kind === "eq" && !(node.operand.type === "string" && node.operand.value.includes("|"))) {
    return operandJson(node.operand);
  }
  if (node.kind === "in" && node.fromPipe) {
    const pipe = pipeString(node.operands);
    if (pipe !== undefined) return pipe;
  }
  if (node.kind === "in") return toObject([["$in", node.operands.map(operandJson)]]);
  return toObject(operatorEntries(node) ?? unprintable(node));
}

/**
 * Pipe alternatives that parse back to the same operands: non-empty strings without `|` and without
 * surrounding spaces. One operand is written twice (`"Webhook|Webhook"`), which parses to one.
 */
function pipeString(operands: readonly Operand[]): string | undefined {
  const values: string[] = [];
  for (const operand of operands) {
    if (operand.type !== "string") return undefined;
    const value = operand.value;
    if (value === "" || value.includes("|") || value.trim() !== value) return undefined;
    values.push(value);
  }
  if (values.length === 0) return undefined;
  return values.length === 1 ? `${values[0]}|${values[0]}` : values.join("|");
}

/** The operator-object entries of one field-level node, or undefined when it has no operator form. */
function operatorEntries(node: FieldNode | NotNode): Entry[] | undefined {
  switch (node.kind) {
    case "eq":
      return [["$eq", operandJson(node.operand)]];
    case "ne":
      return [["$ne", operandJson(node.operand)]];
    case "range":
      return rangeEntries(node);
    case "in":
      return node.fromPipe ? undefined : [["$in", node.operands.map(operandJson)]];
    case "nin":
      return [["$nin", node.operands.map(operandJson)]];
    case "all":
      return [["$all", node.operands.map(operandJson)]];
    case "regex":
      return node.flags === ""
        ? [["$regex", node.source]]
        : [
            ["$regex", node.source],
            ["$options", node.flags],
          ];
    case "exists":
      return [["$exists", node.exists]];
    case "size":
      return [["$size", node.size]];
    case "not": {
      const inner = notChildEntries(node.child);
      return inner === undefined ? undefined : [["$not", toObject(inner)]];
    }
    default:
      return assertNever(node);
  }
}

/**
 * The entries of the operator object inside `$not`: one field node, a `not` (`$not` inside `$not`), or an
 * `and` of field nodes of one field.
 */
function notChildEntries(child: Condition): Entry[] | undefined {
  if (child.kind === "not") return operatorEntries(child);
  if (child.kind === "and") {
    if (child.children.length < 2) return undefined;
    const group = groupEntry(child.children);
    if (group === undefined) return undefined;
    return Object.entries(group[1] as SearchConditionsJson);
  }
  if (child.kind === "or" || child.kind === "nor") return undefined;
  return operatorEntries(child);
}

function rangeEntries(node: RangeNode): Entry[] {
  const entries: Entry[] = [];
  if (node.lower !== undefined) {
    entries.push([node.lower.inclusive ? "$gte" : "$gt", operandJson(node.lower.operand)]);
  }
  if (node.upper !== undefined) {
    entries.push([node.upper.inclusive ? "$lte" : "$lt", operandJson(node.upper.operand)]);
  }
  return entries;
}

/** An operand as JSON: the value itself, or `{"$date": iso}` (`{"$date": {"$numberLong": …}}` outside years 0000–9999). */
function operandJson(operand: Operand): unknown {
  switch (operand.type) {
    case "string":
    case "number":
    case "boolean":
      return operand.value;
    case "null":
      return null;
    case "date":
      return operand.value >= MIN_ISO_EPOCH_MS && operand.value <= MAX_ISO_EPOCH_MS
        ? { $date: formatIsoUtc(operand.value) }
        : { $date: { $numberLong: String(operand.value) } };
    default:
      return assertNever(operand);
  }
}

/** The field a field node or `not` node is on. */
function fieldOf(node: FieldNode | NotNode): string {
  if (node.kind !== "not") return fieldName(node);
  let child: Condition = node.child;
  while (child.kind === "and" || child.kind === "not") {
    const next: Condition | undefined = child.kind === "and" ? child.children[0] : child.child;
    if (next === undefined) return unprintable(node);
    child = next;
  }
  if (child.kind === "or" || child.kind === "nor") return unprintable(node);
  return fieldName(child);
}

function unprintable(node: Condition): never {
  throw new TypeError(`Cannot print a '${node.kind}' node whose child is not field operators on one field.`);
}

/** Builds an object from entries with own data properties (a key is never an accessor or the prototype). */
function toObject(entries: readonly Entry[]): SearchConditionsJson {
  const object: SearchConditionsJson = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

// ---------------------------------------------------------------------------------------------------
// explain

/**
 * Explains a condition in words, one line per clause, nested clauses indented by two spaces:
 * `Severity is one of High, Critical`, `CreatedUtcTime after 2024-01-01T00:00:00Z`,
 * `Title matches /^Phish/i`, `any of:` / `all of:` / `none of:` with their children below, `not (…)`.
 * `{}` explains as `every incident`.
 * @param condition - a condition from `parseSearchConditions` (docs/semantics.md 1.1)
 * @returns the explanation, lines separated by `\n`
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions`
 * @example explain(parseSearchConditions({ Severity: { $in: ["High", "Critical"] } }))
 * //=> "Severity is one of High, Critical"
 */
export function explain(condition: Condition): string {
  requireParsedCondition(condition, "explain");
  const lines: string[] = [];
  explainInto(condition, 0, lines);
  return lines.join("\n");
}

function explainInto(condition: Condition, indent: number, lines: string[]): void {
  const pad = "  ".repeat(indent);
  switch (condition.kind) {
    case "and":
      if (condition.children.length === 0) {
        lines.push(`${pad}every incident`);
        return;
      }
      lines.push(`${pad}all of:`);
      for (const child of condition.children) explainInto(child, indent + 1, lines);
      return;
    case "or":
    case "nor":
      lines.push(`${pad}${condition.kind === "or" ? "any" : "none"} of:`);
      for (const child of condition.children) explainInto(child, indent + 1, lines);
      return;
    case "not":
      if (condition.child.kind === "and" || condition.child.kind === "or" || condition.child.kind === "nor") {
        lines.push(
          `${pad}not ${condition.child.kind === "and" ? "all" : condition.child.kind === "or" ? "any" : "none"} of:`,
        );
        for (const child of condition.child.children) explainInto(child, indent + 1, lines);
        return;
      }
      if (condition.child.kind === "not") {
        lines.push(`${pad}not:`);
        explainInto(condition.child, indent + 1, lines);
        return;
      }
      lines.push(`${pad}not (${clause(condition.child)})`);
      return;
    default:
      lines.push(`${pad}${clause(condition)}`);
  }
}

/** One field-level clause in words. */
function clause(node: FieldNode): string {
  const name = fieldName(node);
  switch (node.kind) {
    case "eq":
      return node.operand.type === "null"
        ? `${name} is null or missing`
        : `${name} is ${describe(node.operand)}`;
    case "ne":
      return node.operand.type === "null"
        ? `${name} is present and not null`
        : `${name} is not ${describe(node.operand)}`;
    case "range":
      return `${name} ${rangeText(node)}`;
    case "in":
      return `${name} is one of ${list(node.operands)}`;
    case "nin":
      return `${name} is none of ${list(node.operands)}`;
    case "all":
      return `${name} contains all of ${list(node.operands)}`;
    case "regex":
      return `${name} matches /${node.source}/${node.flags}`;
    case "exists":
      return node.exists ? `${name} exists` : `${name} does not exist`;
    case "size":
      return `${name} has exactly ${node.size} ${node.size === 1 ? "element" : "elements"}`;
    default:
      return assertNever(node);
  }
}

function rangeText(node: RangeNode): string {
  const parts: string[] = [];
  const dates = (node.lower ?? node.upper)?.operand.type === "date";
  if (node.lower !== undefined) {
    const word = dates ? (node.lower.inclusive ? "at or after" : "after") : node.lower.inclusive ? ">=" : ">";
    parts.push(`${word} ${describe(node.lower.operand)}`);
  }
  if (node.upper !== undefined) {
    const word = dates
      ? node.upper.inclusive
        ? "at or before"
        : "before"
      : node.upper.inclusive
        ? "<="
        : "<";
    parts.push(`${word} ${describe(node.upper.operand)}`);
  }
  return parts.join(" and ");
}

function list(operands: readonly Operand[]): string {
  return operands.length === 0 ? "(no values)" : operands.map(describe).join(", ");
}

const PLAIN_TEXT = /^[^\s,"\\\p{Cc}](?:[^,"\\\p{Cc}]*[^\s,"\\\p{Cc}])?$/u;
const LOOKS_LIKE_OTHER = /^(?:[-+]?[\d.]|true$|false$|null$|\(no values\)$)/;

/** An operand in words: strings bare when unambiguous (`High`), else quoted (`"1"`, `"a, b"`, `""`). */
function describe(operand: Operand): string {
  switch (operand.type) {
    case "string":
      return PLAIN_TEXT.test(operand.value) && !LOOKS_LIKE_OTHER.test(operand.value)
        ? operand.value
        : JSON.stringify(operand.value);
    case "number":
    case "boolean":
      return String(operand.value);
    case "null":
      return "null";
    case "date":
      if (operand.value >= MIN_ISO_EPOCH_MS && operand.value <= MAX_ISO_EPOCH_MS)
        return formatIsoUtc(operand.value);
      return `${operand.value} ms since 1970-01-01T00:00:00Z`;
    default:
      return assertNever(operand);
  }
}
