/**
 * Search Conditions JSON → AST (docs/semantics.md 1.1–1.8). The input is untrusted: it is read through own data
 * properties only (no getter is ever invoked, nothing inherited is seen), every limit of 1.7 is checked
 * before descending, and every problem is collected as an issue. The only exception that leaves this module
 * is `SearchConditionsError` (from `parseSearchConditions`).
 *
 * Operators are dispatched through the operator table (operators.ts). Regular expressions are only
 * parsed and measured here, never compiled (regex/matcher.ts, regex/program.ts: the program budget of 1.7);
 * evaluation compiles them elsewhere.
 */
import {
  assertNever,
  type Condition,
  type FieldAndNode,
  type FieldKind,
  type FieldNode,
  type FieldOperatorNode,
  type JsonType,
  type NotNode,
  type Operand,
  type RangeNode,
} from "./ast.js";
import { fieldKindOf, isAlternativeField, isForbiddenSegment, labelsOf, nearMissField } from "./catalog.js";
import { MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS, parseIsoUtc } from "./dates.js";
import {
  describeValue,
  type Issue,
  type IssueDetail,
  type LimitName,
  makeIssue,
  type PathSegment,
  SearchConditionsError,
} from "./issues.js";
import {
  type FieldOperatorSpec,
  fieldOperator,
  type GroupedRange,
  type LogicalOperatorSpec,
  logicalOperator,
  NON_JSON_TYPES,
  type OperatorPlace,
  operatorsAt,
  RangeGrouping,
  TYPE_CODES,
  TYPE_NAMES,
} from "./operators.js";
import type { ParseOptions, ResolvedParseOptions } from "./options.js";
import { resolveParseOptions } from "./options.js";
import { measurePattern, unsupportedRegexFeature } from "./regex/matcher.js";

/** The result of `safeParseSearchConditions`: the condition, or every issue found (never an empty list). */
export type SafeParseResult =
  | { readonly success: true; readonly condition: Condition }
  | { readonly success: false; readonly issues: [Issue, ...Issue[]] };

/**
 * Parses untrusted Search Conditions JSON into a condition (docs/semantics.md 1.1–1.8).
 *
 * - An object is the AND of its entries (`{}` is `{ kind: "and", children: [] }`, every incident); an
 *   object with one entry is that entry's node itself.
 * - A non-empty array of objects is the OR of them (`{ kind: "or" }`, even with one element).
 * - Keys are field paths or `$and`/`$or`/`$nor`; values are the forms of 1.2 and operator objects of 1.3.
 *
 * @param input - raw JSON (any value: never crashes, never invokes a getter, never pollutes a prototype)
 * @param options - the field catalogue (default `DEFAULT_CATALOG`) and limits to override (1.7)
 * @returns the condition: plain data (two parses of the same input are deeply equal), frozen, and known to
 *   `isParsedCondition`: the only kind of condition that `compile`, `evaluate`, `toMongoFilter` and the
 *   other functions taking a `Condition` accept (docs/semantics.md 1.1)
 * @throws {SearchConditionsError} when the input is invalid; `.issues` lists every problem found, each with
 *   its path from the root (`["CreatedUtcTime", "$gt", "$date"]`)
 * @throws {TypeError | RangeError} when `options.limits` is not a valid set of limits (a safe integer ≥ 0
 *   each, `depth` from 1 to 256: docs/semantics.md 1.7, "Raising a limit"), before the input is read
 * @example parseSearchConditions({ Severity: { $in: ["High"] } })
 * //=> { kind: "in", path: ["Severity"], fieldKind: "enum", operands: [{ type: "string", value: "High" }], fromPipe: false }
 */
export function parseSearchConditions(input: unknown, options?: ParseOptions): Condition {
  const result = safeParseSearchConditions(input, options);
  if (!result.success) throw new SearchConditionsError(result.issues);
  return result.condition;
}

/**
 * Like `parseSearchConditions`, but returns the issues instead of throwing (docs/semantics.md 1.8).
 * @param input - raw JSON (any value)
 * @param options - catalogue and limits
 * @returns `{ success: true, condition }` or `{ success: false, issues }` with at least one issue
 * @throws {TypeError | RangeError} only for invalid `options.limits` (docs/semantics.md 1.7, "Raising a
 *   limit"); never for any input
 */
export function safeParseSearchConditions(input: unknown, options?: ParseOptions): SafeParseResult {
  const parser = new Parser(resolveParseOptions(options));
  let condition: Condition | undefined;
  try {
    condition = parser.parseRoot(input);
  } catch (error) {
    if (error !== ABORT) parser.unexpected(error);
  }
  const [first, ...rest] = parser.issues;
  if (first !== undefined) return { success: false, issues: [first, ...rest] };
  if (condition === undefined) {
    // Unreachable by construction (every refusal records an issue); kept so that no input can succeed
    // without a condition.
    return {
      success: false,
      issues: [makeIssue({ code: "invalid_type", expected: "Search Conditions", found: undefined }, [])],
    };
  }
  return { success: true, condition: brand(condition) };
}

// ---------------------------------------------------------------------------------------------------
// Parsed conditions (docs/semantics.md 1.1)

/** A base class whose constructor returns its argument, so that a subclass stamps its fields on it. */
class Stamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the return override is how a private brand is stamped on an existing object
    return target;
  }
}

/**
 * Every condition node this module produced carries this class's private field, and only those: nothing
 * outside this module can add or forge it, so no JSON, hand-built object or copy can pass for a parsed
 * condition. (A private field rather than a `WeakSet`: stamping and checking it are property operations the
 * engine caches, with no hash table for the garbage collector to trace.)
 */
class Parsed extends Stamp {
  #parsed = true;
  /** True when `value` carries the brand. */
  static has(value: object): boolean {
    return #parsed in value;
  }
  /** Stamps the brand on a node (before it is frozen). */
  static add(node: object): void {
    new Parsed(node);
  }
}

/**
 * Brands every node of a freshly parsed condition and freezes it with its paths, operands and bounds, so
 * that a branded node is exactly what the parser checked (it stays plain data: two parses are deeply equal).
 * Sub-nodes are branded too: each is a well-formed condition of its own, which the incident set's planner
 * and `compile` receive separately.
 */
function brand(condition: Condition): Condition {
  const stack: Condition[] = [condition];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Parsed.has(node)) continue;
    Parsed.add(node);
    switch (node.kind) {
      case "and":
      case "or":
      case "nor":
        stack.push(...node.children);
        Object.freeze(node.children);
        break;
      case "not":
        stack.push(node.child);
        break;
      case "eq":
      case "ne":
        Object.freeze(node.operand);
        Object.freeze(node.path);
        break;
      case "in":
      case "nin":
      case "all":
        for (const operand of node.operands) Object.freeze(operand);
        Object.freeze(node.operands);
        Object.freeze(node.path);
        break;
      case "range":
        for (const bound of [node.lower, node.upper]) {
          if (bound === undefined) continue;
          Object.freeze(bound.operand);
          Object.freeze(bound);
        }
        Object.freeze(node.path);
        break;
      case "regex":
      case "exists":
      case "size":
      case "mod":
        Object.freeze(node.path);
        break;
      case "type":
        Object.freeze(node.types);
        Object.freeze(node.path);
        break;
      case "elemMatch":
        stack.push(node.match.form === "query" ? node.match.condition : node.match.operators);
        Object.freeze(node.match);
        Object.freeze(node.path);
        break;
      default:
        assertNever(node);
    }
    Object.freeze(node);
  }
  return condition;
}

/**
 * True when `value` is a condition produced by `parseSearchConditions` or `safeParseSearchConditions` (the
 * root or any node inside it). Only such conditions are accepted by `compile`, `evaluate`,
 * `toMongoFilter`, `toMongoFind`, `toSearchConditions`, `explain` and `matchesEverythingByShape`, and used
 * as they are by `IncidentSet`; a hand-built, copied (`structuredClone`, spread) or JSON round-tripped
 * condition is not one, however it is shaped (docs/semantics.md 1.1). Parsed conditions are frozen.
 * @param value - anything
 * @returns true for a parsed condition; never throws
 * @example isParsedCondition(parseSearchConditions({ Title: "x" })) //=> true
 * @example isParsedCondition({ kind: "exists", path: ["Title"], fieldKind: "text", exists: true }) //=> false
 */
export function isParsedCondition(value: unknown): value is Condition {
  return typeof value === "object" && value !== null && Parsed.has(value);
}

/**
 * Throws unless `value` is a parsed condition (the check of every public function that takes a Condition).
 * @param value - what the caller was given
 * @param caller - the public function's name, for the message
 * @throws {TypeError} `compile expects a condition from parseSearchConditions, found an object the parser
 *   did not produce: call parseSearchConditions(searchConditions) and pass its result.` (the found part
 *   describes the value; raw Search Conditions JSON, hand-built nodes and copies all land here)
 */
export function requireParsedCondition(value: unknown, caller: string): asserts value is Condition {
  if (isParsedCondition(value)) return;
  const found =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? "an object the parser did not produce"
      : describeValue(value);
  throw new TypeError(
    `${caller} expects a condition from parseSearchConditions, found ${found}: call parseSearchConditions(searchConditions) and pass its result (raw JSON, hand-built, copied or deserialised conditions are not accepted).`,
  );
}

// ---------------------------------------------------------------------------------------------------
// Reading untrusted values

/** What a value is, read without invoking user code other than Proxy traps (which are caught). */
type Read =
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "null" }
  | { readonly kind: "array"; readonly array: object; readonly length: number }
  | { readonly kind: "object"; readonly object: object; readonly keys: readonly string[] }
  /** Not JSON: undefined, a function, a symbol, a bigint, NaN/Infinity, a class instance, an unreadable proxy. */
  | { readonly kind: "invalid"; readonly found: unknown };

const UNREADABLE: unique symbol = Symbol("unreadable");
const OBJECT_STAND_IN = Object.freeze({});
const DATE_STAND_IN = new Date(Number.NaN);
const FUNCTION_STAND_IN = (): void => {};

/**
 * A value that `describeValue` can describe without touching user code: primitives as they are, objects
 * replaced by inert stand-ins of the same description ("an object", "an array", "a Date", "a function").
 */
function safeFound(value: unknown): unknown {
  if (value === UNREADABLE) return undefined;
  if (typeof value === "function") return FUNCTION_STAND_IN;
  if (typeof value !== "object" || value === null) return value;
  try {
    if (Array.isArray(value)) return value.length === 0 ? [] : [null];
    if (value instanceof Date) return dateStandIn(value);
  } catch {
    // an unreadable proxy: described as an object
  }
  return OBJECT_STAND_IN;
}

const getTime = Date.prototype.getTime;

/**
 * A fresh Date with the time of a genuine Date (read through the intrinsic `getTime`, never the object's
 * own methods), so that the issue can suggest the `$date` operand to write; an invalid Date for an object
 * that only claims to be a Date (`Object.create(Date.prototype)`, a proxy).
 */
function dateStandIn(value: Date): Date {
  try {
    return new Date(getTime.call(value));
  } catch {
    return DATE_STAND_IN;
  }
}

function isPlainPrototype(proto: unknown): boolean {
  // Object.prototype of this realm or another one (whose own prototype is null), or no prototype at all.
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

function readValue(value: unknown): Read {
  switch (typeof value) {
    case "string":
      return { kind: "string", value };
    case "number":
      // -0 is read as 0: the two are equal for every operator, and JSON cannot print the difference.
      return Number.isFinite(value) ? { kind: "number", value: value === 0 ? 0 : value } : invalid(value);
    case "boolean":
      return { kind: "boolean", value };
    case "object": {
      if (value === null) return { kind: "null" };
      try {
        if (Array.isArray(value)) {
          const length: unknown = value.length;
          return typeof length === "number" ? { kind: "array", array: value, length } : invalid(value);
        }
        if (!isPlainPrototype(Object.getPrototypeOf(value))) return invalid(value);
        return { kind: "object", object: value, keys: Object.keys(value) };
      } catch {
        return invalid(value);
      }
    }
    default:
      return invalid(value);
  }
}

function invalid(value: unknown): Read {
  return { kind: "invalid", found: safeFound(value) };
}

/** An own data property's value, or `UNREADABLE` (missing, an accessor, or a throwing proxy trap). */
function readProperty(object: object, key: string | number): unknown {
  try {
    const descriptor = Object.getOwnPropertyDescriptor(object, key);
    return descriptor !== undefined && "value" in descriptor ? descriptor.value : UNREADABLE;
  } catch {
    return UNREADABLE;
  }
}

// ---------------------------------------------------------------------------------------------------
// The parser

/** Thrown internally when the node limit is reached: parsing stops, the issues so far are returned. */
const ABORT: unique symbol = Symbol("abort");

/** A catalogued (or open) field as the parser sees it. */
interface Field {
  /** The dotted field path as written. */
  readonly name: string;
  readonly segments: readonly string[];
  readonly kind: FieldKind;
  readonly labels: readonly string[] | undefined;
  readonly alternative: boolean;
}

/** An operand read from the input, or why not. */
type OperandRead =
  | { readonly ok: true; readonly operand: Operand; readonly raw: unknown }
  /** Not an operand; `reported` when an issue was already recorded (a bad `$date`, a limit). */
  | { readonly ok: false; readonly found: unknown; readonly reported: boolean };

/** What a date field takes instead of `$regex`. */
const DATE_REGEX_EXPECTED =
  'a {"$date": …} range such as {"$gte": {"$date": "2024-03-01T00:00:00Z"}} instead of $regex';

/**
 * What one operator of an operator object contributed, in key order: a node, a range whose bounds are still
 * being grouped (it stands at its first bound), or a `$regex` pattern waiting for the object's `$options`.
 */
type Slot =
  | FieldOperatorNode
  | { readonly range: GroupedRange }
  | { readonly regex: string; readonly path: readonly PathSegment[] };

/** An operator object being read (`parseOperatorObject`). */
interface OperatorObjectState {
  readonly field: Field;
  readonly slots: Slot[];
  /** The parser's range-grouping rule (operators.ts), fed the ordered operators in key order. */
  readonly ranges: RangeGrouping;
  /** A `$regex` key was seen (valid or not): `$options` is then not reported as alone. */
  sawRegex: boolean;
  /** The valid `$options` of the object, sorted. */
  flags: { readonly value: string; readonly path: readonly PathSegment[] } | undefined;
}

const OPERAND_EXPECTED = 'a string, number, boolean, null or {"$date": …} operand';
const ORDERED_EXPECTED = 'a string, number, boolean, null or {"$date": …} operand';
const NUMBER_LONG = /^-?\d{1,16}$/;
/** 2^63: `$mod` operands must be integers of magnitude below it once truncated (MongoDB's 64-bit integers). */
const TWO_63 = 2 ** 63;

/**
 * The `$type`s a catalogue field of each kind can hold (1.3): text and enumerated fields hold strings (or
 * `null`, or arrays of them), date fields dates (JS `Date`s or ISO-8601 strings, 1.5); open fields any.
 */
const TYPES_OF_KIND: Readonly<Record<FieldKind, readonly JsonType[] | undefined>> = Object.freeze({
  text: ["string", "null", "array"],
  enum: ["string", "null", "array"],
  date: ["date", "null", "array"],
  open: undefined,
});

class Parser {
  readonly issues: Issue[] = [];
  private nodes = 0;
  /** The size of the `$regex` programs measured so far in this condition (1.7). */
  private programTotal = 0;

  constructor(private readonly options: ResolvedParseOptions) {}

  /** Records an issue. */
  private issue(detail: IssueDetail, path: readonly PathSegment[]): void {
    this.issues.push(makeIssue(detail, path));
  }

  private limit(limit: LimitName, path: readonly PathSegment[], found?: number): void {
    const max = this.options.limits[limit];
    this.issue(
      found === undefined
        ? { code: "limit_exceeded", limit, max }
        : { code: "limit_exceeded", limit, max, found },
      path,
    );
  }

  /** Counts one node (docs/semantics.md 1.7); past the limit, records the issue and stops parsing. */
  private count(path: readonly PathSegment[]): void {
    this.nodes += 1;
    if (this.nodes > this.options.limits.nodes) {
      this.limit("nodes", path);
      throw ABORT;
    }
  }

  /** Checks the depth of a container before reading inside it; false (with an issue) when too deep. */
  private enter(depth: number, path: readonly PathSegment[]): boolean {
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
  private allowedKeys(keys: readonly string[], path: readonly PathSegment[]): string[] {
    const allowed: string[] = [];
    for (const key of keys) {
      if (isForbiddenSegment(key)) this.issue({ code: "forbidden_key", key }, [...path, key]);
      else allowed.push(key);
    }
    return allowed;
  }

  /** Keys longer than the string limit are refused before they reach a message (1.7). */
  private keyTooLong(key: string, path: readonly PathSegment[]): boolean {
    if (key.length <= this.options.limits.stringLength) return false;
    this.limit("stringLength", path, key.length);
    return true;
  }

  parseRoot(input: unknown): Condition | undefined {
    this.count([]);
    const read = readValue(input);
    if (read.kind === "object") return this.parseConditionObject(read, [], 1);
    if (read.kind === "array") {
      if (!this.enter(1, [])) return undefined;
      if (read.length === 0) {
        this.issue({ code: "empty_array", what: "Search Conditions (an array of condition objects)" }, []);
        return undefined;
      }
      const children = this.parseConditionArray(read, [], 1, "");
      return children && { kind: "or", children };
    }
    this.issue(
      {
        code: "invalid_type",
        expected: "a JSON object or an array of condition objects",
        found: foundOf(read),
      },
      [],
    );
    return undefined;
  }

  /** The elements of `$and`/`$or`/`$nor` or of a top-level array: condition objects. */
  private parseConditionArray(
    read: Extract<Read, { kind: "array" }>,
    path: readonly PathSegment[],
    depth: number,
    prefix: string,
  ): Condition[] | undefined {
    const children: Condition[] = [];
    let failed = false;
    for (let index = 0; index < read.length; index++) {
      const elementPath = [...path, index];
      this.count(elementPath);
      const element = readValue(readProperty(read.array, index));
      if (element.kind !== "object") {
        this.issue(
          { code: "invalid_type", expected: "a condition object", found: foundOf(element) },
          elementPath,
        );
        failed = true;
        continue;
      }
      const child = this.parseConditionObject(element, elementPath, depth + 1, prefix);
      if (child === undefined) failed = true;
      else children.push(child);
    }
    return failed ? undefined : children;
  }

  /**
   * A condition object: the AND of its entries (field paths and logical operators). `prefix` is the dotted
   * path of the `$elemMatch` whose elements the object is about (`""` at the root): its field paths are
   * relative to the element, their kinds those of the catalogue's fields at `prefix.path` (1.3).
   */
  private parseConditionObject(
    read: Extract<Read, { kind: "object" }>,
    path: readonly PathSegment[],
    depth: number,
    prefix = "",
  ): Condition | undefined {
    if (!this.enter(depth, path)) return undefined;
    const children: Condition[] = [];
    for (const key of read.keys) {
      const keyPath = [...path, key];
      if (this.keyTooLong(key, keyPath)) continue;
      this.count(keyPath);
      const value = readProperty(read.object, key);
      let child: Condition | undefined;
      if (key.startsWith("$")) {
        const operator = logicalOperator(key);
        if (operator.ok) child = this.parseLogical(operator.spec, value, keyPath, depth + 1, prefix);
        else this.refuseOperator(key, "condition", operator.problem, keyPath);
      } else {
        child = this.parseFieldEntry(key, value, keyPath, depth + 1, prefix);
      }
      if (child !== undefined) children.push(child);
    }
    return children.length === 1 ? children[0] : { kind: "and", children };
  }

  /** `$and`, `$or`, `$nor`: a non-empty array of condition objects (1.1). */
  private parseLogical(
    spec: LogicalOperatorSpec,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
    prefix: string,
  ): Condition | undefined {
    const read = readValue(value);
    if (read.kind !== "array") {
      this.issue(
        {
          code: "invalid_type",
          expected: `a non-empty array of condition objects for ${spec.name}`,
          found: foundOf(read),
        },
        path,
      );
      return undefined;
    }
    if (!this.enter(depth, path)) return undefined;
    if (read.length === 0) {
      this.issue({ code: "empty_array", what: spec.name }, path);
      return undefined;
    }
    const children = this.parseConditionArray(read, path, depth, prefix);
    if (children === undefined) return undefined;
    return { kind: spec.node, children };
  }

  /** A field path key (1.1) and its value. */
  private parseFieldEntry(
    key: string,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
    prefix: string,
  ): Condition | undefined {
    const segments = key.split(".");
    let valid = true;
    if (segments.some((segment) => segment === "" || segment.startsWith("$"))) {
      this.issue({ code: "invalid_field_path", field: key }, path);
      valid = false;
    }
    for (const segment of new Set(segments)) {
      if (isForbiddenSegment(segment)) {
        this.issue({ code: "forbidden_key", key: segment }, path);
        valid = false;
      }
    }
    if (!valid) return undefined;
    const { catalog } = this.options;
    // Inside an `$elemMatch`, the catalogue field is the one at the whole path (1.3).
    const name = prefix === "" ? key : `${prefix}.${key}`;
    if (!Object.hasOwn(catalog.fields, name) && !this.knownField(name, path)) return undefined;
    const field: Field = {
      name,
      segments,
      kind: fieldKindOf(catalog, name),
      labels: labelsOf(catalog, name),
      alternative: isAlternativeField(catalog, name),
    };
    return this.parseFieldValue(field, value, path, depth);
  }

  /**
   * For a key outside the catalogue: false (with an `unknown_field` issue) when it is a near miss of a
   * catalogue field (same name once case, spaces, `_` and `-` are ignored), or when the catalogue is strict
   * (the nearest field suggested); true for an open field (docs/semantics.md 1.1).
   */
  private knownField(key: string, path: readonly PathSegment[]): boolean {
    const { catalog } = this.options;
    const nearMiss = nearMissField(catalog, key);
    if (nearMiss !== undefined) {
      this.issue({ code: "unknown_field", field: key, reason: "near_miss", suggestion: nearMiss }, path);
      return false;
    }
    if (catalog.strictFields !== true) return true;
    const suggestion = suggestLabel(key, Object.keys(catalog.fields));
    this.issue(
      suggestion === undefined
        ? { code: "unknown_field", field: key, reason: "strict" }
        : { code: "unknown_field", field: key, reason: "strict", suggestion },
      path,
    );
    return false;
  }

  /** A field's direct value: a value form of 1.2 or an operator object of 1.3. */
  private parseFieldValue(
    field: Field,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): Condition | undefined {
    const read = readValue(value);
    switch (read.kind) {
      case "string":
        return this.parseDirectString(field, read.value, path);
      case "number":
      case "boolean":
      case "null": {
        const operand = scalarOperand(read);
        return this.checkOperand(field, operand, value, "value", path) ? eqNode(field, operand) : undefined;
      }
      case "array":
        this.issue({ code: "array_value", field: field.name }, path);
        return undefined;
      case "invalid":
        this.issue(
          {
            code: "invalid_type",
            expected: `${OPERAND_EXPECTED.replace(" operand", "")} or an operator object`,
            found: read.found,
          },
          path,
        );
        return undefined;
      case "object": {
        if (!this.enter(depth, path)) return undefined;
        const keys = this.allowedKeys(read.keys, path);
        const operatorKeys = keys.filter((key) => key.startsWith("$"));
        const plainKeys = keys.filter((key) => !key.startsWith("$"));
        if (operatorKeys.length > 0 && plainKeys.length > 0) {
          this.issue({ code: "mixed_operator_object", operatorKeys, plainKeys }, path);
          return undefined;
        }
        if (plainKeys.length > 0 || read.keys.length === 0) {
          this.issue({ code: "object_value", field: field.name }, path);
          return undefined;
        }
        if (operatorKeys.length === 0) return undefined; // only forbidden keys, already reported
        if (operatorKeys.length === 1 && operatorKeys[0] === "$date") {
          const operand = this.parseDateObject(read.object, path, depth);
          if (operand === undefined) return undefined;
          return this.checkOperand(field, operand, read.object, "value", path)
            ? eqNode(field, operand)
            : undefined;
        }
        return this.parseOperatorObject(field, read.object, operatorKeys, path, depth, "field");
      }
      default:
        return assertNever(read);
    }
  }

  /** A plain string on a field: equality, or pipe alternatives on an alternative field (1.2). */
  private parseDirectString(field: Field, text: string, path: readonly PathSegment[]): Condition | undefined {
    if (text.length > this.options.limits.stringLength) {
      this.limit("stringLength", path, text.length);
      return undefined;
    }
    if (!(field.alternative && text.includes("|"))) {
      const operand: Operand = { type: "string", value: text };
      return this.checkOperand(field, operand, text, "value", path) ? eqNode(field, operand) : undefined;
    }
    const alternatives = text.split("|").map((alternative) => alternative.trim());
    if (alternatives.includes("")) {
      this.issue({ code: "empty_alternative", field: field.name, value: text }, path);
      return undefined;
    }
    const operands = new OperandSet();
    let valid = true;
    for (const alternative of alternatives) {
      const operand: Operand = { type: "string", value: alternative };
      if (this.checkOperand(field, operand, alternative, "value", path)) operands.add(operand);
      else valid = false;
    }
    return valid
      ? {
          kind: "in",
          path: [...field.segments],
          fieldKind: field.kind,
          operands: operands.list,
          fromPipe: true,
        }
      : undefined;
  }

  /** `{"$date": "…"}` or `{"$date": {"$numberLong": "…"}}` (1.4); the object is already known to hold only `$date`. */
  private parseDateObject(object: object, path: readonly PathSegment[], depth: number): Operand | undefined {
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
  private readOperand(value: unknown, path: readonly PathSegment[], depth: number): OperandRead {
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
  private checkOperand(
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

  /**
   * An operator object (1.3) at `place` (a field's value, or the value of `$not`): each key is looked up in
   * the operator table and read by its operand rule (`readOperator`); the nodes keep the keys' order, ranges
   * grouped by `RangeGrouping`, `$options` joined to its `$regex`. Its node, or the `and` of its nodes.
   */
  private parseOperatorObject(
    field: Field,
    object: object,
    keys: readonly string[],
    path: readonly PathSegment[],
    depth: number,
    place: "field" | "not",
  ): FieldOperatorNode | FieldAndNode | undefined {
    const state: OperatorObjectState = {
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
      if (!operator.ok || !this.readOperator(state, operator.spec, value, keyPath, depth)) valid = false;
    }
    if (!this.checkRegexes(state)) valid = false;
    const [first, second, ...rest] = state.slots.map((slot) => completeSlot(state, slot));
    if (!valid || first === undefined) return undefined; // `first` is there whenever `valid`: keys is not empty
    return second === undefined ? first : { kind: "and", children: [first, second, ...rest] };
  }

  /** Records why an operator may not stand where it is (`unknown_operator` or `misplaced_operator`, 1.3). */
  private refuseOperator(
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

  /** Reads one operator of an operator object by its operand rule; false when it was refused (issues recorded). */
  private readOperator(
    state: OperatorObjectState,
    spec: FieldOperatorSpec,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    switch (spec.operand) {
      case "value":
        return this.readComparison(state, spec, value, path, depth);
      case "ordered":
        return this.readBound(state, spec, value, path, depth);
      case "valueSet":
        return this.readValueSet(state, spec, value, path, depth);
      case "pattern":
        return this.readPattern(state, value, path);
      case "flags":
        return this.readFlags(state, value, path);
      case "boolean":
        return this.readExists(state, spec, value, path);
      case "size":
        return this.readSize(state, value, path);
      case "operatorObject":
        return this.readNot(state, value, path, depth);
      case "typeSet":
        return this.readType(state, value, path, depth);
      case "modulus":
        return this.readMod(state, value, path);
      case "elemMatch":
        return this.readElemMatch(state, value, path, depth);
      default:
        return assertNever(spec);
    }
  }

  /** `$eq`, `$ne`: one operand, checked against the field's kind and labels (1.4). */
  private readComparison(
    state: OperatorObjectState,
    spec: Extract<FieldOperatorSpec, { operand: "value" }>,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    const { field } = state;
    const read = this.readOperand(value, path, depth + 1);
    if (!read.ok) {
      if (!read.reported) {
        this.issue(
          { code: "invalid_type", expected: `${OPERAND_EXPECTED} for ${spec.name}`, found: read.found },
          path,
        );
      }
      return false;
    }
    if (!this.checkOperand(field, read.operand, read.raw, "value", path)) return false;
    state.slots.push({
      kind: spec.node,
      path: [...field.segments],
      fieldKind: field.kind,
      operand: read.operand,
    });
    return true;
  }

  /** `$gt`, `$gte`, `$lt`, `$lte`: one bound of a range, grouped by `RangeGrouping` (1.3, 1.4). */
  private readBound(
    state: OperatorObjectState,
    spec: Extract<FieldOperatorSpec, { operand: "ordered" }>,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    const read = this.readOperand(value, path, depth + 1);
    if (!read.ok) {
      if (!read.reported) {
        this.issue(
          { code: "invalid_type", expected: `${ORDERED_EXPECTED} for ${spec.name}`, found: read.found },
          path,
        );
      }
      return false;
    }
    const { operand } = read;
    if (!this.checkOperand(state.field, operand, read.raw, "ordered", path)) return false;
    const started = state.ranges.add(spec.bound.side, { operand, inclusive: spec.bound.inclusive });
    if (started !== undefined) state.slots.push({ range: started });
    return true;
  }

  /** `$in`, `$nin`, `$all`: a set of operands (`parseValueSet`). */
  private readValueSet(
    state: OperatorObjectState,
    spec: Extract<FieldOperatorSpec, { operand: "valueSet" }>,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    const { field } = state;
    const operands = this.parseValueSet(field, spec.name, value, path, depth + 1);
    if (operands === undefined) return false;
    const base = { path: [...field.segments], fieldKind: field.kind, operands };
    state.slots.push(
      spec.node === "in" ? { kind: spec.node, ...base, fromPipe: false } : { kind: spec.node, ...base },
    );
    return true;
  }

  /** `$regex`: a pattern, measured once the flags of the object are known (`checkRegexes`). */
  private readPattern(state: OperatorObjectState, value: unknown, path: readonly PathSegment[]): boolean {
    state.sawRegex = true;
    const { field } = state;
    if (field.kind === "date") {
      // Whether an ISO string or a BSON/JS date is stored would decide the answer: refused (README).
      this.issue(
        {
          code: "operand_type",
          field: field.name,
          fieldKind: field.kind,
          expected: DATE_REGEX_EXPECTED,
          found: value,
        },
        path,
      );
      return false;
    }
    const source = this.parsePattern(value, path);
    if (source === undefined) return false;
    state.slots.push({ regex: source, path });
    return true;
  }

  /** `$options`: flags from `i`, `m`, `s`, each once, kept sorted (1.4). */
  private readFlags(state: OperatorObjectState, value: unknown, path: readonly PathSegment[]): boolean {
    if (typeof value !== "string") {
      this.issue(
        { code: "invalid_type", expected: "a string of regex flags for $options", found: safeFound(value) },
        path,
      );
      return false;
    }
    if (value.length > this.options.limits.stringLength) {
      this.limit("stringLength", path, value.length);
      return false;
    }
    const reason = flagsProblem(value);
    if (reason !== undefined) {
      this.issue({ code: "invalid_regex_options", options: value, reason }, path);
      return false;
    }
    state.flags = { value: [...value].sort().join(""), path };
    return true;
  }

  /**
   * `$exists`: `true`/`false`, or MongoDB's habitual `1`/`0` (docs/semantics.md 1.3). MongoDB reads any other
   * number as its truth value; it is refused here, being more likely a mistake than a meaning.
   */
  private readExists(
    state: OperatorObjectState,
    spec: Extract<FieldOperatorSpec, { operand: "boolean" }>,
    value: unknown,
    path: readonly PathSegment[],
  ): boolean {
    if (typeof value !== "boolean" && value !== 1 && value !== 0) {
      this.issue(
        { code: "invalid_type", expected: `true, false, 1 or 0 for ${spec.name}`, found: safeFound(value) },
        path,
      );
      return false;
    }
    const { field } = state;
    const exists = value === true || value === 1;
    state.slots.push({ kind: spec.node, path: [...field.segments], fieldKind: field.kind, exists });
    return true;
  }

  /** `$size`: a non-negative integer (1.3). */
  private readSize(state: OperatorObjectState, value: unknown, path: readonly PathSegment[]): boolean {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      this.issue({ code: "invalid_size", found: safeFound(value) }, path);
      return false;
    }
    const { field } = state;
    state.slots.push({
      kind: "size",
      path: [...field.segments],
      fieldKind: field.kind,
      size: value === 0 ? 0 : value,
    });
    return true;
  }

  /**
   * `$type` (1.3): a type name or number of `TYPE_NAMES` / `TYPE_CODES`, or a non-empty array of them (at most
   * `setSize`), read as canonical types, de-duplicated in first-seen order. MongoDB's BSON types that no
   * JSON record holds, and unknown names, are `unknown_type` issues. On a text or enumerated field only
   * `string`, `null` and `array` can match; on a date field `date`, `null` and `array`; any other type there
   * is an `operand_type` issue, like an ill-typed operand (1.4).
   */
  private readType(
    state: OperatorObjectState,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    const read = readValue(value);
    const { field } = state;
    const entries: { raw: unknown; path: readonly PathSegment[] }[] = [];
    if (read.kind === "array") {
      if (!this.enter(depth + 1, path)) return false;
      if (read.length > this.options.limits.setSize) {
        this.limit("setSize", path, read.length);
        return false;
      }
      if (read.length === 0) {
        this.issue({ code: "empty_array", what: "$type (type names or numbers)" }, path);
        return false;
      }
      for (let index = 0; index < read.length; index++) {
        entries.push({ raw: readProperty(read.array, index), path: [...path, index] });
      }
    } else entries.push({ raw: value, path });
    const types: JsonType[] = [];
    let valid = true;
    for (const entry of entries) {
      const type = this.typeOperand(entry.raw, entry.path);
      if (type === undefined) {
        valid = false;
        continue;
      }
      const allowed = TYPES_OF_KIND[field.kind];
      if (allowed !== undefined && !allowed.includes(type)) {
        this.issue(
          {
            code: "operand_type",
            field: field.name,
            fieldKind: field.kind,
            expected: `a $type such a field can hold (${allowed.join(", ")})`,
            found: safeFound(entry.raw),
          },
          entry.path,
        );
        valid = false;
        continue;
      }
      if (!types.includes(type)) types.push(type);
    }
    if (!valid) return false;
    state.slots.push({ kind: "type", path: [...field.segments], fieldKind: field.kind, types });
    return true;
  }

  /** One `$type` name or number as its canonical type, or undefined (issue recorded). */
  private typeOperand(raw: unknown, path: readonly PathSegment[]): JsonType | undefined {
    if (typeof raw === "string") {
      if (raw.length > this.options.limits.stringLength) {
        this.limit("stringLength", path, raw.length);
        return undefined;
      }
      const type = TYPE_NAMES[raw];
      if (type !== undefined) return type;
    } else if (typeof raw === "number") {
      const type = TYPE_CODES.get(raw);
      if (type !== undefined) return type;
    } else {
      this.issue(
        { code: "invalid_type", expected: "a type name or number for $type", found: safeFound(raw) },
        path,
      );
      return undefined;
    }
    const bson = NON_JSON_TYPES.get(raw);
    this.issue(
      bson === undefined
        ? { code: "unknown_type", found: raw, reason: "unknown" }
        : { code: "unknown_type", found: raw, reason: "not_json", bsonType: bson },
      path,
    );
    return undefined;
  }

  /**
   * `$mod` (1.3, MongoDB's rules): `[divisor, remainder]`, exactly two numbers, each finite and truncated
   * towards zero to an integer of magnitude below 2^63 (−2^63 included), the divisor not 0; an `invalid_mod`
   * issue otherwise. On a text, enumerated or date field (which hold no numbers) an `operand_type` issue.
   */
  private readMod(state: OperatorObjectState, value: unknown, path: readonly PathSegment[]): boolean {
    const { field } = state;
    if (field.kind !== "open") {
      this.issue(
        {
          code: "operand_type",
          field: field.name,
          fieldKind: field.kind,
          expected: "an operator for its values ($mod matches numbers only)",
          found: safeFound(value),
        },
        path,
      );
      return false;
    }
    const read = readValue(value);
    if (read.kind !== "array") {
      this.issue(
        { code: "invalid_mod", reason: "expected an array [divisor, remainder]", found: foundOf(read) },
        path,
      );
      return false;
    }
    if (read.length !== 2) {
      this.issue(
        {
          code: "invalid_mod",
          reason: read.length < 2 ? "not enough elements" : "too many elements",
          found: safeFound(value),
        },
        path,
      );
      return false;
    }
    const parts: number[] = [];
    for (const [index, role] of ["divisor", "remainder"].entries()) {
      const raw = readProperty(read.array, index);
      const elementPath = [...path, index];
      if (typeof raw !== "number") {
        this.issue(
          { code: "invalid_mod", reason: `the ${role} must be a number`, found: safeFound(raw) },
          elementPath,
        );
        return false;
      }
      const truncated = Math.trunc(raw);
      if (!Number.isFinite(raw) || truncated < -TWO_63 || truncated >= TWO_63) {
        this.issue(
          {
            code: "invalid_mod",
            reason: `the ${role} must be a finite number whose integer part fits in 64 bits`,
            found: safeFound(raw),
          },
          elementPath,
        );
        return false;
      }
      parts.push(truncated === 0 ? 0 : truncated);
    }
    const [divisor, remainder] = parts as [number, number];
    if (divisor === 0) {
      this.issue({ code: "invalid_mod", reason: "the divisor cannot be 0", found: safeFound(value) }, [
        ...path,
        0,
      ]);
      return false;
    }
    state.slots.push({ kind: "mod", path: [...field.segments], fieldKind: field.kind, divisor, remainder });
    return true;
  }

  /**
   * `$elemMatch` (1.3, MongoDB's two forms): an object whose keys are all field-level operators is the
   * operator form (read as the field's operator object, its operands checked against the field's kind);
   * any other object is the query form, a condition object about each element (field paths relative to it,
   * catalogued at the whole path; `{}` matches every element that is an object or an array). The query
   * form on a text, enumerated or date field (which holds no objects) is an `operand_type` issue. Nested
   * objects count towards the depth and node limits (1.7).
   */
  private readElemMatch(
    state: OperatorObjectState,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    const { field } = state;
    const read = readValue(value);
    if (read.kind !== "object") {
      this.issue(
        {
          code: "invalid_type",
          expected:
            'an object for $elemMatch: a condition on the elements such as {"b": 1}, or operators such as {"$gte": 5}',
          found: foundOf(read),
        },
        path,
      );
      return false;
    }
    const inner = depth + 1;
    if (!this.enter(inner, path)) return false;
    const before = this.issues.length;
    const operatorForm =
      read.keys.length > 0 && read.keys.every((key) => key.startsWith("$") && !logicalOperator(key).ok);
    if (operatorForm) {
      const operators = this.parseOperatorObject(field, read.object, read.keys, path, inner, "field");
      if (operators === undefined || this.issues.length !== before) return false;
      state.slots.push({
        kind: "elemMatch",
        path: [...field.segments],
        fieldKind: field.kind,
        match: { form: "operator", operators },
      });
      return true;
    }
    if (field.kind !== "open") {
      this.issue(
        {
          code: "operand_type",
          field: field.name,
          fieldKind: field.kind,
          expected:
            'the operator form of $elemMatch such as {"$elemMatch": {"$eq": …}} (its elements are no objects)',
          found: OBJECT_STAND_IN,
        },
        path,
      );
      return false;
    }
    const condition = this.parseConditionObject(read, path, inner, field.name);
    if (condition === undefined || this.issues.length !== before) return false;
    state.slots.push({
      kind: "elemMatch",
      path: [...field.segments],
      fieldKind: field.kind,
      match: { form: "query", condition },
    });
    return true;
  }

  /** `$not`: an operator object of its own (`parseNot`). */
  private readNot(
    state: OperatorObjectState,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): boolean {
    const child = this.parseNot(state.field, value, path, depth + 1);
    if (child === undefined) return false;
    state.slots.push(child);
    return true;
  }

  /**
   * After the keys: `$options` needs a `$regex` in the same object, and every pattern is measured with the
   * object's flags (they change a class's ranges under `i`). False when any was refused (issues recorded).
   */
  private checkRegexes(state: OperatorObjectState): boolean {
    let valid = true;
    const { flags } = state;
    if (flags !== undefined && !state.sawRegex) {
      this.issue(
        {
          code: "invalid_regex_options",
          options: flags.value,
          reason: "$options needs a $regex in the same operator object",
        },
        flags.path,
      );
      valid = false;
    }
    for (const slot of state.slots) {
      if ("regex" in slot && !this.checkProgram(slot.regex, flags?.value ?? "", slot.path)) valid = false;
    }
    return valid;
  }

  /** `$in`, `$nin`, `$all`: an array of at most `setSize` operands, de-duplicated in first-seen order. */
  private parseValueSet(
    field: Field,
    operator: string,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): Operand[] | undefined {
    const read = readValue(value);
    if (read.kind !== "array") {
      this.issue(
        { code: "invalid_type", expected: `an array of values for ${operator}`, found: foundOf(read) },
        path,
      );
      return undefined;
    }
    if (!this.enter(depth, path)) return undefined;
    if (read.length > this.options.limits.setSize) {
      this.limit("setSize", path, read.length);
      return undefined;
    }
    const operands = new OperandSet();
    let valid = true;
    const { stringLength } = this.options.limits;
    for (let index = 0; index < read.length; index++) {
      const raw = readProperty(read.array, index);
      // Fast path for the common operands (no allocation of a path): strings within the limit on text and
      // open fields or known labels on enumerated fields, and scalars on open fields.
      if (typeof raw === "string" && raw.length <= stringLength) {
        if (field.kind === "open" || field.kind === "text" || field.labels?.includes(raw) === true) {
          operands.add({ type: "string", value: raw });
          continue;
        }
      } else if (field.kind === "open") {
        if (typeof raw === "number" && Number.isFinite(raw)) {
          operands.add({ type: "number", value: raw === 0 ? 0 : raw });
          continue;
        }
        if (typeof raw === "boolean") {
          operands.add({ type: "boolean", value: raw });
          continue;
        }
        if (raw === null) {
          operands.add({ type: "null" });
          continue;
        }
      }
      const elementPath = [...path, index];
      const element = this.readOperand(raw, elementPath, depth + 1);
      if (!element.ok) {
        if (!element.reported) {
          this.issue({ code: "invalid_type", expected: OPERAND_EXPECTED, found: element.found }, elementPath);
        }
        valid = false;
      } else if (this.checkOperand(field, element.operand, element.raw, "value", elementPath)) {
        operands.add(element.operand);
      } else valid = false;
    }
    return valid ? operands.list : undefined;
  }

  /**
   * A `$regex` pattern in RE2 syntax whose program fits the budgets of 1.7, measured BEFORE anything is
   * compiled (parse only, then count: see regex/program.ts). Each pattern's size is added to the condition's
   * running total; once the total has been exceeded, later patterns are not examined (not even parsed), so
   * refusing the largest input costs at most a few pattern parses.
   * @returns true when the pattern is valid and fits
   */
  private checkProgram(source: string, flags: string, path: readonly PathSegment[]): boolean {
    const { regexProgramSize, regexProgramTotal } = this.options.limits;
    if (this.programTotal > regexProgramTotal) return false;
    const limit = Math.min(regexProgramSize, regexProgramTotal - this.programTotal);
    const measure = measurePattern(source, flags, limit);
    if (!measure.ok) {
      const reason = measure.reason.length > 200 ? `${measure.reason.slice(0, 200)}…` : measure.reason;
      const unsupported = unsupportedRegexFeature(measure.reason);
      this.issue(
        unsupported === undefined
          ? { code: "invalid_regex", pattern: source, reason }
          : { code: "invalid_regex", pattern: source, reason, unsupported },
        path,
      );
      return false;
    }
    this.programTotal += measure.size;
    if (measure.size > regexProgramSize) {
      this.issue(
        measure.partial === true
          ? {
              code: "regex_program_too_large",
              pattern: source,
              max: regexProgramSize,
              found: measure.size,
              atLeast: true,
            }
          : { code: "regex_program_too_large", pattern: source, max: regexProgramSize, found: measure.size },
        path,
      );
      return false;
    }
    if (this.programTotal > regexProgramTotal) {
      this.issue(
        { code: "regex_programs_too_large", max: regexProgramTotal, found: this.programTotal },
        path,
      );
      return false;
    }
    return true;
  }

  /** A `$regex` pattern: a string of at most `patternLength` characters (1.4); measured by `checkProgram`. */
  private parsePattern(value: unknown, path: readonly PathSegment[]): string | undefined {
    if (typeof value !== "string") {
      this.issue(
        { code: "invalid_type", expected: "a pattern string for $regex", found: safeFound(value) },
        path,
      );
      return undefined;
    }
    if (value.length > this.options.limits.patternLength) {
      this.limit("patternLength", path, value.length);
      return undefined;
    }
    return value;
  }

  /** `$not`: a non-empty operator object of field operators (or a `$regex` object), never a logical one. */
  private parseNot(
    field: Field,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): NotNode | undefined {
    const read = readValue(value);
    const expected = 'an operator object for $not, such as {"$regex": "…"}';
    if (read.kind !== "object") {
      this.issue({ code: "invalid_type", expected, found: foundOf(read) }, path);
      return undefined;
    }
    if (!this.enter(depth, path)) return undefined;
    const keys = this.allowedKeys(read.keys, path);
    const operatorKeys = keys.filter((key) => key.startsWith("$"));
    const plainKeys = keys.filter((key) => !key.startsWith("$"));
    if (operatorKeys.length > 0 && plainKeys.length > 0) {
      this.issue({ code: "mixed_operator_object", operatorKeys, plainKeys }, path);
      return undefined;
    }
    if (plainKeys.length > 0 || read.keys.length === 0) {
      this.issue({ code: "invalid_type", expected, found: OBJECT_STAND_IN }, path);
      return undefined;
    }
    if (operatorKeys.length === 0) return undefined; // only forbidden keys, already reported
    const child = this.parseOperatorObject(field, read.object, operatorKeys, path, depth, "not");
    return child && { kind: "not", child };
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers

function foundOf(read: Read): unknown {
  switch (read.kind) {
    case "string":
    case "number":
    case "boolean":
      return read.value;
    case "null":
      return null;
    case "array":
      return read.length === 0 ? [] : [null];
    case "object":
      return OBJECT_STAND_IN;
    case "invalid":
      return read.found;
    default:
      return assertNever(read);
  }
}

function scalarOperand(read: Extract<Read, { kind: "number" | "boolean" | "null" }>): Operand {
  return read.kind === "null"
    ? { type: "null" }
    : read.kind === "number"
      ? { type: "number", value: read.value }
      : { type: "boolean", value: read.value };
}

function eqNode(field: Field, operand: Operand): FieldNode {
  return { kind: "eq", path: [...field.segments], fieldKind: field.kind, operand };
}

/** The node of one slot of an operator object, once every key has been read. */
function completeSlot(state: OperatorObjectState, slot: Slot): FieldOperatorNode {
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

/** Operands in first-seen order without duplicates (same type and value). */
class OperandSet {
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

/** Why `$options` is refused, or undefined: flags from `i`, `m`, `s`, each at most once (1.4). */
function flagsProblem(options: string): string | undefined {
  const seen = new Set<string>();
  for (const flag of options) {
    if (flag !== "i" && flag !== "m" && flag !== "s") {
      return `the flag ${JSON.stringify(flag)} is not supported`;
    }
    if (seen.has(flag)) return `the flag '${flag}' appears more than once`;
    seen.add(flag);
  }
  return undefined;
}

/**
 * The label an unknown label most likely meant (docs/semantics.md 1.6), or undefined: a case-insensitive (and
 * space-insensitive) match first, then the only label it is a prefix of (however short: "Hi" → High), then the
 * nearest label within a small edit distance (at most 1 for short inputs, 3 for long ones). Cost: linear in
 * the label's length for labels much longer than every candidate (they are skipped by length).
 * @param label - the unknown label as written
 * @param labels - the field's labels, in catalogue order (ties go to the first)
 * @returns one of `labels`, or undefined when none is near; never throws
 * @example suggestLabel("Webhok", INGESTION_TYPE_LABELS) //=> "Webhook"
 */
export function suggestLabel(label: string, labels: readonly string[]): string | undefined {
  const folded = fold(label);
  if (folded === "") return undefined;
  const same = labels.find((candidate) => fold(candidate) === folded);
  if (same !== undefined) return same;
  // A prefix of exactly one label, however short ("Hi" → High), names it.
  const prefixed = labels.filter((candidate) => fold(candidate).startsWith(folded));
  if (prefixed.length === 1) return prefixed[0];
  const max = Math.min(3, Math.max(1, Math.floor(folded.length / 3)));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const candidate of labels) {
    const target = fold(candidate);
    if (Math.abs(target.length - folded.length) > max) continue;
    const distance = editDistance(folded, target);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function fold(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, "");
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current[j] = value;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
