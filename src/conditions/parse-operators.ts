/**
 * Operator objects (docs/semantics.md 1.3): each key looked up in the operator table (operators.ts) and read
 * by its operand rule, the nodes kept in the keys' order, ranges grouped by `RangeGrouping`, `$options`
 * joined to its `$regex` (parse-regex.ts). `$elemMatch`'s query form is a condition object, read by the
 * layer above (`Parser` in parse.ts, through `parseConditionObject`).
 */
import type { Condition, FieldAndNode, FieldOperatorNode, RangeNode } from "./ast.js";
import type { PathSegment } from "./issues.js";
import type { OperandParser, OperatorEntry } from "./operand-readers.js";
import { parseOperand } from "./operand-rules.js";
import {
  type FieldOperatorSpec,
  fieldOperator,
  type GroupedRange,
  type OperatorPlace,
  operatorsAt,
  RangeGrouping,
} from "./operators.js";
import { type Field, type OperatorObject, ParseContext, type Slot } from "./parse-context.js";
import { checkRegexes } from "./parse-regex.js";
import { type Read, readProperty } from "./untrusted.js";

/** The parser's layer of operator objects, below the condition objects that `Parser` reads. */
export abstract class OperatorParser extends ParseContext implements OperandParser {
  /**
   * A condition object (the query form of `$elemMatch`, whose field paths are relative to the element at
   * `prefix`); implemented by `Parser` (parse.ts).
   */
  abstract parseConditionObject(
    read: Extract<Read, { kind: "object" }>,
    path: readonly PathSegment[],
    depth: number,
    prefix?: string,
  ): Condition | undefined;

  /**
   * An operator object (1.3) at `place` (a field's value, or the value of `$not`): each key is looked up in
   * the operator table and read by its operand rule (`readOperator`); the nodes keep the keys' order, ranges
   * grouped by `RangeGrouping`, `$options` joined to its `$regex`. Its node, or the `and` of its nodes.
   */
  parseOperatorObject(
    field: Field,
    object: object,
    keys: readonly string[],
    path: readonly PathSegment[],
    depth: number,
    place: "field" | "not",
  ): FieldOperatorNode | FieldAndNode | undefined {
    const state: OperatorObject = {
      field,
      slots: [],
      ranges: new RangeGrouping(),
      sawRegex: false,
      flags: undefined,
    };
    let valid = true;
    for (const key of keys) {
      const keyPath = [...path, key];
      if (this.keyTooLong(key, keyPath)) {
        valid = false;
        continue;
      }
      this.count(keyPath);
      const value = readProperty(object, key);
      const operator = fieldOperator(key, place);
      if (!operator.ok) this.refuseOperator(key, place, operator.problem, keyPath);
      if (!operator.ok || !this.readOperator(state, operator.spec, { value, path: keyPath, depth })) {
        valid = false;
      }
    }
    if (!checkRegexes(this, state)) valid = false;
    const [first, second, ...rest] = state.slots.map((slot) => completeSlot(state, slot));
    if (!valid || first === undefined) return undefined; // `first` is there whenever `valid`: keys is not empty
    return second === undefined ? first : { kind: "and", children: [first, second, ...rest] };
  }

  /** Records why an operator may not stand where it is (`unknown_operator` or `misplaced_operator`, 1.3). */
  protected refuseOperator(
    key: string,
    place: OperatorPlace,
    problem: "unknown" | "misplaced",
    path: readonly PathSegment[],
  ): void {
    this.issue(
      problem === "unknown"
        ? { code: "unknown_operator", operator: key, allowed: operatorsAt(place) }
        : { code: "misplaced_operator", operator: key, where: place },
      path,
    );
  }

  /**
   * Reads one operator of an operator object through its row's operand rule (operand-rules.ts,
   * `OPERAND_RULES`); false when it was refused (issues recorded).
   */
  protected readOperator(state: OperatorObject, spec: FieldOperatorSpec, entry: OperatorEntry): boolean {
    return parseOperand(this, state, spec, entry);
  }
}

/** The node of one slot of an operator object, once every key has been read. */
function completeSlot(state: OperatorObject, slot: Slot): FieldOperatorNode {
  const { field } = state;
  if ("range" in slot) return rangeNode(field, slot.range);
  if ("regex" in slot) {
    return {
      kind: "regex",
      path: [...field.segments],
      fieldKind: field.kind,
      source: slot.regex,
      flags: state.flags?.value ?? "",
    };
  }
  return slot;
}

/** A range node (its bounds in the order lower, upper: the AST's canonical key order). */
function rangeNode(field: Field, range: GroupedRange): RangeNode {
  return { kind: "range", path: [...field.segments], fieldKind: field.kind, ...range.bounds };
}
