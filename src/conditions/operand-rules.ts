/**
 * The operand rules of the operator table (operators.ts, `OperandRule`; docs/semantics.md 1.3, 1.4, 1.10) as
 * objects: each rule carries how its operand is read (`parse`: operand JSON → the slot of its node, or issues
 * recorded), how it is written back (`print`: node → operand JSON, canonical) and the JSON Schema of its
 * operand (`schema`, by the field's kind). The parser (parse-operators.ts), the printer (print.ts) and the
 * schema generator (json-schema.ts) dispatch through `OPERAND_RULES[row.operand]` and know no rule by name;
 * `OPERAND_RULES` has one entry per rule and each entry all three members, which the compiler checks. The
 * readers that `parse` calls are in operand-readers.ts (and parse-regex.ts). The
 * printer still chooses, by node kind, which operators a node is written with (a range's bounds, a regex's
 * `$options`, a bit test's operator) and words `explain`.
 */
import {
  type Condition,
  type FieldAndNode,
  type FieldKind,
  type FieldOperatorNode,
  type Operand,
  operandValue,
  type RangeBound,
} from "./ast.js";
import { formatIsoUtc, MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "./dates.js";
import {
  type OperandParser,
  type OperatorEntry,
  readBits,
  readBound,
  readComparison,
  readElemMatch,
  readExists,
  readMod,
  readNot,
  readSize,
  readType,
  readValueSet,
  type SpecOf,
} from "./operand-readers.js";
import { type FieldOperandRule, type FieldOperatorSpec, TYPE_CODES, TYPE_NAMES } from "./operators.js";
import type { ConditionLimits } from "./options.js";
import type { OperatorObject } from "./parse-context.js";
import { readFlags, readPattern } from "./parse-regex.js";

/** A JSON Schema, as plain JSON (an object, or `true`/`false`). */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** What an operand rule carries (one object per rule of `FieldOperandRule`). */
export interface OperandRuleBehaviour<R extends FieldOperandRule> {
  /**
   * Reads the operand of one operator of rule `R` into `state` (its slot: a node, a range bound, regex
   * flags); false when it is refused, its issues recorded on `parser`.
   */
  readonly parse: (
    parser: OperandParser,
    state: OperatorObject,
    spec: SpecOf<R>,
    entry: OperatorEntry,
  ) => boolean;
  /**
   * The operand JSON that parses back to `node` (docs/semantics.md 1.1–1.4): for `ordered`, one bound of a
   * range; nested operator objects and conditions (`$not`, `$elemMatch`) printed by `nested`.
   */
  readonly print: (node: PrintedBy<R>, nested: NestedPrinter) => unknown;
  /** The JSON Schema of the operand on a field of the context's kind; `false` where it never stands. */
  readonly schema: (context: OperandSchemaContext) => JsonSchema;
}

/** What a rule's `print` writes from: a bound for `ordered`, else the node its rows produce. */
export type PrintedBy<R extends FieldOperandRule> = R extends "ordered"
  ? RangeBound
  : Extract<FieldOperatorNode, { kind: SpecOf<R>["node"] }>;

/** The printer's own recursion, for the operands that hold operator objects or conditions. */
export interface NestedPrinter {
  /** An operator object (the child of `$not`, the operator form of `$elemMatch`). */
  readonly operatorObject: (node: FieldOperatorNode | FieldAndNode) => unknown;
  /** A condition object (the query form of `$elemMatch`). */
  readonly condition: (condition: Condition) => unknown;
}

/** An operand as JSON: the value itself, or `{"$date": iso}` (`{"$date": {"$numberLong": …}}` outside years 0000–9999). */
export function operandJson(operand: Operand): unknown {
  return operandValue(operand, (ms) =>
    ms >= MIN_ISO_EPOCH_MS && ms <= MAX_ISO_EPOCH_MS
      ? { $date: formatIsoUtc(ms) }
      : { $date: { $numberLong: String(ms) } },
  );
}

/** What an operand rule's schema is built from: the field's kind and labels, the limits, the builder. */
export interface OperandSchemaContext {
  readonly kind: FieldKind;
  readonly labels: readonly string[] | undefined;
  readonly limits: ConditionLimits;
  /** The `$ref` of the field's operator object at the `not` place (for `$not`). */
  readonly notRef: string;
}

/** The `$ref` of the shared definitions. */
export const DATE_REF = { $ref: "#/$defs/date" };

/** A `value` operand (`$eq`, `$ne`, the elements of `$in`/`$nin`/`$all`): null, and the field kind's values. */
function valueOperand(context: OperandSchemaContext): JsonSchema {
  const { kind, labels, limits } = context;
  switch (kind) {
    case "date":
      return { anyOf: [{ type: "null" }, DATE_REF] };
    case "text":
      return { anyOf: [{ type: "null" }, { type: "string", maxLength: limits.stringLength }] };
    case "enum":
      return { anyOf: [{ type: "null" }, { enum: [...(labels ?? [])] }] };
    case "open":
      return {
        anyOf: [
          { type: ["null", "boolean", "number"] },
          { type: "string", maxLength: limits.stringLength },
          DATE_REF,
        ],
      };
  }
}

/** The flag strings `$options` accepts: `i`, `m`, `s`, each at most once, in any order (1.4). */
function flagStrings(): string[] {
  const out = new Set<string>([""]);
  const grow = (prefix: string, rest: string) => {
    for (const flag of rest) {
      const next = prefix + flag;
      out.add(next);
      grow(next, rest.replace(flag, ""));
    }
  };
  grow("", "ims");
  return [...out];
}

/**
 * The operand rules (operators.ts, `OperandRule`, but `conditions`, which the condition layer reads): one
 * object per rule, each with its `parse`, its `print` and its `schema`. A rule added to the table without an entry here,
 * or an entry without one of the two, is a compile error.
 */
export const OPERAND_RULES: { readonly [R in FieldOperandRule]: OperandRuleBehaviour<R> } = Object.freeze({
  value: { parse: readComparison, print: (node) => operandJson(node.operand), schema: valueOperand },
  ordered: {
    parse: readBound,
    print: (bound) => operandJson(bound.operand),
    schema: ({ kind, limits }) => {
      switch (kind) {
        case "date":
          return DATE_REF;
        case "text":
        case "enum":
          return { type: "string", maxLength: limits.stringLength };
        case "open":
          return valueOperand({ kind, labels: undefined, limits, notRef: "" });
      }
    },
  },
  valueSet: {
    parse: readValueSet,
    print: (node) => node.operands.map(operandJson),
    schema: (context) => ({ type: "array", maxItems: context.limits.setSize, items: valueOperand(context) }),
  },
  pattern: {
    parse: (parser, state, _spec, { value, path }) => readPattern(parser, state, value, path),
    print: (node) => node.source,
    schema: ({ kind, limits }) =>
      kind === "date"
        ? false
        : { type: "string", maxLength: limits.patternLength, description: "A pattern in RE2 syntax." },
  },
  flags: {
    parse: (parser, state, _spec, { value, path }) => readFlags(parser, state, value, path),
    print: (node) => node.flags,
    schema: ({ kind }) => (kind === "date" ? false : { enum: flagStrings() }),
  },
  boolean: { parse: readExists, print: (node) => node.exists, schema: () => ({ enum: [true, false, 1, 0] }) },
  size: {
    parse: (parser, state, _spec, entry) => readSize(parser, state, entry),
    print: (node) => node.size,
    schema: () => ({ type: "integer", minimum: 0 }),
  },
  operatorObject: {
    parse: (parser, state, _spec, entry) => readNot(parser, state, entry),
    print: (node, nested) => nested.operatorObject(node.child),
    schema: ({ notRef }) => ({ $ref: notRef }),
  },
  // The schemas of `typeSet`, `modulus` and `elemMatch` are permissive on purpose (docs/semantics.md 1.10):
  // which names a field's kind admits, the divisor's rules and the element condition are the parser's to
  // judge.
  typeSet: {
    parse: (parser, state, _spec, entry) => readType(parser, state, entry),
    print: (node) => (node.types.length === 1 ? node.types[0] : [...node.types]),
    schema: () => {
      const one = { enum: [...Object.keys(TYPE_NAMES), ...TYPE_CODES.keys()] };
      return { anyOf: [one, { type: "array", minItems: 1, items: one }] };
    },
  },
  modulus: {
    parse: (parser, state, _spec, entry) => readMod(parser, state, entry),
    print: (node) => [node.divisor, node.remainder],
    schema: () => ({ type: "array", items: { type: "number" } }),
  },
  bitMask: {
    parse: readBits,
    print: (node) => [...node.positions],
    // Only an open field holds numbers (docs/semantics.md 1.3).
    schema: ({ kind, limits }) =>
      kind !== "open"
        ? false
        : {
            anyOf: [
              { type: "integer", minimum: 0, exclusiveMaximum: 2 ** 63 },
              { type: "array", maxItems: limits.setSize, items: { type: "integer", minimum: 0 } },
            ],
          },
  },
  elemMatch: {
    parse: (parser, state, _spec, entry) => readElemMatch(parser, state, entry),
    print: ({ match }, nested) =>
      match.form === "query" ? nested.condition(match.condition) : nested.operatorObject(match.operators),
    schema: () => ({ type: "object" }),
  },
});

/**
 * Reads one operator's operand by its row's rule (`OPERAND_RULES[spec.operand].parse`).
 * @returns false when it was refused (issues recorded on `parser`)
 */
export function parseOperand(
  parser: OperandParser,
  state: OperatorObject,
  spec: FieldOperatorSpec,
  entry: OperatorEntry,
): boolean {
  // The entry's rule is the row's own: the correlation TypeScript cannot follow through the index.
  const parse = OPERAND_RULES[spec.operand].parse as OperandRuleBehaviour<FieldOperandRule>["parse"];
  return parse(parser, state, spec, entry);
}

/**
 * The operand JSON of a node (or, for an ordered row, a range bound) by its row's rule
 * (`OPERAND_RULES[spec.operand].print`). The caller passes what the row's rule prints from.
 */
export function printOperand(
  spec: FieldOperatorSpec,
  printed: FieldOperatorNode | RangeBound,
  nested: NestedPrinter,
): unknown {
  const print = OPERAND_RULES[spec.operand].print as (
    printed: FieldOperatorNode | RangeBound,
    nested: NestedPrinter,
  ) => unknown;
  return print(printed, nested);
}

/** The JSON Schema of a row's operand on a field (`OPERAND_RULES[spec.operand].schema`). */
export function operandSchema(spec: FieldOperatorSpec, context: OperandSchemaContext): JsonSchema {
  return OPERAND_RULES[spec.operand].schema(context);
}
