/**
 * The fast path of Search Conditions: a condition compiled once into a predicate that agrees with the
 * reference interpreter (`evaluate`, DECISIONS.md 1.5) on every input, and runs close to a hand-written
 * `incident.Status === "Open"`.
 *
 * Two back ends, one semantics:
 * - **code generation** (default): specialised JavaScript built with `new Function`. Untrusted text is never
 *   code: operands, sets and regex matchers are closure constants (`K[i]`), field names are
 *   `JSON.stringify`'d property keys (a string literal, never an identifier or an expression).
 * - **closure composition** (`codegen: false`, or automatically when the environment forbids code
 *   generation): the same tests composed as closures.
 *
 * What makes it fast: operands hoisted as constants; `$in` as an `===` chain (up to six values) or a `Set`;
 * AND/OR children ordered cheapest first, regular expressions last; literal regexes as `includes` /
 * `startsWith` / `endsWith` / `===`, and case-insensitive ASCII literals through a native regex built from
 * escaped text; the scalar test first, array traversal only when the value is an array; ISO-8601 dates read
 * with a hand-written scanner (`isoUtcMs`), once per record and date field.
 *
 * Own-property semantics (the reference reads own *data* properties only, `resolveFieldPath`): the
 * generated code reads `r["Field"]` optimistically and proves, only where the answer depends on it, that
 * the value it read is an own data property. Each leaf whose result differs from its result on a missing
 * field sets a bit; after the root is decided, only the fields whose correction could change the root
 * (found from the leaf's polarity) are checked with `Object.getOwnPropertyDescriptor`. If one is inherited
 * or an accessor, or anything throws, the record is answered by `evaluate` itself. An accessor may thus be
 * invoked (it never decides the answer); a Proxy whose `get` trap disagrees with its
 * `getOwnPropertyDescriptor` trap is outside this guarantee.
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
import {
  dateFieldMs,
  formatIsoUtc,
  isoUtcMs,
  MAX_ISO_EPOCH_MS,
  MIN_ISO_EPOCH_MS,
  recordDateValue,
} from "./dates.js";
import { evaluateNode, resolveFieldPath } from "./evaluate.js";
import { WeightedLru } from "./lru.js";
import { requireParsedCondition } from "./parse.js";
import { compileRegex } from "./regex.js";

/**
 * A compiled Search Conditions predicate: `predicate(incident)` is `evaluate(predicate.condition, incident)`
 * on every input, faster.
 */
export interface Predicate {
  /**
   * @param incident - any value; anything but a non-array object is read as an empty record
   * @returns true when the incident matches `condition`
   * @throws only what `evaluate` would throw for the same record (a `Date`-like object whose `getTime`
   *   throws); never for plain data
   */
  (incident: unknown): boolean;
  /** The condition this predicate was compiled from (the one passed to `compile`). */
  readonly condition: Condition;
  /** Which back end built it: `"codegen"` (`new Function`) or `"closure"` (closure composition). */
  readonly mode: "codegen" | "closure";
}

/** Options of `compile`. */
export interface CompileOptions {
  /**
   * Generate specialised code with `new Function` (default true). When false, or when the environment
   * forbids code generation (a Content-Security-Policy without `unsafe-eval`), closures are composed
   * instead; both agree with `evaluate`.
   */
  readonly codegen?: boolean;
  /** Reuse a cached predicate for a condition of the same canonical form (default true). */
  readonly cache?: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Dates

/** A record value in a non-date field as epoch ms: only a valid JS `Date` counts; `NaN` otherwise. */
function openFieldMs(value: unknown): number {
  if (!(value instanceof Date)) return Number.NaN;
  const ms = recordDateValue(value);
  return ms === undefined ? Number.NaN : ms;
}

/** The date reader for a field kind (DECISIONS.md 1.5). */
function dateReader(fieldKind: FieldKind): (value: unknown) => number {
  return fieldKind === "date" ? dateFieldMs : openFieldMs;
}

// ---------------------------------------------------------------------------------------------------------
// Leaf semantics (shared by both back ends)

type ValueTest = (value: unknown) => boolean;

/**
 * The semantics of one field node, in three forms that agree with `evaluate`:
 * - `many(values)`: the reached values of a field path (`resolveFieldPath`), any length;
 * - `one(value)`: exactly one reached value (a single-segment path), `undefined` never passed;
 * - `missing`: the result when no value is reached (`many([])`).
 */
interface Leaf {
  readonly missing: boolean;
  readonly one: ValueTest;
  readonly many: (values: readonly unknown[]) => boolean;
}

/** True when some element of the array satisfies `test` (holes read as `undefined`, which no test accepts). */
function someElement(array: readonly unknown[], test: ValueTest): boolean {
  for (let i = 0; i < array.length; i++) if (test(array[i])) return true;
  return false;
}

/** `anyValue` of the reference for one value: the value itself, or, for an array, any element. */
function traverse(test: ValueTest): ValueTest {
  return (value) => test(value) || (Array.isArray(value) && someElement(value, test));
}

/** Equality of one non-array value with an operand (the reference's `equals`). */
function equalsTest(operand: Operand, fieldKind: FieldKind): ValueTest {
  switch (operand.type) {
    case "string":
    case "boolean": {
      const k = operand.value;
      return (value) => value === k;
    }
    case "number": {
      const k = operand.value;
      return Number.isNaN(k)
        ? (value) => typeof value === "number" && Number.isNaN(value)
        : (value) => value === k;
    }
    case "null":
      return (value) => value === null;
    case "date": {
      const k = operand.value;
      const read = dateReader(fieldKind);
      return (value) => read(value) === k;
    }
    default:
      return assertNever(operand);
  }
}

/** Membership of one non-array value in a list of operands: a `Set` for scalars, then null and dates. */
function membershipTest(operands: readonly Operand[], fieldKind: FieldKind): ValueTest {
  const scalars = new Set<unknown>();
  const dates = new Set<number>();
  let hasNull = false;
  for (const operand of operands) {
    if (operand.type === "null") hasNull = true;
    else if (operand.type === "date") {
      if (!Number.isNaN(operand.value)) dates.add(operand.value);
    } else scalars.add(operand.value);
  }
  const read = dateReader(fieldKind);
  return (value) =>
    scalars.has(value) || (hasNull && value === null) || (dates.size > 0 && dates.has(read(value)));
}

/** One bound of a range against one non-array value (the reference's `withinBound`). */
function boundTest(bound: RangeBound, side: "lower" | "upper", fieldKind: FieldKind): ValueTest {
  const read = scaleReader(bound.operand, fieldKind);
  const b = bound.operand.value;
  if (side === "lower") {
    return bound.inclusive
      ? (value) => {
          const v = read(value);
          return v !== undefined && v >= b;
        }
      : (value) => {
          const v = read(value);
          return v !== undefined && v > b;
        };
  }
  return bound.inclusive
    ? (value) => {
        const v = read(value);
        return v !== undefined && v <= b;
      }
    : (value) => {
        const v = read(value);
        return v !== undefined && v < b;
      };
}

/** A value on the operand's scale under type bracketing, `undefined` when of another kind (or NaN). */
function scaleReader(
  operand: OrderedOperand,
  fieldKind: FieldKind,
): (value: unknown) => number | string | undefined {
  switch (operand.type) {
    case "number":
      return (value) => (typeof value === "number" && !Number.isNaN(value) ? value : undefined);
    case "string":
      return (value) => (typeof value === "string" ? value : undefined);
    case "date": {
      const read = dateReader(fieldKind);
      return (value) => {
        const ms = read(value);
        return Number.isNaN(ms) ? undefined : ms;
      };
    }
    default:
      return assertNever(operand);
  }
}

function someOf(test: ValueTest): (values: readonly unknown[]) => boolean {
  return (values) => {
    for (const value of values) if (test(value)) return true;
    return false;
  };
}

function negate(leaf: Leaf): Leaf {
  const { one, many } = leaf;
  return { missing: !leaf.missing, one: (value) => !one(value), many: (values) => !many(values) };
}

/** Builds the leaf semantics of a field node (DECISIONS.md 1.5; the reference's `evaluateField`). */
function leafOf(node: FieldNode): Leaf {
  const kind = node.fieldKind;
  switch (node.kind) {
    case "eq": {
      const one = traverse(equalsTest(node.operand, kind));
      return { missing: node.operand.type === "null", one, many: someOf(one) };
    }
    case "ne":
      return negate(leafOf({ ...node, kind: "eq" }));
    case "in": {
      const one = traverse(membershipTest(node.operands, kind));
      return { missing: node.operands.some((o) => o.type === "null"), one, many: someOf(one) };
    }
    case "nin":
      return negate(leafOf({ ...node, kind: "in", fromPipe: false }));
    case "all": {
      if (node.operands.length === 0) return { missing: false, one: () => false, many: () => false };
      const tests = node.operands.map((operand) => traverse(equalsTest(operand, kind)));
      const manyTests = tests.map(someOf);
      return {
        missing: node.operands.every((o) => o.type === "null"),
        one: (value) => tests.every((test) => test(value)),
        many: (values) => manyTests.every((test) => test(values)),
      };
    }
    case "range": {
      const lower = node.lower === undefined ? undefined : traverse(boundTest(node.lower, "lower", kind));
      const upper = node.upper === undefined ? undefined : traverse(boundTest(node.upper, "upper", kind));
      const lowerMany = lower === undefined ? undefined : someOf(lower);
      const upperMany = upper === undefined ? undefined : someOf(upper);
      return {
        missing: lower === undefined && upper === undefined,
        one: (value) => (lower === undefined || lower(value)) && (upper === undefined || upper(value)),
        many: (values) =>
          (lowerMany === undefined || lowerMany(values)) && (upperMany === undefined || upperMany(values)),
      };
    }
    case "regex": {
      const matcher = compileRegex(node.source, node.flags);
      const one = traverse((value) => typeof value === "string" && matcher.test(value));
      return { missing: false, one, many: someOf(one) };
    }
    case "exists": {
      const exists = node.exists;
      return { missing: !exists, one: () => exists, many: (values) => exists === values.length > 0 };
    }
    case "size": {
      const size = node.size;
      const one: ValueTest = (value) => Array.isArray(value) && value.length === size;
      return { missing: false, one, many: someOf(one) };
    }
    default:
      return assertNever(node);
  }
}

/**
 * The exact semantics of a single-segment field node for one reached value, as `evaluate` decides it: for
 * indexes that evaluate a leaf once per distinct stored value (dictionary columns) instead of once per
 * record.
 * @param node - a field node
 * @returns `missing`: the result when the field reaches no value; `one(value)`: the result when the field
 *   holds `value` (never `undefined`; arrays are traversed as the reference does)
 * @throws {RegexSyntaxError} for a hand-built `$regex` that RE2 refuses
 */
export function leafSemantics(node: FieldNode): {
  readonly missing: boolean;
  readonly one: (value: unknown) => boolean;
} {
  const { missing, one } = leafOf(node);
  return { missing, one };
}

// ---------------------------------------------------------------------------------------------------------
// Shared helpers

const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;

/** True when `key` is an own data property of `record` holding a value other than `undefined`. */
function ownData(record: object, key: string): boolean {
  const descriptor = getOwnPropertyDescriptor(record, key);
  return descriptor !== undefined && "value" in descriptor && descriptor.value !== undefined;
}

/**
 * A static cost estimate used to order AND/OR children cheapest first (regular expressions last): it
 * never changes the answer, since every test is total and side-effect free.
 */
function costOf(node: Condition): number {
  switch (node.kind) {
    case "and":
    case "or":
    case "nor":
      return node.children.reduce((sum, child) => sum + costOf(child), 1);
    case "not":
      return costOf(node.child);
    default: {
      const nested = node.path.length > 1 ? 20 : 0;
      const date = node.fieldKind === "date" ? 3 : 0;
      switch (node.kind) {
        case "exists":
          return 1 + nested;
        // `$ne`/`$nin` after the other tests: a record they reject needs its field proven own (see the
        // module comment), which a failing positive test before them spares.
        case "eq":
        case "size":
          return 2 + date + nested;
        case "ne":
          return 4 + date + nested;
        case "in":
        case "range":
          return 3 + date + nested;
        case "nin":
          return 5 + date + nested;
        case "all":
          return 6 + date + nested;
        case "regex": {
          const literal = compileRegex(node.source, node.flags).literal;
          return (literal === undefined ? 40 : literal.ignoreCase ? 12 : 8) + nested;
        }
        default:
          return assertNever(node);
      }
    }
  }
}

/** Children ordered cheapest first (stable). */
function ordered(children: readonly Condition[]): Condition[] {
  return children
    .map((child, index) => ({ child, index, cost: costOf(child) }))
    .sort((a, b) => a.cost - b.cost || a.index - b.index)
    .map((entry) => entry.child);
}

// ---------------------------------------------------------------------------------------------------------
// Closure back end

type RecordTest = (record: object) => boolean;

function closureLeaf(node: FieldNode): RecordTest {
  const leaf = leafOf(node);
  const { missing, one, many } = leaf;
  if (node.path.length === 1) {
    const key = node.path[0]!;
    return (record) => {
      const value = (record as Record<string, unknown>)[key];
      if (value === undefined) return missing;
      const result = one(value);
      return result !== missing && !ownData(record, key) ? missing : result;
    };
  }
  const path = node.path;
  return (record) => {
    const values = resolveFieldPath(record, path);
    return values.length === 0 ? missing : many(values);
  };
}

function closureNode(node: Condition): RecordTest {
  switch (node.kind) {
    case "and": {
      const children = ordered(node.children).map(closureNode);
      if (children.length === 0) return () => true;
      if (children.length === 1) return children[0]!;
      if (children.length === 2) {
        const [a, b] = children as [RecordTest, RecordTest];
        return (record) => a(record) && b(record);
      }
      return (record) => {
        for (const child of children) if (!child(record)) return false;
        return true;
      };
    }
    case "or": {
      const children = ordered(node.children).map(closureNode);
      if (children.length === 1) return children[0]!;
      return (record) => {
        for (const child of children) if (child(record)) return true;
        return false;
      };
    }
    case "nor": {
      const children = ordered(node.children).map(closureNode);
      return (record) => {
        for (const child of children) if (child(record)) return false;
        return true;
      };
    }
    case "not": {
      const child = closureNode(node.child);
      return (record) => !child(record);
    }
    default:
      return closureLeaf(node);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Code generation back end

/** Helpers handed to generated code (never built from input). */
const HELPERS = Object.freeze({
  isArray: Array.isArray,
  ownData,
  dateFieldMs,
  openFieldMs,
  isoUtcMs,
});

/**
 * A native `RegExp` source (for the `i` flag, without `u`) that matches exactly what RE2 matches for an
 * ASCII literal under case folding. JavaScript's non-Unicode case-insensitive matching folds ASCII letters
 * among themselves and never maps a non-ASCII character to an ASCII one; RE2 also folds `k` with U+212A
 * (Kelvin sign) and `s` with U+017F (long s), the only two non-ASCII code points that fold to ASCII letters
 * (checked over every code point in compile.test.ts). So `k` and `s` become classes holding them; every
 * other non-alphanumeric character is written `\xHH`.
 */
export function foldingLiteralSource(text: string): string {
  let out = "";
  for (const ch of text) {
    if (ch === "k" || ch === "K") out += "[kK\\u212a]";
    else if (ch === "s" || ch === "S") out += "[sS\\u017f]";
    else out += /[0-9A-Za-z]/.test(ch) ? ch : `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
  }
  return out;
}

/** The generated source and its constants; `new Function("K", "H", source)(K, HELPERS)` is the predicate. */
interface Generated {
  readonly source: string;
  readonly constants: unknown[];
}

class Generator {
  readonly constants: unknown[] = [];
  private readonly fieldBits = new Map<string, number>();
  /** Per field key: how many date leaves read it (a cache variable when two or more). */
  private readonly dateUses = new Map<string, number>();
  private readonly dateVars = new Map<string, string>();

  constant(value: unknown): string {
    this.constants.push(value);
    return `K${this.constants.length - 1}`;
  }

  /** Counts date reads per single-segment field, to cache a date read once per record when it repeats. */
  countDates(node: Condition): void {
    switch (node.kind) {
      case "and":
      case "or":
      case "nor":
        for (const child of node.children) this.countDates(child);
        return;
      case "not":
        this.countDates(node.child);
        return;
      default:
        if (node.path.length === 1 && readsDates(node)) {
          const key = node.path[0]!;
          this.dateUses.set(key, (this.dateUses.get(key) ?? 0) + 1);
        }
    }
  }

  private bitOf(key: string): number {
    let bit = this.fieldBits.get(key);
    if (bit === undefined) {
      bit = this.fieldBits.size;
      this.fieldBits.set(key, bit);
    }
    return bit;
  }

  /** The masks' variable names and, per field, the verification statements for one direction. */
  verification(direction: "D" | "U"): string {
    const lines: string[] = [];
    for (const [key, bit] of this.fieldBits) {
      lines.push(
        `if ((m${direction}${Math.floor(bit / 30)} & ${1 << (bit % 30)}) !== 0 && !ownData(r, ${JSON.stringify(key)})) return slow(r);`,
      );
    }
    return lines.join("\n");
  }

  maskDeclarations(): string {
    const count = Math.ceil(this.fieldBits.size / 30);
    const names: string[] = [];
    for (let i = 0; i < count; i++) names.push(`mD${i} = 0`, `mU${i} = 0`);
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  maskTest(direction: "D" | "U"): string {
    const count = Math.ceil(this.fieldBits.size / 30);
    const parts: string[] = [];
    for (let i = 0; i < count; i++) parts.push(`m${direction}${i} !== 0`);
    return parts.length === 0 ? "false" : parts.join(" || ");
  }

  dateDeclarations(): string {
    const names = [...this.dateVars.values()];
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  /** An expression reading the date of the value in `v` (a single-segment field), cached when repeated. */
  private dateExpr(node: FieldNode): string {
    const reader = node.fieldKind === "date" ? "dateFieldMs" : "openFieldMs";
    const key = node.path[0]!;
    if ((this.dateUses.get(key) ?? 0) < 2) return `${reader}(v)`;
    let name = this.dateVars.get(key);
    if (name === undefined) {
      name = `d${this.dateVars.size}`;
      this.dateVars.set(key, name);
    }
    return `(${name} === undefined ? (${name} = ${reader}(v)) : ${name})`;
  }

  /**
   * An expression for `leaf.one(v)` of a single-segment field node, inline for the common forms; `v` is
   * the value read (never `undefined`).
   */
  private one(node: FieldNode, leaf: Leaf): string {
    const delegate = `${this.constant(leaf.one)}(v)`;
    switch (node.kind) {
      case "eq":
        return this.equality([node.operand], node, delegate);
      case "in":
        return this.equality(node.operands, node, delegate);
      case "ne": {
        const positive = leafOf({ ...node, kind: "eq" });
        return `!${this.equality([node.operand], node, `${this.constant(positive.one)}(v)`)}`;
      }
      case "nin": {
        const positive = leafOf({ ...node, kind: "in", fromPipe: false });
        return `!${this.equality(node.operands, node, `${this.constant(positive.one)}(v)`)}`;
      }
      case "range": {
        const scalar = this.rangeScalar(node);
        return scalar === undefined ? delegate : `(isArray(v) ? ${delegate} : ${scalar})`;
      }
      case "regex": {
        const matcher = compileRegex(node.source, node.flags);
        const literal = matcher.literal;
        let test: string;
        if (literal === undefined) {
          test = `${this.constant(matcher)}.test(v)`;
        } else if (!literal.ignoreCase) {
          const text = this.constant(literal.text);
          test =
            literal.anchorStart && literal.anchorEnd
              ? `v === ${text}`
              : literal.anchorStart
                ? `v.startsWith(${text})`
                : literal.anchorEnd
                  ? `v.endsWith(${text})`
                  : `v.includes(${text})`;
        } else {
          // An ASCII literal under RE2 case folding: one native search (see `foldingLiteralSource`).
          const native = new RegExp(
            `${literal.anchorStart ? "^" : ""}${foldingLiteralSource(literal.text)}${literal.anchorEnd ? "$" : ""}`,
            "i",
          );
          test = `${this.constant(native)}.test(v)`;
        }
        return `(typeof v === "string" ? ${test} : isArray(v) && ${delegate})`;
      }
      case "exists":
        return String(node.exists);
      case "size":
        return `(isArray(v) && v.length === ${this.constant(node.size)})`;
      case "all":
        return delegate;
      default:
        return assertNever(node);
    }
  }

  /** `v` equals one of the operands (scalar test inline, array traversal by `delegate`). */
  private equality(operands: readonly Operand[], node: FieldNode, delegate: string): string {
    const scalars: (string | number | boolean)[] = [];
    const dates: number[] = [];
    let hasNull = false;
    let hasNaN = false;
    for (const operand of operands) {
      if (operand.type === "null") hasNull = true;
      else if (operand.type === "date") {
        if (!Number.isNaN(operand.value)) dates.push(operand.value);
      } else {
        if (typeof operand.value === "number" && Number.isNaN(operand.value)) hasNaN = true;
        scalars.push(operand.value);
      }
    }
    const parts: string[] = [];
    if (scalars.length > 0 && scalars.length <= 6 && !hasNaN) {
      for (const s of scalars) parts.push(`v === ${this.constant(s)}`);
    } else if (scalars.length > 0) {
      parts.push(`${this.constant(new Set(scalars))}.has(v)`);
    }
    if (hasNull) parts.push("v === null");
    if (dates.length === 1) parts.push(`${this.dateExpr(node)} === ${this.constant(dates[0])}`);
    else if (dates.length > 1) parts.push(`${this.constant(new Set(dates))}.has(${this.dateExpr(node)})`);
    if (parts.length === 0) return "false";
    const arrayPart = delegate;
    // Scalar test first; array traversal only for arrays (an array itself never equals an operand).
    if (dates.length > 0) return `(isArray(v) ? ${arrayPart} : (${parts.join(" || ")}))`;
    return `(${parts.join(" || ")} || (isArray(v) && ${arrayPart}))`;
  }

  /** The scalar (non-array) test of a range, or undefined to delegate. */
  private rangeScalar(node: Extract<FieldNode, { kind: "range" }>): string | undefined {
    const bounds: [RangeBound, "lower" | "upper"][] = [];
    if (node.lower !== undefined) bounds.push([node.lower, "lower"]);
    if (node.upper !== undefined) bounds.push([node.upper, "upper"]);
    if (bounds.length === 0) return "true";
    const type = bounds[0]![0].operand.type;
    if (bounds.some(([b]) => b.operand.type !== type)) return undefined;
    let subject: string;
    let guard = "";
    if (type === "date") subject = `(d = ${this.dateExpr(node)})`;
    else if (type === "number") {
      subject = "v";
      guard = `typeof v === "number" && `;
    } else {
      subject = "v";
      guard = `typeof v === "string" && `;
    }
    const comparisons = bounds.map(([bound, side], i) => {
      const op = side === "lower" ? (bound.inclusive ? ">=" : ">") : bound.inclusive ? "<=" : "<";
      const left = i === 0 ? subject : type === "date" ? "d" : "v";
      return `${left} ${op} ${this.constant(bound.operand.value)}`;
    });
    const exact = `(${guard}${comparisons.join(" && ")})`;
    if (type !== "date" || node.fieldKind !== "date") return exact;
    // ISO strings of the whole-second form compare in time order as strings: a string outside the bounds'
    // whole-second strings is out of range (or not a date); only the others are read in full.
    const lexical = this.lexicalDateBounds(bounds);
    if (lexical === undefined) return exact;
    const read = bounds
      .map(([bound, side], i) => {
        const op = side === "lower" ? (bound.inclusive ? ">=" : ">") : bound.inclusive ? "<=" : "<";
        return `${i === 0 ? "(d = isoUtcMs(v))" : "d"} ${op} ${this.constant(bound.operand.value)}`;
      })
      .join(" && ");
    return `(typeof v === "string" && v.length === 20 ? (${lexical} && ${read}) : ${exact})`;
  }

  /**
   * String comparisons of a 20-character value `v` (`yyyy-MM-ddTHH:mm:ssZ`) with the bounds' whole-second
   * forms, true for every valid timestamp of that form within the bounds (and false only outside them);
   * undefined when a bound is not a finite instant.
   */
  private lexicalDateBounds(bounds: readonly [RangeBound, "lower" | "upper"][]): string | undefined {
    const parts: string[] = [];
    for (const [bound, side] of bounds) {
      const b = bound.operand.value;
      if (typeof b !== "number" || !Number.isFinite(b)) return undefined;
      if (side === "lower") {
        // The smallest whole second that satisfies the bound.
        const second = bound.inclusive ? Math.ceil(b / 1000) * 1000 : Math.floor(b / 1000) * 1000 + 1000;
        if (second > MAX_ISO_EPOCH_MS) return "false";
        if (second > MIN_ISO_EPOCH_MS) parts.push(`v >= ${this.constant(formatIsoUtc(second))}`);
      } else {
        // The largest whole second that satisfies the bound.
        const second = bound.inclusive ? Math.floor(b / 1000) * 1000 : Math.ceil(b / 1000) * 1000 - 1000;
        if (second < MIN_ISO_EPOCH_MS) return "false";
        if (second < MAX_ISO_EPOCH_MS - 999) parts.push(`v <= ${this.constant(formatIsoUtc(second))}`);
      }
    }
    return parts.length === 0 ? "true" : parts.join(" && ");
  }

  /** An expression for `node` over the record `r`; `negative` is the leaf's polarity under `not`/`nor`. */
  node(node: Condition, negative: boolean): string {
    switch (node.kind) {
      case "and": {
        if (node.children.length === 0) return "true";
        return `(${ordered(node.children)
          .map((c) => this.node(c, negative))
          .join(" && ")})`;
      }
      case "or": {
        if (node.children.length === 0) return "false";
        return `(${ordered(node.children)
          .map((c) => this.node(c, negative))
          .join(" || ")})`;
      }
      case "nor": {
        if (node.children.length === 0) return "true";
        return `!(${ordered(node.children)
          .map((c) => this.node(c, !negative))
          .join(" || ")})`;
      }
      case "not":
        return `!${this.node(node.child, !negative)}`;
      default:
        return this.field(node, negative);
    }
  }

  private field(node: FieldNode, negative: boolean): string {
    if (node.path.length !== 1) return `${this.constant(closureLeaf(node))}(r)`;
    const leaf = leafOf(node);
    const key = node.path[0]!;
    const one = this.one(node, leaf);
    const missing = leaf.missing;
    // Correcting a wrongly present value moves the leaf to `missing`; with its polarity that moves the
    // root down (D: to verify when the root is true) or up (U: when the root is false).
    const direction = missing === negative ? "D" : "U";
    const bit = this.bitOf(key);
    const mask = `m${direction}${Math.floor(bit / 30)}`;
    const flag = 1 << (bit % 30);
    const read = `(v = r[${JSON.stringify(key)}])`;
    return missing
      ? `(${read} === undefined || ${one} || ((${mask} |= ${flag}), false))`
      : `(${read} !== undefined && ${one} && ((${mask} |= ${flag}), true))`;
  }
}

/** True when a field node compares dates (so a repeated read is worth caching). */
function readsDates(node: FieldNode): boolean {
  switch (node.kind) {
    case "eq":
    case "ne":
      return node.operand.type === "date";
    case "in":
    case "nin":
      return node.operands.some((o) => o.type === "date");
    case "range":
      return (node.lower ?? node.upper)?.operand.type === "date";
    default:
      return false;
  }
}

function generate(condition: Condition): Generated {
  const g = new Generator();
  g.countDates(condition);
  const root = g.node(condition, false);
  const slow = g.constant(null); // replaced per predicate: the reference, for the rare uncertain record
  const emptyResult = g.constant(null);
  const constantNames = g.constants.map((_, i) => `K${i} = K[${i}]`);
  const source = [
    '"use strict";',
    "const isArray = H.isArray, ownData = H.ownData, dateFieldMs = H.dateFieldMs, openFieldMs = H.openFieldMs, isoUtcMs = H.isoUtcMs;",
    constantNames.length === 0 ? "" : `const ${constantNames.join(", ")};`,
    `const slow = ${slow};`,
    "return function predicate(r) {",
    `if (typeof r !== "object" || r === null || isArray(r)) return ${emptyResult};`,
    "try {",
    "let v, d;",
    g.maskDeclarations(),
    g.dateDeclarations(),
    `const root = ${root};`,
    `if (root) { if (${g.maskTest("D")}) { ${g.verification("D")} } }`,
    `else if (${g.maskTest("U")}) { ${g.verification("U")} }`,
    "return root;",
    "} catch { return slow(r); }",
    "};",
  ].join("\n");
  return { source, constants: g.constants };
}

// ---------------------------------------------------------------------------------------------------------
// Compile and cache

/** What the cache keeps per canonical form: a factory of predicates (cheap to call again). */
interface CacheEntry {
  readonly mode: "codegen" | "closure";
  readonly make: (condition: Condition) => (incident: unknown) => boolean;
  last: Predicate;
}

/** Capacity of the predicate cache in entries (least recently used dropped). */
export const COMPILE_CACHE_CAPACITY = 512;
/**
 * Capacity of the predicate cache in estimated bytes (least recently used dropped): 64 MiB. An entry weighs
 * its canonical key, the operands and generated code it keeps (estimated from the key's length) and the
 * regex matchers it holds (`RegexMatcher.bytes`, which counts the most each may cache while matching).
 */
export const COMPILE_CACHE_BYTES = 64 * 1024 * 1024;
/** Conditions whose canonical key is longer than this are compiled but not cached (bounded memory). */
const MAX_CACHED_KEY_LENGTH = 200_000;
/** Estimated bytes per character of canonical key: the key itself, operand sets, generated code. */
const BYTES_PER_KEY_CHARACTER = 8;
/** Estimated fixed bytes of one cache entry (closures, the predicate, map entry). */
const ENTRY_OVERHEAD_BYTES = 2048;

const cache = new WeightedLru<CacheEntry>(COMPILE_CACHE_CAPACITY, COMPILE_CACHE_BYTES);

/** The estimated bytes a cache entry for `condition` keeps alive (see `COMPILE_CACHE_BYTES`). */
function entryBytes(condition: Condition, key: string): number {
  let bytes = ENTRY_OVERHEAD_BYTES + BYTES_PER_KEY_CHARACTER * key.length;
  const stack: Condition[] = [condition];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.kind === "and" || node.kind === "or" || node.kind === "nor") stack.push(...node.children);
    else if (node.kind === "not") stack.push(node.child);
    else if (node.kind === "regex") bytes += compileRegex(node.source, node.flags).bytes;
  }
  return bytes;
}

/** The number of cached predicates and their estimated bytes (for tests and diagnostics). */
export function compileCacheStats(): { readonly entries: number; readonly bytes: number } {
  return cache.stats();
}

let codegenAvailable: boolean | undefined;

/** True when `new Function` works here (false under a Content-Security-Policy without `unsafe-eval`). */
function canGenerateCode(): boolean {
  if (codegenAvailable === undefined) {
    try {
      codegenAvailable = new Function("return true")() === true;
    } catch {
      codegenAvailable = false;
    }
  }
  return codegenAvailable;
}

/**
 * The canonical cache key of a condition: its AST as JSON (the AST is plain data and carries each field's
 * kind, which the printed Search Conditions do not: the same JSON parsed with another catalogue can mean
 * something else). Non-finite numbers, which JSON would print as `null`, are spelled out.
 */
function canonicalKey(condition: Condition): string {
  const plain = JSON.stringify(condition);
  // A non-finite number prints as `null`, which a parsed condition never holds as a value.
  if (!plain.includes(":null")) return plain;
  return JSON.stringify(condition, (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value) ? `#${String(value)}` : value,
  );
}

/** Predicates by condition object (identity), per back end: a repeated query skips the canonical key. */
const byCondition = new WeakMap<object, { codegen?: Predicate; closure?: Predicate }>();

function emptyResultOf(condition: Condition): boolean {
  return evaluateNode(condition, Object.create(null) as object);
}

function makeCodegen(condition: Condition): CacheEntry["make"] | undefined {
  const { source, constants } = generate(condition);
  let factory: (k: unknown[], h: typeof HELPERS) => (incident: unknown) => boolean;
  try {
    factory = new Function("K", "H", source) as typeof factory;
  } catch (error) {
    if (error instanceof EvalError) {
      codegenAvailable = false;
      return undefined;
    }
    throw error;
  }
  const emptyResult = emptyResultOf(condition);
  const slowIndex = constants.length - 2;
  return (c) => {
    const k = constants.slice();
    k[slowIndex] = (record: object) => evaluateNode(c, record);
    k[slowIndex + 1] = emptyResult;
    return factory(k, HELPERS);
  };
}

function makeClosure(condition: Condition): CacheEntry["make"] {
  const test = closureNode(condition);
  const emptyResult = emptyResultOf(condition);
  return (c) => (incident) => {
    if (typeof incident !== "object" || incident === null || Array.isArray(incident)) return emptyResult;
    try {
      return test(incident);
    } catch {
      return evaluateNode(c, incident);
    }
  };
}

function attach(
  fn: (incident: unknown) => boolean,
  condition: Condition,
  mode: Predicate["mode"],
): Predicate {
  Object.defineProperty(fn, "condition", { value: condition, enumerable: true });
  Object.defineProperty(fn, "mode", { value: mode, enumerable: true });
  return fn as Predicate;
}

/**
 * Compiles a condition into a predicate that agrees with `evaluate` on every input (DECISIONS.md 1.5),
 * generating specialised code unless `options.codegen` is false or code generation is forbidden here.
 * Predicates are cached by the condition's canonical form (an LRU of at most `COMPILE_CACHE_CAPACITY`
 * entries and `COMPILE_CACHE_BYTES` estimated bytes):
 * compiling an equal condition again is a lookup; `.condition` is always the condition passed in.
 * @param condition - a Condition from `parseSearchConditions` (only parsed conditions are accepted:
 *   docs/semantics.md 1.1)
 * @param options - `codegen` (default true), `cache` (default true)
 * @returns the predicate, with `.condition` and `.mode` attached
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions` (raw Search
 *   Conditions JSON, a hand-built or copied AST); the message says to call `parseSearchConditions`. Never
 *   throws for a parsed condition.
 * @example compile(parseSearchConditions({ Severity: { $in: ["High", "Critical"] } }))({ Severity: "High" }) //=> true
 */
export function compile(condition: Condition, options?: CompileOptions): Predicate {
  requireParsedCondition(condition, "compile");
  const wantCodegen = options?.codegen !== false && canGenerateCode();
  const useCache = options?.cache !== false;
  if (useCache) {
    const known = byCondition.get(condition);
    const hit = wantCodegen ? known?.codegen : known?.closure;
    if (hit !== undefined) return hit;
  }
  const predicate = compileUncached(condition, wantCodegen, useCache);
  if (useCache) {
    const known = byCondition.get(condition) ?? {};
    if (predicate.mode === "codegen") known.codegen = predicate;
    if (!wantCodegen || predicate.mode === "closure") known.closure = predicate;
    byCondition.set(condition, known);
  }
  return predicate;
}

function compileUncached(condition: Condition, wantCodegen: boolean, useCache: boolean): Predicate {
  const key = useCache ? `${wantCodegen ? "g" : "c"}${canonicalKey(condition)}` : "";
  const cacheable = useCache && key.length <= MAX_CACHED_KEY_LENGTH;
  if (cacheable) {
    const entry = cache.get(key);
    if (entry !== undefined) {
      if (entry.last.condition === condition) return entry.last;
      entry.last = attach(entry.make(condition), condition, entry.mode);
      return entry.last;
    }
  }
  let make = wantCodegen ? makeCodegen(condition) : undefined;
  const mode: Predicate["mode"] = make === undefined ? "closure" : "codegen";
  make ??= makeClosure(condition);
  const predicate = attach(make(condition), condition, mode);
  if (cacheable) cache.set(key, { mode, make, last: predicate }, entryBytes(condition, key));
  return predicate;
}

/**
 * The generated JavaScript source for a condition (for inspection and tests; `compile` uses the same).
 * Operands never appear in it: they are the constants `K0`, `K1`, …
 */
export function generatedSource(condition: Condition): string {
  return generate(condition).source;
}

/** Empties the predicate cache (for tests and benchmarks that measure cold compilation). */
export function clearCompileCache(): void {
  cache.clear();
}
