/**
 * The reference interpreter of Search Conditions: short and obviously right, the yardstick for `compile`,
 * `IncidentSet` and the MongoDB translation (test/conformance). It shares no code with those fast paths.
 * Semantics: docs/semantics.md 1.1 and 1.5, docs/semantics.md.
 *
 * Reading a record (docs/semantics.md 1.1): a field is an own property of its holder, data or accessor; an
 * accessor is read like a data property, at most once per holder and key in one evaluation (reads are
 * remembered); a read that throws, an inherited property and an own property holding `undefined` all
 * count as missing.
 *
 * Walking a field path (MongoDB, docs/semantics.md 1.5): each segment reads the property of an object; on an
 * array it reads the property of every element and, for a numeric segment, also takes the element at that
 * index. Every *place* where the walk reaches nothing is noted as missing: a missing, `null` or scalar
 * holder, an object without the key, an empty array, and each array element that is not an object (a
 * scalar, `null`, a nested array). Nested arrays are never entered. A value reached through an array
 * index by the last segment is compared as a whole (its elements are not traversed). Each value is visited
 * at most once per segment, however many routes reach it (docs/semantics.md 1.7, "The walk of a dotted
 * path"): the walk costs at most the size of the record times the length of the path.
 */

import { RE2JS, RE2JSException } from "re2js";
import type {
  BitTest,
  Condition,
  ElementOperators,
  FieldKind,
  FieldNode,
  JsonType,
  Operand,
  RangeBound,
  RegexNode,
} from "./ast.js";
import { assertNever, isFieldNode } from "./ast.js";
import { parseIsoUtc } from "./dates.js";
import { requireParsedCondition } from "./parse.js";
import { RegexSyntaxError, regexErrorReason } from "./regex/syntax-error.js";

const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The own elements of an array as `evaluate` reads them (docs/semantics.md 1.1): each element read once,
 * accessors included; a hole, or an element that cannot be read, is left out and counted in `holes`.
 */
interface Elements {
  /** The array's length (0 when it cannot be read). */
  readonly length: number;
  /** The readable own elements, in index order. */
  readonly values: readonly unknown[];
  /** The index of each of `values`, ascending. */
  readonly indexes: readonly number[];
  /** True when some index below `length` holds no readable element. */
  readonly holes: boolean;
}

/**
 * Reads records as docs/semantics.md 1.1 says: own properties only (data or accessor), each read at most
 * once per evaluation, never throwing (an unreadable property is missing).
 */
interface Reader {
  /** The own property `key` of a holder, or `undefined`. */
  field(holder: object, key: string): unknown;
  /** The own elements of an array. Linear in the array's length; no per-element allocation. */
  elements(array: readonly unknown[]): Elements;
  /** The `$regex` of a node, compiled by re2js (`PATTERNS`). @throws {RegexSyntaxError} */
  regex(node: RegexNode): RE2JS;
}

/** Arrays longer than this are read through their own property names (a sparse array costs its elements). */
const DENSE_SCAN_LENGTH = 1 << 20;

/** A property that is not there, or cannot be read. */
const ABSENT: unique symbol = Symbol("absent");

function readOwn(holder: object, key: string | number): unknown {
  try {
    return Object.hasOwn(holder, key) ? (holder as Record<string | number, unknown>)[key] : ABSENT;
  } catch {
    return ABSENT;
  }
}

function readElements(array: readonly unknown[]): Elements {
  let length: number;
  try {
    length = array.length;
  } catch {
    return { length: 0, values: [], indexes: [], holes: false };
  }
  const values: unknown[] = [];
  const indexes: number[] = [];
  const take = (index: number) => {
    const value = readOwn(array, index);
    if (value !== ABSENT) {
      values.push(value);
      indexes.push(index);
    }
  };
  if (length <= DENSE_SCAN_LENGTH) {
    for (let index = 0; index < length; index++) take(index);
  } else {
    let names: string[];
    try {
      names = Object.getOwnPropertyNames(array);
    } catch {
      names = [];
    }
    const found: number[] = [];
    for (const name of names) {
      if (!INDEX.test(name)) continue;
      const index = Number(name);
      if (index < length) found.push(index);
    }
    found.sort((a, b) => a - b);
    for (const index of found) take(index);
  }
  return { length, values, indexes, holes: values.length < length };
}

/**
 * A `$regex` compiled by re2js itself (docs/semantics.md 1.4): RE2 syntax, `i`, `m` and `s` as RE2's
 * CASE_INSENSITIVE, MULTILINE and DOTALL, and `test` a search over the value's code points (a lone
 * surrogate is a code point of its own). Patterns past the program budget never get here: the parser
 * refuses them (docs/semantics.md 1.7).
 * @throws {RegexSyntaxError} when RE2 refuses the pattern (a hand-built node; never a parsed one)
 * @throws {TypeError} for a flag other than `i`, `m`, `s` (a hand-built node)
 */
function compileReference(source: string, flags: string): RE2JS {
  let bits = 0;
  for (const flag of flags) {
    if (flag === "i") bits |= RE2JS.CASE_INSENSITIVE;
    else if (flag === "m") bits |= RE2JS.MULTILINE;
    else if (flag === "s") bits |= RE2JS.DOTALL;
    else throw new TypeError(`Unsupported regex flag '${flag}': expected i, m or s.`);
  }
  try {
    return RE2JS.compile(source, bits);
  } catch (error) {
    if (error instanceof RE2JSException) throw new RegexSyntaxError(source, regexErrorReason(error));
    throw error;
  }
}

/**
 * The re2js pattern of each `$regex` node, compiled the first time the node is evaluated and kept as long
 * as the node (a parsed condition is immutable): state of the condition, not a cache shared by
 * conditions. Its size is the condition's (the program budget of docs/semantics.md 1.7), plus what re2js's
 * lazy DFA keeps while matching (at most its default of 8 MiB a pattern).
 */
const PATTERNS = new WeakMap<RegexNode, RE2JS>();

/** A reader that reads each holder's key, and each array's elements, at most once. */
function newReader(): Reader {
  const seen = new Map<object, Map<string, unknown>>();
  const arrays = new Map<object, Elements>();
  const elements = (array: readonly unknown[]): Elements => {
    let read = arrays.get(array);
    if (read === undefined) {
      read = readElements(array);
      arrays.set(array, read);
    }
    return read;
  };
  return {
    elements,
    regex(node) {
      let compiled = PATTERNS.get(node);
      if (compiled === undefined) {
        compiled = compileReference(node.source, node.flags);
        PATTERNS.set(node, compiled);
      }
      return compiled;
    },
    field(holder, key) {
      if (Array.isArray(holder) && INDEX.test(key)) {
        // An element: read with all the others, so that an accessor element is read once.
        const { indexes, values, length } = elements(holder);
        const index = Number(key);
        if (index < length) {
          let low = 0;
          let high = indexes.length - 1;
          while (low <= high) {
            const middle = (low + high) >>> 1;
            const at = indexes[middle]!;
            if (at === index) return values[middle];
            if (at < index) low = middle + 1;
            else high = middle - 1;
          }
          return undefined;
        }
      }
      let keys = seen.get(holder);
      if (keys === undefined) {
        keys = new Map();
        seen.set(holder, keys);
      } else if (keys.has(key)) return keys.get(key);
      const value = readOwn(holder, key);
      const result = value === ABSENT ? undefined : value;
      keys.set(key, result);
      return result;
    },
  };
}

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;
const isRecord = (value: unknown): value is object => isObject(value) && !Array.isArray(value);
/**
 * A value `$elemMatch`'s query form reads as a document (docs/semantics.md 1.3): an object or an array, but
 * not a JS `Date` (valid, invalid or forged), which stands for a BSON date, a scalar.
 */
const isDocument = (value: unknown): value is object => isObject(value) && !(value instanceof Date);

/** A value reached by a field path; `whole` when an array index reached it at the last segment. */
interface Reached {
  readonly value: unknown;
  readonly whole: boolean;
}

/** What a field path reaches: the values, and whether some place reached nothing. */
interface Reach {
  readonly values: readonly Reached[];
  readonly missing: boolean;
}

/**
 * The values one segment of a walk reaches, each object once (docs/semantics.md 1.7, "The walk of a dotted
 * path"): two routes to the same object (a numeric segment both indexes an array and reads the field of its
 * elements) lead to the same values, so the walk visits each value at most once per segment, never once per
 * route. An object reached both whole and not whole is kept in both roles (they are tested differently);
 * scalars are kept as they come (they end the walk).
 */
class ReachedOnce {
  readonly values: Reached[] = [];
  private readonly seen = [new Set<object>(), new Set<object>()];

  add(value: unknown, whole: boolean): void {
    if (isObject(value)) {
      const seen = this.seen[whole ? 1 : 0]!;
      if (seen.has(value)) return;
      seen.add(value);
    }
    this.values.push({ value, whole });
  }
}

/**
 * Walks a field path (see the module comment). `steps` counts the values examined: each reached value and
 * each element of a reached array, once per segment; at most the size of the record times the length of
 * the path (docs/semantics.md 1.7).
 */
function walk(record: unknown, path: readonly string[], read: Reader): Reach & { readonly steps: number } {
  let current: readonly Reached[] = [{ value: isRecord(record) ? record : {}, whole: false }];
  let missing = false;
  let steps = 0;
  path.forEach((segment, i) => {
    const next = new ReachedOnce();
    const take = (holder: object) => {
      const value = read.field(holder, segment);
      if (value === undefined) missing = true;
      else next.add(value, false);
    };
    for (const { value } of current) {
      steps++;
      if (!isObject(value)) missing = true;
      else if (!Array.isArray(value)) take(value);
      else {
        const { values, holes } = read.elements(value);
        if (values.length === 0 || holes) missing = true;
        for (const element of values) {
          steps++;
          if (isRecord(element)) take(element);
          else missing = true;
        }
        // The element at a numeric segment's index: a value, never a missing place of its own.
        const indexed = INDEX.test(segment) ? read.field(value, segment) : undefined;
        if (indexed !== undefined) next.add(indexed, i === path.length - 1);
      }
    }
    current = next.values;
  });
  return { values: current, missing, steps };
}

/**
 * The number of values `evaluate`'s walk of a field path examines in a record (each reached value and each
 * element of a reached array, once per segment): a cost counted, not timed, for the tests of
 * docs/semantics.md 1.7 ("The walk of a dotted path"). Not part of the public API.
 */
export function walkSteps(record: unknown, path: readonly string[]): number {
  return walk(record, path, newReader()).steps;
}

/**
 * The values a field path reaches in a record (an empty list when the field is missing), read as
 * `evaluate` reads them: an object reached by two routes is listed once (docs/semantics.md 1.7, "The walk of
 * a dotted path").
 * @param record - the incident; anything but a non-array object is read as an empty record
 * @param path - field path segments, e.g. `["Custom", "Owner"]`
 * @returns the reached values, in document order; never throws
 * @example resolveFieldPath({ a: [{ b: 1 }, { b: [2] }] }, ["a", "b"]) //=> [1, [2]]
 */
export function resolveFieldPath(record: unknown, path: readonly string[]): unknown[] {
  return walk(record, path, newReader()).values.map((reached) => reached.value);
}

/** A JS `Date`'s instant, or `undefined` (an invalid or forged `Date` is not a date). Never throws. */
function dateValue(value: unknown): number | undefined {
  try {
    if (!(value instanceof Date)) return undefined;
    const ms = Date.prototype.getTime.call(value);
    return Number.isNaN(ms) ? undefined : ms;
  } catch {
    return undefined;
  }
}

/** A record value as a date (epoch ms) for a field of this kind (docs/semantics.md 1.5), else `undefined`. */
function dateOf(value: unknown, fieldKind: FieldKind): number | undefined {
  if (fieldKind === "date" && typeof value === "string") return parseIsoUtc(value);
  return dateValue(value);
}

/** Equality of one record value with an operand (docs/semantics.md 1.2, 1.5). */
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

/** The value and the operand on one scale under type bracketing, or `undefined` when of other kinds. */
function scaled(
  value: unknown,
  operand: Operand,
  fieldKind: FieldKind,
): [number | string, number | string] | undefined {
  switch (operand.type) {
    case "number":
      return typeof value === "number" && !Number.isNaN(value) ? [value, operand.value] : undefined;
    case "string":
      return typeof value === "string" ? [value, operand.value] : undefined;
    case "boolean":
      return typeof value === "boolean" ? [Number(value), Number(operand.value)] : undefined;
    case "date": {
      const ms = dateOf(value, fieldKind);
      return ms === undefined ? undefined : [ms, operand.value];
    }
    case "null":
      return undefined;
    default:
      return assertNever(operand);
  }
}

/** True when some element passes (a hole or an unreadable element is `undefined`). */
function someElement({ values, holes }: Elements, test: (value: unknown) => boolean): boolean {
  return values.some(test) || (holes && test(undefined));
}

/** True when some reached value, or some element of a reached value that is a traversable array, passes. */
function some(reach: Reach, test: (value: unknown) => boolean, read: Reader): boolean {
  return reach.values.some(
    ({ value, whole }) =>
      test(value) || (!whole && Array.isArray(value) && someElement(read.elements(value), test)),
  );
}

/** Equality with implicit array traversal; `null` also matches every place the path reaches nothing. */
function matchesEq(reach: Reach, operand: Operand, fieldKind: FieldKind, read: Reader): boolean {
  if (operand.type === "null" && reach.missing) return true;
  return some(reach, (value) => equals(value, operand, fieldKind), read);
}

/** One bound of a range, met by some value; a `null` bound is `null` equality when inclusive, else nothing. */
function meetsBound(reach: Reach, bound: RangeBound, side: "lower" | "upper", kind: FieldKind, read: Reader) {
  if (bound.operand.type === "null") return bound.inclusive && matchesEq(reach, bound.operand, kind, read);
  const test = (value: unknown) => {
    const pair = scaled(value, bound.operand, kind);
    if (pair === undefined) return false;
    const [v, b] = pair;
    if (side === "lower") return bound.inclusive ? v >= b : v > b;
    return bound.inclusive ? v <= b : v < b;
  };
  return some(reach, test, read);
}

/**
 * Whether one value is of a `$type` (docs/semantics.md 1.3): a JS number is a `number` (NaN included), a JS
 * string a `string`, a boolean a `bool`, `null` a `null`, an array an `array`, a valid JS `Date` a `date`
 * (in a catalogue date field, an ISO-8601 UTC string too, 1.5), any other object an `object`; an invalid or
 * forged `Date` is of no type.
 */
function hasType(value: unknown, type: JsonType, fieldKind: FieldKind): boolean {
  switch (type) {
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "bool":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "date":
      return dateOf(value, fieldKind) !== undefined;
    case "object":
      return isRecord(value) && !(value instanceof Date);
    default:
      return assertNever(type);
  }
}

/** 2^63, the bound of MongoDB's 64-bit integers. */
const TWO_63 = 2 ** 63;

/**
 * `$mod` of one value (docs/semantics.md 1.3, MongoDB's `mod.js`, `mod_special_values.js`): a finite number
 * whose integer part (truncated towards zero) is a 64-bit integer, leaving `remainder` (sign of the
 * dividend) when divided by `divisor`.
 */
function modMatches(value: unknown, divisor: number, remainder: number): boolean {
  if (typeof value !== "number" || !Number.isFinite(value)) return false;
  const dividend = Math.trunc(value);
  if (dividend < -TWO_63 || dividend >= TWO_63) return false;
  // Exact on doubles: the remainder of two integers is computed without rounding.
  return dividend % divisor === remainder;
}

/**
 * A bit test of one value (docs/semantics.md 1.3, MongoDB's `bittest.js`): an integer number from -2^63 to
 * 2^63 - 1, read in two's complement (a position past 63 reads the sign bit), has all or any of the bits at
 * `positions` set or clear; any other value passes none of the four tests.
 */
function bitsMatch(value: unknown, test: BitTest, positions: readonly number[]): boolean {
  if (typeof value !== "number" || !Number.isInteger(value) || value < -TWO_63 || value >= TWO_63)
    return false;
  const word = BigInt.asUintN(64, BigInt(value));
  const set = (position: number) => ((word >> BigInt(Math.min(position, 63))) & 1n) === 1n;
  switch (test) {
    case "allSet":
      return positions.every(set);
    case "anySet":
      return positions.some(set);
    case "allClear":
      return positions.every((position) => !set(position));
    case "anyClear":
      return positions.some((position) => !set(position));
    default:
      return assertNever(test);
  }
}

/**
 * An array element as the document `$elemMatch`'s query form reads (docs/semantics.md 1.3): a record as it
 * is; an array as a record whose own keys are its indexes (MongoDB reads a BSON array as such a document),
 * its elements as already read.
 */
function elementDocument(element: object, read: Reader): object {
  if (!Array.isArray(element)) return element;
  const { values, indexes } = read.elements(element);
  const document: Record<string, unknown> = {};
  indexes.forEach((index, k) => {
    document[String(index)] = values[k];
  });
  return document;
}

/** The operator form of `$elemMatch` on one element, given as a reach of that element alone (as a whole). */
function matchesElement(operators: ElementOperators, element: Reach, read: Reader): boolean {
  switch (operators.kind) {
    case "and":
      return operators.children.every((child) => matchesElement(child, element, read));
    case "not":
      return !matchesElement(operators.child, element, read);
    default: {
      const interpret = FIELD_INTERPRETERS[operators.kind] as FieldInterpreter<FieldNode["kind"]>;
      return interpret(operators, element, read);
    }
  }
}

/**
 * `$elemMatch` on the elements of one array: holes, unreadable elements and elements holding `undefined`
 * are no elements (as a field holding `undefined` is missing, docs/semantics.md 1.1).
 */
function elemMatches(
  node: Extract<FieldNode, { kind: "elemMatch" }>,
  array: unknown[],
  read: Reader,
): boolean {
  const { values } = read.elements(array);
  const { match } = node;
  if (match.form === "query") {
    return values.some(
      (element) => isDocument(element) && evaluateWith(match.condition, elementDocument(element, read), read),
    );
  }
  return values.some(
    (value) =>
      value !== undefined &&
      matchesElement(match.operators, { values: [{ value, whole: true }], missing: false }, read),
  );
}

/** How one field node kind decides what its path reached (`reach`), in the reference's own words. */
type FieldInterpreter<K extends FieldNode["kind"]> = (
  node: Extract<FieldNode, { kind: K }>,
  reach: Reach,
  read: Reader,
) => boolean;

/** The reference semantics of each field node kind (docs/semantics.md 1.5): a new kind is a compile error here. */
const FIELD_INTERPRETERS: { readonly [K in FieldNode["kind"]]: FieldInterpreter<K> } = {
  eq: (node, reach, read) => matchesEq(reach, node.operand, node.fieldKind, read),
  ne: (node, reach, read) => !matchesEq(reach, node.operand, node.fieldKind, read),
  in: (node, reach, read) => node.operands.some((operand) => matchesEq(reach, operand, node.fieldKind, read)),
  nin: (node, reach, read) =>
    !node.operands.some((operand) => matchesEq(reach, operand, node.fieldKind, read)),
  all: (node, reach, read) =>
    node.operands.length > 0 &&
    node.operands.every((operand) => matchesEq(reach, operand, node.fieldKind, read)),
  range: (node, reach, read) =>
    (node.lower === undefined || meetsBound(reach, node.lower, "lower", node.fieldKind, read)) &&
    (node.upper === undefined || meetsBound(reach, node.upper, "upper", node.fieldKind, read)),
  regex: (node, reach, read) => {
    const matcher = read.regex(node);
    return some(reach, (value) => typeof value === "string" && matcher.test(value), read);
  },
  exists: (node, reach) => node.exists === reach.values.length > 0,
  size: (node, reach, read) =>
    reach.values.some(({ value }) => Array.isArray(value) && read.elements(value).length === node.size),
  type: (node, reach, read) =>
    some(reach, (value) => node.types.some((type) => hasType(value, type, node.fieldKind)), read),
  mod: (node, reach, read) => some(reach, (value) => modMatches(value, node.divisor, node.remainder), read),
  bits: (node, reach, read) => some(reach, (value) => bitsMatch(value, node.test, node.positions), read),
  elemMatch: (node, reach, read) =>
    reach.values.some(({ value }) => Array.isArray(value) && elemMatches(node, value, read)),
};

function evaluateField(node: FieldNode, record: unknown, read: Reader): boolean {
  const interpret = FIELD_INTERPRETERS[node.kind] as FieldInterpreter<FieldNode["kind"]>;
  return interpret(node, walk(record, node.path, read), read);
}

function evaluateWith(condition: Condition, incident: unknown, read: Reader): boolean {
  if (isFieldNode(condition)) return evaluateField(condition, incident, read);
  switch (condition.kind) {
    case "and":
      return condition.children.every((child) => evaluateWith(child, incident, read));
    case "or":
      return condition.children.some((child) => evaluateWith(child, incident, read));
    case "nor":
      return !condition.children.some((child) => evaluateWith(child, incident, read));
    case "not":
      return !evaluateWith(condition.child, incident, read);
    default:
      return assertNever(condition);
  }
}

/**
 * Decides whether an incident matches a parsed Search Conditions object: the reference interpreter
 * (docs/semantics.md 1.5, docs/semantics.md).
 *
 * - Strings compare exactly and case-sensitively; numbers numerically (a `NaN` in a record equals only a
 *   `NaN` operand and lies in no range); dates as instants; booleans `false < true` in ranges.
 * - Ranges use type bracketing: only values of the operand's kind compare. A value in a catalogue `date`
 *   field is a date when it is a valid JS `Date` or an ISO-8601 UTC string; in other fields only a valid
 *   JS `Date` is (an invalid or forged `Date`, such as `Object.create(Date.prototype)`, is no date and never
 *   throws). `$gte`/`$lte` with `null` are `null` equality; `$gt`/`$lt` with `null` match nothing. Each
 *   bound of a range is met by some value (MongoDB), so `{"$gt": 1, "$lt": 3}` matches `[0, 5]`.
 * - Arrays: a value matches when it or any of its elements does (one level); `$ne`/`$nin` are the
 *   negations of equality/`$in`; `$size` looks at the array itself; `$all` is the AND of equalities.
 *   A value that a numeric segment reached in an array at the end of the path is not traversed:
 *   `{"a.0": 42}` does not match `{a: [[42]]}`.
 * - `null` (in equality, `$in`, `$all`, inclusive range bounds) matches a reached `null` and every place
 *   where the path reaches nothing (see the module comment): `{"a.b": null}` matches `{a: [1]}`,
 *   `{a: []}` and `{a: [{b: 3}, {}]}`, not `{a: [{b: 1}, {b: 3}]}`. `$ne`/`$nin` are the exact negations.
 * - `$exists: true` matches when the path reaches a value (`null` included).
 *
 * @param condition - a Condition from `parseSearchConditions` (only parsed conditions are accepted:
 *   docs/semantics.md 1.1)
 * @param incident - the incident record; fields are own properties, data or accessor, each read at most
 *   once in this call; inherited properties never count; a throwing read counts as missing
 * @returns true when the incident matches
 * @throws never for a record of data, accessors (a throwing one is a missing field) or forged `Date`s;
 *   only a Proxy whose traps throw can make it throw (outside the guarantee, SECURITY.md). A hand-built
 *   condition with a pattern RE2 refuses throws `RegexSyntaxError` (the parser never produces one).
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions` (raw Search
 *   Conditions JSON, a hand-built or copied AST); the message says to call `parseSearchConditions`
 * @example evaluate(parseSearchConditions({ Severity: { $in: ["High"] } }), { Severity: "High" }) //=> true
 */
export function evaluate(condition: Condition, incident: object): boolean {
  requireParsedCondition(condition, "evaluate");
  return evaluateWith(condition, incident, newReader());
}

/**
 * `evaluate` without the check that the condition is a parsed one: for the interpreter's unit tests, which
 * pin it on hand-built nodes. Not part of the public API.
 * @throws {RegexSyntaxError} for a hand-built `$regex` that RE2 refuses (the parser never produces one)
 */
export function evaluateNode(condition: Condition, incident: object): boolean {
  return evaluateWith(condition, incident, newReader());
}
