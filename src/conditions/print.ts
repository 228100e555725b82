/**
 * AST → canonical Search Conditions JSON (`toSearchConditions`), and AST → readable text (`explain`).
 *
 * Canonical form: for every condition produced by `parseSearchConditions`, parsing the printed JSON with
 * the same catalogue gives a deeply equal condition. Plain values for equality (but `{"$eq": s}` when `s`
 * contains `|`, so that a pipe is never split again), pipe strings for `in` nodes that came from pipe
 * alternatives, `{"$date": iso}` for dates, one operator object per field when its nodes fit in one, and
 * `$and` when they do not (two children on one field with the same operator, logical children that
 * collide, …). Rules: docs/semantics.md 1.1–1.4.
 *
 * Operators are named by the operator table (operators.ts: `operatorOf`, `boundOperator`), their operands
 * written by the row's operand rule (operand-rules.ts, `OPERAND_RULES[rule].print`), and whether an
 * `$and` of ranges fits in one operator object is decided by the parser's own rule (`RangeGrouping`).
 */
import type {
  BitTest,
  Condition,
  FieldNode,
  FieldOperatorNode,
  Operand,
  RangeBound,
  RangeNode,
} from "./ast.js";
import { assertNever, fieldName, isFieldNode } from "./ast.js";
import { formatIsoUtc, MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "./dates.js";
import { type NestedPrinter, operandJson, printOperand } from "./operand-rules.js";
import {
  bitsOperator,
  boundOperator,
  type FieldOperatorSpec,
  OPERATORS,
  type OperatorName,
  operatorOf,
  RangeGrouping,
} from "./operators.js";
import { requireParsedCondition } from "./parse.js";

/** A Search Conditions JSON object, as printed. */
export type SearchConditionsJson = Record<string, unknown>;

/**
 * Raw Search Conditions JSON as a caller writes it (docs/semantics.md 1.1): a JSON object, or a non-empty
 * array of JSON objects (the OR of them). The type states the shape only; the parser checks everything else
 * at run time (fields, operators, operands, limits) and refuses what is wrong with its issues. Input of
 * unknown type (a request body, a file) goes to `parseSearchConditions`, which takes any value.
 */
export type SearchConditionsInput = SearchConditionsJson | readonly SearchConditionsJson[];

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
  return condition.kind === "and" ? printAnd(condition.children) : toObject([entryOf(condition)]);
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
      if (child.kind === "and" && child.children.length === 0) break;
      const entry = entryOf(child);
      if (keys.has(entry[0])) break;
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
  return toObject([[operatorOf("and"), children.map(printCondition)]]);
}

/**
 * The condition as one entry of a condition object. An empty `and` has none (it is `{}`); callers print it
 * with `printCondition`.
 */
function entryOf(condition: Condition): Entry {
  if (isFieldNode(condition)) return [fieldName(condition), directValue(condition)];
  switch (condition.kind) {
    case "and":
      return (
        (condition.children.length > 1 ? groupEntry(condition.children) : undefined) ?? [
          operatorOf("and"),
          condition.children.map(printCondition),
        ]
      );
    case "or":
    case "nor":
      return [operatorOf(condition.kind), condition.children.map(printCondition)];
    case "not":
      return [fieldOf(condition), toObject(operatorEntries(condition))];
    default:
      return assertNever(condition);
  }
}

/**
 * Two or more field-level children on one field path, printed as one operator object, or undefined when
 * they do not fit in one: a logical child, an operator twice, an `in` node from pipe alternatives, or
 * ranges that the parser would group differently (`RangeGrouping`: two single-bound ranges of one operand
 * type would merge).
 */
function groupEntry(children: readonly Condition[]): Entry | undefined {
  let field: string | undefined;
  const entries: Entry[] = [];
  const keys = new Set<string>();
  const ranges = new RangeGrouping();
  for (const child of children) {
    if (child.kind === "and" || child.kind === "or" || child.kind === "nor") return undefined;
    const childField = fieldOf(child);
    if (field !== undefined && childField !== field) return undefined;
    field = childField;
    if (child.kind === "in" && child.fromPipe) return undefined;
    if (child.kind === "range" && !regroups(ranges, child)) return undefined;
    for (const entry of operatorEntries(child)) {
      if (keys.has(entry[0])) return undefined;
      keys.add(entry[0]);
      entries.push(entry);
    }
  }
  return field === undefined ? undefined : [field, toObject(entries)];
}

/**
 * True when the parser, reading this range's operators next in the operator object whose ranges went
 * through `grouping` so far, builds exactly this range (the same `RangeGrouping` rule as parse-operators.ts).
 */
function regroups(grouping: RangeGrouping, node: RangeNode): boolean {
  const range =
    node.lower === undefined ? grouping.add("upper", node.upper) : grouping.add("lower", node.lower);
  if (range === undefined) return false;
  if (node.lower !== undefined && node.upper !== undefined) grouping.add("upper", node.upper);
  return range.bounds.lower === node.lower && range.bounds.upper === node.upper;
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
  return toObject(operatorEntries(node));
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

/**
 * The operator-object entries of one operator node, named by the operator table: `operatorOf(kind)` and,
 * for ranges, `boundOperator(side, inclusive)`; a `regex` node adds `$options` when it has flags. An `in`
 * node prints as `$in` (whether it came from pipe alternatives is the caller's concern).
 */
function operatorEntries(node: FieldOperatorNode): Entry[] {
  if (node.kind === "not") return single(node);
  return (PRINTERS[node.kind].json as (node: FieldNode) => Entry[])(node);
}

/** The printer's recursion, given to the operand rules of `$not` and `$elemMatch` (operand-rules.ts). */
const NESTED: NestedPrinter = {
  operatorObject: (node) =>
    toObject(node.kind === "and" ? node.children.flatMap(operatorEntries) : operatorEntries(node)),
  condition: printCondition,
};

/** The entry of `name` with the operand its row's rule prints from `printed` (operand-rules.ts). */
function entry(name: OperatorName, printed: FieldOperatorNode | RangeBound): Entry {
  return [name, printOperand(OPERATORS[name] as FieldOperatorSpec, printed, NESTED)];
}

/** A node written with the one operator of its kind (`operatorOf`). */
function single(node: Exclude<FieldOperatorNode, RangeNode>): Entry[] {
  return [entry(operatorOf(node.kind), node)];
}

/** The operator of a regex node's flags (the table's `flags` row). */
const OPTIONS = OPERATORS.$options.name;

function rangeEntries(node: RangeNode): Entry[] {
  const entries: Entry[] = [];
  if (node.lower !== undefined) entries.push(entry(boundOperator("lower", node.lower.inclusive), node.lower));
  if (node.upper !== undefined) entries.push(entry(boundOperator("upper", node.upper.inclusive), node.upper));
  return entries;
}

/** The field an operator node is on (a `not` is on the field of its operators). */
function fieldOf(node: FieldOperatorNode): string {
  if (node.kind !== "not") return fieldName(node);
  const { child } = node;
  return fieldOf(child.kind === "and" ? child.children[0] : child);
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

/**
 * Explains `condition` into `lines`; `subject`, when given, names what field clauses are about (the element
 * of an `$elemMatch`'s operator form) instead of their field.
 */
function explainInto(condition: Condition, indent: number, lines: string[], subject?: string): void {
  const pad = "  ".repeat(indent);
  if (condition.kind === "elemMatch") {
    const { match } = condition;
    lines.push(`${pad}${clause(condition, subject)}`);
    if (match.form === "query") explainInto(match.condition, indent + 1, lines);
    else explainInto(match.operators, indent + 1, lines, "the element");
    return;
  }
  if (isFieldNode(condition)) {
    lines.push(`${pad}${clause(condition, subject)}`);
    return;
  }
  switch (condition.kind) {
    case "and":
      if (condition.children.length === 0) {
        lines.push(`${pad}every incident`);
        return;
      }
      lines.push(`${pad}all of:`);
      for (const child of condition.children) explainInto(child, indent + 1, lines, subject);
      return;
    case "or":
    case "nor":
      lines.push(`${pad}${condition.kind === "or" ? "any" : "none"} of:`);
      for (const child of condition.children) explainInto(child, indent + 1, lines);
      return;
    case "not": {
      const { child } = condition;
      if (child.kind === "and") {
        lines.push(`${pad}not all of:`);
        for (const operator of child.children) explainInto(operator, indent + 1, lines, subject);
      } else if (child.kind === "not" || child.kind === "elemMatch") {
        lines.push(`${pad}not:`);
        explainInto(child, indent + 1, lines, subject);
      } else lines.push(`${pad}not (${clause(child, subject)})`);
      return;
    }
    default:
      assertNever(condition);
  }
}

/** One field-level clause in words (`subject` instead of the field's name, when given). */
function clause(node: FieldNode, subject?: string): string {
  return (PRINTERS[node.kind].words as (node: FieldNode, name: string) => string)(
    node,
    subject ?? fieldName(node),
  );
}

/**
 * How each field node kind prints, once (a new kind is a compile error here): `json`, its entries in the
 * canonical Search Conditions JSON of its operator object (docs/semantics.md 1.1–1.4); `words`, its clause
 * in `explain` (`name` is the field, or what the clause is about).
 */
interface Printer<K extends FieldNode["kind"]> {
  readonly json: (node: Extract<FieldNode, { kind: K }>) => Entry[];
  readonly words: (node: Extract<FieldNode, { kind: K }>, name: string) => string;
}

const PRINTERS: { readonly [K in FieldNode["kind"]]: Printer<K> } = {
  eq: {
    json: single,
    words: (node, name) =>
      node.operand.type === "null" ? `${name} is null or missing` : `${name} is ${describe(node.operand)}`,
  },
  ne: {
    json: single,
    words: (node, name) =>
      node.operand.type === "null"
        ? `${name} is present and not null`
        : `${name} is not ${describe(node.operand)}`,
  },
  range: { json: rangeEntries, words: (node, name) => `${name} ${rangeText(node)}` },
  in: {
    json: single,
    words: (node, name) => `${name} is one of ${list(node.operands)}`,
  },
  nin: {
    json: single,
    words: (node, name) => `${name} is none of ${list(node.operands)}`,
  },
  all: {
    json: single,
    words: (node, name) => `${name} contains all of ${list(node.operands)}`,
  },
  regex: {
    json: (node) => {
      const entries: Entry[] = [entry(operatorOf("regex"), node)];
      if (node.flags !== "") entries.push(entry(OPTIONS, node));
      return entries;
    },
    words: (node, name) => `${name} matches /${node.source}/${node.flags}`,
  },
  exists: {
    json: single,
    words: (node, name) => (node.exists ? `${name} exists` : `${name} does not exist`),
  },
  size: {
    json: single,
    words: (node, name) => `${name} has exactly ${node.size} ${node.size === 1 ? "element" : "elements"}`,
  },
  type: {
    json: single,
    words: (node, name) => `${name} is of type ${node.types.join(" or ")}`,
  },
  mod: {
    json: single,
    words: (node, name) => `${name} modulo ${node.divisor} is ${node.remainder} (integer part)`,
  },
  bits: {
    json: (node) => [entry(bitsOperator(node.test), node)],
    words: (node, name) =>
      `${name} is an integer with ${BIT_TEST_TEXT[node.test]} of the bits [${node.positions.join(", ")}]`,
  },
  elemMatch: {
    json: single,
    // The heading; `explainInto` lists what an element must match below it.
    words: (_node, name) => `${name} has an element matching:`,
  },
};

/** How `explain` words each bit test. */
const BIT_TEST_TEXT: Readonly<Record<BitTest, string>> = {
  allSet: "all set",
  anySet: "any set",
  allClear: "all clear",
  anyClear: "any clear",
};

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
