/**
 * The parser's state and its reading of operands (docs/semantics.md 1.4, 1.7): the issues found so far, the
 * node, depth and string limits checked before anything is read further, and the operands (scalars and
 * `{"$date": …}`) checked against a field's kind and labels. The parser's layers (`OperatorParser` in
 * parse-operators.ts, `Parser` in parse.ts) extend it; parse-regex.ts takes it as an argument.
 */
import { assertNever, type FieldKind, type FieldNode, type FieldOperatorNode, type Operand } from "./ast.js";
import { isForbiddenSegment } from "./catalog.js";
import { MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS, parseIsoUtc } from "./dates.js";
import { type Issue, type IssueDetail, type LimitName, makeIssue, type PathSegment } from "./issues.js";
import type { GroupedRange, RangeGrouping } from "./operators.js";
import type { ResolvedParseOptions } from "./options.js";
import { suggestLabel } from "./suggest-label.js";
import {
  foundOf,
  OBJECT_STAND_IN,
  type Read,
  readProperty,
  readValue,
  safeFound,
  scalarOperand,
} from "./untrusted.js";

/** Thrown internally when the node limit is reached: parsing stops, the issues so far are returned. */
export const ABORT: unique symbol = Symbol("abort");

/** A catalogued (or open) field as the parser sees it. */
export interface Field {
  /** The dotted field path as written. */
  readonly name: string;
  readonly segments: readonly string[];
  readonly kind: FieldKind;
  readonly labels: readonly string[] | undefined;
  readonly alternative: boolean;
}

/** An operand read from the input, or why not. */
export type OperandRead =
  | { readonly ok: true; readonly operand: Operand; readonly raw: unknown }
  /** Not an operand; `reported` when an issue was already recorded (a bad `$date`, a limit). */
  | { readonly ok: false; readonly found: unknown; readonly reported: boolean };

/** What an operand may be, in an issue's `expected`. */
export const OPERAND_EXPECTED = 'a string, number, boolean, null or {"$date": …} operand';
const NUMBER_LONG = /^-?\d{1,16}$/;

/** The parser's state: its options, the issues found, and the counts of the limits (docs/semantics.md 1.7). */
export class ParseContext {
  readonly issues: Issue[] = [];
  /** Warnings beside a valid condition (`possible_misspelling`, docs/semantics.md 1.1). */
  readonly warnings: Issue[] = [];
  private nodes = 0;
  /** The size of the `$regex` programs measured so far in this condition (1.7). */
  programTotal = 0;

  constructor(readonly options: ResolvedParseOptions) {}

  /** Records an issue. */
  issue(detail: IssueDetail, path: readonly PathSegment[]): void {
    this.issues.push(makeIssue(detail, path));
  }

  /** Records a warning: reported beside the condition, never a reason to refuse it. */
  warn(detail: IssueDetail, path: readonly PathSegment[]): void {
    this.warnings.push(makeIssue(detail, path));
  }

  /** Records a `limit_exceeded` issue of `limit` (with the size found, when it is known). */
  limit(limit: LimitName, path: readonly PathSegment[], found?: number): void {
    const max = this.options.limits[limit];
    this.issue(
      found === undefined
        ? { code: "limit_exceeded", limit, max }
        : { code: "limit_exceeded", limit, max, found },
      path,
    );
  }

  /** Counts one node (docs/semantics.md 1.7); past the limit, records the issue and stops parsing. */
  count(path: readonly PathSegment[]): void {
    this.nodes += 1;
    if (this.nodes > this.options.limits.nodes) {
      this.limit("nodes", path);
      throw ABORT;
    }
  }

  /** Checks the depth of a container before reading inside it; false (with an issue) when too deep. */
  enter(depth: number, path: readonly PathSegment[]): boolean {
    if (depth <= this.options.limits.depth) return true;
    this.limit("depth", path);
    return false;
  }

  /** A failure that is not a refusal (a bug; a stack overflow, which no configurable depth reaches): an issue. */
  unexpected(error: unknown): void {
    if (error instanceof RangeError && /call stack/i.test(error.message)) this.limit("depth", []);
    else
      this.issue(
        { code: "invalid_type", expected: "Search Conditions of plain JSON values", found: undefined },
        [],
      );
  }

  /** The own enumerable keys of an object with the forbidden ones (1.1) reported and removed. */
  allowedKeys(keys: readonly string[], path: readonly PathSegment[]): string[] {
    const allowed: string[] = [];
    for (const key of keys) {
      if (isForbiddenSegment(key)) this.issue({ code: "forbidden_key", key }, [...path, key]);
      else allowed.push(key);
    }
    return allowed;
  }

  /** Keys longer than the string limit are refused before they reach a message (1.7). */
  keyTooLong(key: string, path: readonly PathSegment[]): boolean {
    if (key.length <= this.options.limits.stringLength) return false;
    this.limit("stringLength", path, key.length);
    return true;
  }

  /**
   * A string operand of at most `limit` characters (`$regex`'s pattern, `$options`); undefined, with an
   * `invalid_type` issue naming `expected` or a `limit_exceeded` issue, when it is not one.
   */
  readString(
    value: unknown,
    path: readonly PathSegment[],
    expected: string,
    limit: "stringLength" | "patternLength",
  ): string | undefined {
    if (typeof value !== "string") {
      this.issue({ code: "invalid_type", expected, found: safeFound(value) }, path);
      return undefined;
    }
    if (value.length > this.options.limits[limit]) {
      this.limit(limit, path, value.length);
      return undefined;
    }
    return value;
  }

  /**
   * The keys of an operator object (a field's value, or `$not`'s), forbidden keys reported and left out;
   * undefined (issues recorded) when it mixes operators with plain keys, or has no operator (`notOperators`
   * is then the issue, unless only forbidden keys were there).
   */
  operatorKeysOf(
    read: Extract<Read, { kind: "object" }>,
    path: readonly PathSegment[],
    notOperators: IssueDetail,
  ): string[] | undefined {
    const keys = this.allowedKeys(read.keys, path);
    const operatorKeys = keys.filter((key) => key.startsWith("$"));
    const plainKeys = keys.filter((key) => !key.startsWith("$"));
    if (operatorKeys.length > 0 && plainKeys.length > 0) {
      this.issue({ code: "mixed_operator_object", operatorKeys, plainKeys }, path);
      return undefined;
    }
    if (plainKeys.length > 0 || read.keys.length === 0) {
      this.issue(notOperators, path);
      return undefined;
    }
    return operatorKeys.length === 0 ? undefined : operatorKeys; // only forbidden keys: already reported
  }

  /**
   * `readOperand`, with an `invalid_type` issue naming `expected` for a value that is no operand (unless an
   * issue was already recorded); undefined when it is not one.
   */
  requireOperand(
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
    expected: string,
  ): Extract<OperandRead, { ok: true }> | undefined {
    const read = this.readOperand(value, path, depth);
    if (read.ok) return read;
    if (!read.reported) this.issue({ code: "invalid_type", expected, found: read.found }, path);
    return undefined;
  }

  /** `{"$date": "…"}` or `{"$date": {"$numberLong": "…"}}` (1.4); the object is already known to hold only `$date`. */
  parseDateObject(object: object, path: readonly PathSegment[], depth: number): Operand | undefined {
    const datePath = [...path, "$date"];
    const raw = readProperty(object, "$date");
    const read = readValue(raw);
    if (read.kind === "string") {
      const ms = parseIsoUtc(read.value);
      if (ms !== undefined) return { type: "date", value: ms };
      this.issue({ code: "invalid_date", found: read.value }, datePath);
      return undefined;
    }
    if (read.kind === "object") {
      if (!this.enter(depth + 1, datePath)) return undefined;
      const keys = this.allowedKeys(read.keys, datePath);
      if (keys.length !== read.keys.length) return undefined;
      if (keys.length === 1 && keys[0] === "$numberLong") {
        const longPath = [...datePath, "$numberLong"];
        const text = readProperty(read.object, "$numberLong");
        if (typeof text === "string" && NUMBER_LONG.test(text)) {
          const ms = Number(text);
          if (ms >= MIN_ISO_EPOCH_MS && ms <= MAX_ISO_EPOCH_MS)
            return { type: "date", value: ms === 0 ? 0 : ms };
        }
        this.issue({ code: "invalid_date", found: safeFound(text) }, longPath);
        return undefined;
      }
    }
    this.issue({ code: "invalid_date", found: foundOf(read) }, datePath);
    return undefined;
  }

  /**
   * Reads an operand: a string, finite number, boolean, null or `$date` object. Limits and bad dates are
   * reported here; other non-operands are returned for the caller to report in its own terms.
   */
  readOperand(value: unknown, path: readonly PathSegment[], depth: number): OperandRead {
    const read = readValue(value);
    switch (read.kind) {
      case "string":
        if (read.value.length > this.options.limits.stringLength) {
          this.limit("stringLength", path, read.value.length);
          return { ok: false, found: read.value, reported: true };
        }
        return { ok: true, operand: { type: "string", value: read.value }, raw: read.value };
      case "number":
      case "boolean":
      case "null":
        return { ok: true, operand: scalarOperand(read), raw: value };
      case "object": {
        if (read.keys.length === 1 && read.keys[0] === "$date") {
          if (!this.enter(depth, path)) return { ok: false, found: OBJECT_STAND_IN, reported: true };
          const operand = this.parseDateObject(read.object, path, depth);
          return operand === undefined
            ? { ok: false, found: OBJECT_STAND_IN, reported: true }
            : { ok: true, operand, raw: OBJECT_STAND_IN };
        }
        if (!this.enter(depth, path)) return { ok: false, found: OBJECT_STAND_IN, reported: true };
        const keys = this.allowedKeys(read.keys, path);
        return { ok: false, found: OBJECT_STAND_IN, reported: keys.length !== read.keys.length };
      }
      case "array":
      case "invalid":
        return { ok: false, found: foundOf(read), reported: false };
      default:
        return assertNever(read);
    }
  }

  /**
   * Checks an operand against the field's kind (1.4, 1.6). `value` context: equality, `$ne`, `$in`, `$nin`,
   * `$all`, pipe alternatives (null allowed everywhere, labels checked). `ordered` context: `$gt`, `$gte`,
   * `$lt`, `$lte` (strings on text and enum fields, dates on date fields, any scalar on open fields; no label check).
   */
  checkOperand(
    field: Field,
    operand: Operand,
    raw: unknown,
    context: "value" | "ordered",
    path: readonly PathSegment[],
  ): boolean {
    const found = safeFound(raw);
    const nullAllowed = context === "value";
    switch (field.kind) {
      case "date":
        if (operand.type === "date" || (nullAllowed && operand.type === "null")) return true;
        this.issue({ code: "date_operand_required", field: field.name, found }, path);
        return false;
      case "text":
      case "enum": {
        if (operand.type === "null" && nullAllowed) return true;
        if (operand.type !== "string") {
          this.issue(
            {
              code: "operand_type",
              field: field.name,
              fieldKind: field.kind,
              expected: "a string",
              found,
            },
            path,
          );
          return false;
        }
        if (context === "ordered" || field.labels === undefined || field.labels.includes(operand.value)) {
          return true;
        }
        const suggestion = suggestLabel(operand.value, field.labels);
        this.issue(
          suggestion === undefined
            ? { code: "unknown_label", field: field.name, label: operand.value, labels: field.labels }
            : {
                code: "unknown_label",
                field: field.name,
                label: operand.value,
                labels: field.labels,
                suggestion,
              },
          path,
        );
        return false;
      }
      case "open":
        // Any scalar, under MongoDB's type bracketing (docs/semantics.md 1.4).
        return true;
      default:
        return assertNever(field.kind);
    }
  }
}

/** The `eq` node of an operand on a field. */
export function eqNode(field: Field, operand: Operand): FieldNode {
  return { kind: "eq", path: [...field.segments], fieldKind: field.kind, operand };
}

/** Operands in first-seen order without duplicates (same type and value). */
export class OperandSet {
  readonly list: Operand[] = [];
  private readonly strings = new Set<string>();
  private readonly numbers = new Set<number>();
  private readonly dates = new Set<number>();
  private readonly others = new Set<string>();

  add(operand: Operand): void {
    const seen = this.seenOf(operand);
    if (seen === undefined) return;
    this.list.push(operand);
  }

  /** Records the operand; undefined when it was already there. */
  private seenOf(operand: Operand): true | undefined {
    switch (operand.type) {
      case "string":
        return addNew(this.strings, operand.value);
      case "number":
        return addNew(this.numbers, operand.value);
      case "date":
        return addNew(this.dates, operand.value);
      case "boolean":
        return addNew(this.others, String(operand.value));
      case "null":
        return addNew(this.others, "null");
      default:
        return assertNever(operand);
    }
  }
}

function addNew<T>(set: Set<T>, value: T): true | undefined {
  if (set.has(value)) return undefined;
  set.add(value);
  return true;
}

/**
 * What one operator of an operator object contributed, in key order: a node, a range whose bounds are still
 * being grouped (it stands at its first bound), or a `$regex` pattern waiting for the object's `$options`.
 */
export type Slot =
  | FieldOperatorNode
  | { readonly range: GroupedRange }
  | { readonly regex: string; readonly path: readonly PathSegment[] };

/** An operator object being read (`parseOperatorObject`). */
export interface OperatorObject {
  readonly field: Field;
  readonly slots: Slot[];
  /** The parser's range-grouping rule (operators.ts), fed the ordered operators in key order. */
  readonly ranges: RangeGrouping;
  /** A `$regex` key was seen (valid or not): `$options` is then not reported as alone. */
  sawRegex: boolean;
  /** The valid `$options` of the object, sorted. */
  flags: { readonly value: string; readonly path: readonly PathSegment[] } | undefined;
}
