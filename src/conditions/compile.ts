/**
 * The fast path of Search Conditions: a condition compiled once into a predicate that agrees with the
 * reference interpreter (`evaluate`, docs/semantics.md 1.5) on every input, and runs close to a hand-written
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
 * Reading records (docs/semantics.md 1.1): a field is an own property, data or accessor, read at most once per
 * evaluation; inherited properties never count; a read that throws counts as missing. The generated code
 * reads `r["Field"]` optimistically into a per-field local (so a field used by several leaves is read
 * once) and proves, only where the answer depends on it, that the property is own: each leaf whose result
 * differs from its result on a missing field sets a bit; after the root is decided, only the fields whose
 * correction could change the root (found from the leaf's polarity) are checked with `Object.hasOwn`. If
 * one is inherited, or a read throws, the record is answered by the exact closure test over the values
 * already read (a field that was read is not read again; an inherited one becomes missing). Dotted paths
 * below the first segment, and the closure back end, read through `Object.hasOwn` and a guarded read. A
 * Proxy whose traps throw or disagree with each other is outside this guarantee.
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
import { WeightedLru } from "./lru.js";
import { requireParsedCondition } from "./parse.js";
import { compileRegex } from "./regex/matcher.js";

/**
 * A compiled Search Conditions predicate: `predicate(incident)` is `evaluate(predicate.condition, incident)`
 * on every input, faster.
 */
export interface Predicate {
  /**
   * @param incident - any value; anything but a non-array object is read as an empty record
   * @returns true when the incident matches `condition`
   * @throws never: a throwing accessor is a missing field (docs/semantics.md 1.1), a forged `Date` is no date;
   *   a Proxy whose traps throw is answered `false` (outside the guarantee, SECURITY.md)
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

/** The date reader for a field kind (docs/semantics.md 1.5). */
function dateReader(fieldKind: FieldKind): (value: unknown) => number {
  return fieldKind === "date" ? dateFieldMs : openFieldMs;
}

// ---------------------------------------------------------------------------------------------------------
// Reading records (docs/semantics.md 1.1): own properties, data or accessor; a throwing read is missing

const hasOwn = Object.hasOwn;

/**
 * An own property of a holder (data or accessor), `undefined` when it is inherited, absent, holds
 * `undefined`, or its read throws. The exact reader of the closure back end and of nested path segments.
 */
function readOwn(holder: object, key: string): unknown {
  try {
    return hasOwn(holder, key) ? (holder as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

const INDEX_SEGMENT = /^(?:0|[1-9][0-9]*)$/;

/**
 * What a field path reaches below its first segment (docs/semantics.md 1.5): `values` to test with array
 * traversal, `whole` values an array index reached at the last segment (tested without traversal), and
 * whether some place reached nothing (`missing`).
 */
interface Reach {
  readonly values: readonly unknown[];
  readonly whole: readonly unknown[];
  readonly missing: boolean;
}

const NOTHING: Reach = Object.freeze({ values: [], whole: [], missing: true });

/**
 * Walks the segments after the first from the first segment's value (`undefined`: missing). Every place
 * that reaches nothing sets `missing`: a scalar or `null` holder, an object without the key, an empty
 * array, an array element that is not an object. Nested arrays are not entered.
 */
function walkRest(first: unknown, rest: readonly string[]): Reach {
  if (first === undefined) return NOTHING;
  let current: unknown[] = [first];
  let whole: unknown[] | undefined;
  let missing = false;
  for (let s = 0; s < rest.length; s++) {
    const segment = rest[s]!;
    const last = s === rest.length - 1;
    const next: unknown[] = [];
    for (const value of current) {
      if (typeof value !== "object" || value === null) {
        missing = true;
        continue;
      }
      if (!isArray(value)) {
        const reached = readOwn(value, segment);
        if (reached === undefined) missing = true;
        else next.push(reached);
        continue;
      }
      const n = (value as unknown[]).length;
      if (n === 0) missing = true;
      for (let i = 0; i < n; i++) {
        const element = readOwn(value, String(i));
        if (typeof element !== "object" || element === null || isArray(element)) {
          missing = true;
          continue;
        }
        const reached = readOwn(element, segment);
        if (reached === undefined) missing = true;
        else next.push(reached);
      }
      if (INDEX_SEGMENT.test(segment)) {
        const indexed = readOwn(value, segment);
        if (indexed !== undefined) {
          if (!last) next.push(indexed);
          else if (whole === undefined) whole = [indexed];
          else whole.push(indexed);
        }
      }
    }
    current = next;
  }
  return { values: current, whole: whole ?? [], missing };
}

// ---------------------------------------------------------------------------------------------------------
// Leaf semantics (shared by both back ends)

type ValueTest = (value: unknown) => boolean;

/**
 * The semantics of one field node, in three forms that agree with `evaluate`:
 * - `many(reach)`: what a dotted path reaches (`walkRest`), with its missing places;
 * - `one(value)`: exactly one reached value (a single-segment path), `undefined` never passed;
 * - `missing`: the result when no value is reached.
 */
interface Leaf {
  readonly missing: boolean;
  readonly one: ValueTest;
  readonly many: (reach: Reach) => boolean;
}

const isArray = Array.isArray;

/**
 * True when some own element of the array satisfies `test`. Holes read as `undefined`, which no test
 * accepts; an element that passes is checked to be own (a polluted `Array.prototype` never counts).
 */
function someElement(array: readonly unknown[], test: ValueTest): boolean {
  try {
    for (let i = 0; i < array.length; i++) if (test(array[i]) && hasOwn(array, i)) return true;
    return false;
  } catch {
    // An element accessor threw: read every element exactly (a throwing one is a hole).
    for (let i = 0; i < array.length; i++) {
      const element = readOwn(array, String(i));
      if (element !== undefined && test(element)) return true;
    }
    return false;
  }
}

/** `anyValue` of the reference for one value: the value itself, or, for an array, any element. */
function traverse(test: ValueTest): ValueTest {
  return (value) => test(value) || (isArray(value) && someElement(value, test));
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

/** One non-null bound of a range against one non-array value (the reference's bound test). */
function boundTest(bound: RangeBound, side: "lower" | "upper", fieldKind: FieldKind): ValueTest {
  const operand = bound.operand;
  if (operand.type === "null") return () => false; // handled by `existential` as null equality
  const read = scaleReader(operand, fieldKind);
  const b = operand.type === "boolean" ? Number(operand.value) : operand.value;
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
  operand: Exclude<OrderedOperand, { type: "null" }>,
  fieldKind: FieldKind,
): (value: unknown) => number | string | undefined {
  switch (operand.type) {
    case "number":
      return (value) => (typeof value === "number" && !Number.isNaN(value) ? value : undefined);
    case "string":
      return (value) => (typeof value === "string" ? value : undefined);
    case "boolean":
      return (value) => (typeof value === "boolean" ? Number(value) : undefined);
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

function someOf(values: readonly unknown[], test: ValueTest): boolean {
  for (const value of values) if (test(value)) return true;
  return false;
}

/**
 * "Some reached value passes `base` (with array traversal, except for `whole` values), or, when
 * `onMissing`, some place reaches nothing": equality, `$in`, one bound of a range, `$regex`.
 */
function existential(base: ValueTest, onMissing: boolean): Leaf {
  const one = traverse(base);
  return {
    missing: onMissing,
    one,
    many: (reach) => (onMissing && reach.missing) || someOf(reach.values, one) || someOf(reach.whole, base),
  };
}

function negate(leaf: Leaf): Leaf {
  const { one, many } = leaf;
  return { missing: !leaf.missing, one: (value) => !one(value), many: (reach) => !many(reach) };
}

function both(a: Leaf, b: Leaf): Leaf {
  return {
    missing: a.missing && b.missing,
    one: (value) => a.one(value) && b.one(value),
    many: (reach) => a.many(reach) && b.many(reach),
  };
}

const NEVER: Leaf = { missing: false, one: () => false, many: () => false };

function boundLeaf(bound: RangeBound, side: "lower" | "upper", fieldKind: FieldKind): Leaf {
  if (bound.operand.type !== "null") return existential(boundTest(bound, side, fieldKind), false);
  return bound.inclusive ? existential((value) => value === null, true) : NEVER;
}

/** Builds the leaf semantics of a field node (docs/semantics.md 1.5; the reference's `evaluateField`). */
function leafOf(node: FieldNode): Leaf {
  const kind = node.fieldKind;
  switch (node.kind) {
    case "eq":
      return existential(equalsTest(node.operand, kind), node.operand.type === "null");
    case "ne":
      return negate(leafOf({ ...node, kind: "eq" }));
    case "in":
      return existential(
        membershipTest(node.operands, kind),
        node.operands.some((o) => o.type === "null"),
      );
    case "nin":
      return negate(leafOf({ ...node, kind: "in", fromPipe: false }));
    case "all": {
      if (node.operands.length === 0) return NEVER;
      return node.operands
        .map((operand) => leafOf({ kind: "eq", path: node.path, fieldKind: kind, operand }))
        .reduce(both);
    }
    case "range": {
      const lower = node.lower === undefined ? undefined : boundLeaf(node.lower, "lower", kind);
      const upper = node.upper === undefined ? undefined : boundLeaf(node.upper, "upper", kind);
      if (lower !== undefined && upper !== undefined) return both(lower, upper);
      return lower ?? upper ?? { missing: true, one: () => true, many: () => true };
    }
    case "regex": {
      const matcher = compileRegex(node.source, node.flags);
      return existential((value) => typeof value === "string" && matcher.test(value), false);
    }
    case "exists": {
      const exists = node.exists;
      return {
        missing: !exists,
        one: () => exists,
        many: (reach) => exists === reach.values.length + reach.whole.length > 0,
      };
    }
    case "size": {
      const size = node.size;
      const one: ValueTest = (value) => isArray(value) && value.length === size;
      return { missing: false, one, many: (reach) => someOf(reach.values, one) || someOf(reach.whole, one) };
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

/** The first segments of the field paths of a condition, each once, in a fixed order (field slots). */
function fieldsOf(condition: Condition, out: Map<string, number> = new Map()): Map<string, number> {
  switch (condition.kind) {
    case "and":
    case "or":
    case "nor":
      for (const child of condition.children) fieldsOf(child, out);
      return out;
    case "not":
      return fieldsOf(condition.child, out);
    default: {
      const key = condition.path[0]!;
      if (!out.has(key)) out.set(key, out.size);
      return out;
    }
  }
}

/** The dotted field paths of a condition (joined by NUL), each once, in a fixed order (path slots). */
function dottedPathsOf(condition: Condition, out: Map<string, number> = new Map()): Map<string, number> {
  switch (condition.kind) {
    case "and":
    case "or":
    case "nor":
      for (const child of condition.children) dottedPathsOf(child, out);
      return out;
    case "not":
      return dottedPathsOf(condition.child, out);
    default: {
      const key = condition.path.join("\0");
      if (condition.path.length > 1 && !out.has(key)) out.set(key, out.size);
      return out;
    }
  }
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

/** Marks a field slot not read yet in this evaluation. */
const UNREAD: unique symbol = Symbol("unread");
/** Marks a field slot whose read threw (the field counts as missing). */
const THREW: unique symbol = Symbol("threw");

/**
 * A test over a record and its field slots: `slots[i]` holds the value of the `i`-th first segment
 * (`fieldsOf`) once read (`undefined` when missing), or `UNREAD`. Each field is read at most once per
 * evaluation, through `readOwn` (docs/semantics.md 1.1).
 */
type RecordTest = (record: object, slots: unknown[]) => boolean;

function slotReader(key: string, slot: number): (record: object, slots: unknown[]) => unknown {
  return (record, slots) => {
    let value = slots[slot];
    if (value === UNREAD) {
      value = readOwn(record, key);
      slots[slot] = value;
    }
    return value;
  };
}

/** The slots of a condition: one per first segment, then one per dotted path (its `Reach`). */
interface Slots {
  readonly fields: ReadonlyMap<string, number>;
  readonly paths: ReadonlyMap<string, number>;
}

function closureLeaf(node: FieldNode, slotsOf: Slots): RecordTest {
  const { missing, one, many } = leafOf(node);
  const key = node.path[0]!;
  const read = slotReader(key, slotsOf.fields.get(key)!);
  if (node.path.length === 1) {
    return (record, slots) => {
      const value = read(record, slots);
      return value === undefined ? missing : one(value);
    };
  }
  // A dotted path is walked once per evaluation (its nested values read once), whatever leaves use it.
  const rest = node.path.slice(1);
  const slot = slotsOf.fields.size + slotsOf.paths.get(node.path.join("\0"))!;
  return (record, slots) => {
    let reach = slots[slot] as Reach | typeof UNREAD;
    if (reach === UNREAD) {
      reach = walkRest(read(record, slots), rest);
      slots[slot] = reach;
    }
    return many(reach);
  };
}

function closureNode(node: Condition, fields: Slots): RecordTest {
  const build = (child: Condition) => closureNode(child, fields);
  switch (node.kind) {
    case "and": {
      const children = ordered(node.children).map(build);
      if (children.length === 0) return () => true;
      if (children.length === 1) return children[0]!;
      if (children.length === 2) {
        const [a, b] = children as [RecordTest, RecordTest];
        return (record, slots) => a(record, slots) && b(record, slots);
      }
      return (record, slots) => {
        for (const child of children) if (!child(record, slots)) return false;
        return true;
      };
    }
    case "or": {
      const children = ordered(node.children).map(build);
      if (children.length === 1) return children[0]!;
      return (record, slots) => {
        for (const child of children) if (child(record, slots)) return true;
        return false;
      };
    }
    case "nor": {
      const children = ordered(node.children).map(build);
      return (record, slots) => {
        for (const child of children) if (child(record, slots)) return false;
        return true;
      };
    }
    case "not": {
      const child = build(node.child);
      return (record, slots) => !child(record, slots);
    }
    default:
      return closureLeaf(node, fields);
  }
}

/** The closure test of a whole condition and its slots (the closure back end's predicate body). */
function closureTest(condition: Condition): { test: RecordTest; slots: Slots; count: number } {
  const slots: Slots = { fields: fieldsOf(condition), paths: dottedPathsOf(condition) };
  return { test: closureNode(condition, slots), slots, count: slots.fields.size + slots.paths.size };
}

function freshSlots(count: number): unknown[] {
  const slots = new Array<unknown>(count);
  for (let i = 0; i < count; i++) slots[i] = UNREAD;
  return slots;
}

// ---------------------------------------------------------------------------------------------------------
// Code generation back end

/** Helpers handed to generated code (never built from input). */
const HELPERS = Object.freeze({
  isArray: Array.isArray,
  hasOwn,
  dateFieldMs,
  openFieldMs,
  isoUtcMs,
  UNREAD,
  THREW,
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
  /** Field slots (`fieldsOf`): slot `i` is the local `f<i>` and the mask bit `i`. */
  readonly fieldBits: ReadonlyMap<string, number>;
  /** Per field key: how many leaves read it (a read is cached in its slot when two or more). */
  private readonly fieldUses = new Map<string, number>();
  /** Dotted paths (joined by NUL): the local `p<j>` caches the path's `Reach` for one evaluation. */
  private readonly paths: ReadonlyMap<string, number>;
  /** Per field key: how many date leaves read it (a cache variable when two or more). */
  private readonly dateUses = new Map<string, number>();
  private readonly dateVars = new Map<string, string>();

  constructor(condition: Condition) {
    this.fieldBits = fieldsOf(condition);
    this.paths = dottedPathsOf(condition);
    this.countUses(condition);
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `K${this.constants.length - 1}`;
  }

  private countUses(node: Condition): void {
    if (node.kind === "and" || node.kind === "or" || node.kind === "nor") {
      for (const child of node.children) this.countUses(child);
    } else if (node.kind === "not") this.countUses(node.child);
    else this.fieldUses.set(node.path[0]!, (this.fieldUses.get(node.path[0]!) ?? 0) + 1);
  }

  /**
   * An expression that reads field `key` of `r` into `v` and returns it, at most once per evaluation: the
   * slot local `f<i>` keeps the value (or `THREW` while the read is under way, so that a throwing accessor is
   * known to the fallback). Read optimistically with `r[key]`; own-ness is verified afterwards where it
   * matters (see `verification`).
   */
  private read(key: string): string {
    const f = `f${this.fieldBits.get(key)!}`;
    const k = JSON.stringify(key);
    if ((this.fieldUses.get(key) ?? 0) < 2) return `(${f} = T, v = ${f} = r[${k}])`;
    return `(v = ${f} !== U ? ${f} : (${f} = T, ${f} = r[${k}]))`;
  }

  /** The declarations of the slot locals (before the `try`, so that the fallback sees them). */
  slotDeclarations(): string {
    const names = [...this.fieldBits.values()].map((i) => `f${i} = U`);
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  /** The declarations of the dotted-path locals. */
  pathDeclarations(): string {
    const names = [...this.paths.values()].map((j) => `p${j} = U`);
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  /** The slot locals as an array expression, for the fallback. */
  slotArray(): string {
    return `[${[...this.fieldBits.values()].map((i) => `f${i}`).join(", ")}]`;
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
    return this.fieldBits.get(key)!;
  }

  /** The masks' variable names and, per field, the verification statements for one direction. */
  verification(direction: "D" | "U"): string {
    const lines: string[] = [];
    for (const [key, bit] of this.fieldBits) {
      lines.push(
        `if ((m${direction}${Math.floor(bit / 30)} & ${1 << (bit % 30)}) !== 0 && !hasOwn(r, ${JSON.stringify(key)})) return slow(r, ${this.slotArray()});`,
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
    // Booleans and null bounds (open fields) are rare: their exact test is the leaf's own.
    if (type !== "date" && type !== "number" && type !== "string") return undefined;
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
      return `${left} ${op} ${this.constant(orderedValue(bound))}`;
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
        return `${i === 0 ? "(d = isoUtcMs(v))" : "d"} ${op} ${this.constant(orderedValue(bound))}`;
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
      const b = orderedValue(bound);
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
    const leaf = leafOf(node);
    const key = node.path[0]!;
    let one: string;
    let missing: boolean;
    if (node.path.length === 1) {
      one = this.one(node, leaf);
      missing = leaf.missing;
    } else {
      // A dotted path: the first segment is read here, the rest walked exactly (`walkRest`).
      // Walked once per evaluation (the local `p<j>`), whatever leaves use the path.
      const rest = node.path.slice(1);
      const p = `p${this.paths.get(node.path.join("\0"))!}`;
      const walk = this.constant((first: unknown) => walkRest(first, rest));
      one = `${this.constant(leaf.many)}(${p} === U ? (${p} = ${walk}(v)) : ${p})`;
      missing = leaf.many(NOTHING);
    }
    // Correcting a wrongly present value moves the leaf to `missing`; with its polarity that moves the
    // root down (D: to verify when the root is true) or up (U: when the root is false).
    const direction = missing === negative ? "D" : "U";
    const bit = this.bitOf(key);
    const mask = `m${direction}${Math.floor(bit / 30)}`;
    const flag = 1 << (bit % 30);
    const read = this.read(key);
    return missing
      ? `(${read} === undefined || ${one} || ((${mask} |= ${flag}), false))`
      : `(${read} !== undefined && ${one} && ((${mask} |= ${flag}), true))`;
  }
}

/** The value of a bound whose operand is a string, number or date (`undefined` for a `null` bound). */
function orderedValue(bound: RangeBound): string | number | boolean | undefined {
  return bound.operand.type === "null" ? undefined : bound.operand.value;
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
  const g = new Generator(condition);
  g.countDates(condition);
  const root = g.node(condition, false);
  // Replaced per predicate: the exact closure test over the slots read so far, for the rare record with an
  // inherited field or a throwing accessor (`makeCodegen`).
  const slow = g.constant(null);
  const emptyResult = g.constant(null);
  const constantNames = g.constants.map((_, i) => `K${i} = K[${i}]`);
  const source = [
    '"use strict";',
    "const isArray = H.isArray, hasOwn = H.hasOwn, dateFieldMs = H.dateFieldMs, openFieldMs = H.openFieldMs, isoUtcMs = H.isoUtcMs, U = H.UNREAD, T = H.THREW;",
    constantNames.length === 0 ? "" : `const ${constantNames.join(", ")};`,
    `const slow = ${slow};`,
    "return function predicate(r) {",
    `if (typeof r !== "object" || r === null || isArray(r)) return ${emptyResult};`,
    g.slotDeclarations(),
    "try {",
    "let v, d;",
    g.maskDeclarations(),
    g.dateDeclarations(),
    g.pathDeclarations(),
    `const root = ${root};`,
    `if (root) { if (${g.maskTest("D")}) { ${g.verification("D")} } }`,
    `else if (${g.maskTest("U")}) { ${g.verification("U")} }`,
    "return root;",
    `} catch { return slow(r, ${g.slotArray()}); }`,
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

/** The result for a value that is not a record (read as an empty record). */
function emptyResultOf(test: RecordTest, count: number): boolean {
  return test(Object.create(null) as object, freshSlots(count));
}

/**
 * The exact fallback of generated code: the closure test, over the slots the generated code already read
 * (a value read from an inherited property becomes missing; a read that threw is missing; an unread slot
 * is read by the closure test). Every field is thus read at most once per evaluation.
 */
function fallback(
  test: RecordTest,
  slotsOf: Slots,
  count: number,
): (record: object, read: unknown[]) => boolean {
  const keys = [...slotsOf.fields.keys()];
  return (record, read) => {
    try {
      const slots = freshSlots(count);
      read.forEach((value, i) => {
        if (value !== UNREAD) slots[i] = value === THREW || !hasOwn(record, keys[i]!) ? undefined : value;
      });
      return test(record, slots);
    } catch {
      return false; // only a Proxy whose traps throw reaches here (outside the guarantee, see `compile`)
    }
  };
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
  const { test, slots, count } = closureTest(condition);
  const k = constants.slice();
  const slowIndex = constants.length - 2;
  k[slowIndex] = fallback(test, slots, count);
  k[slowIndex + 1] = emptyResultOf(test, count);
  return () => factory(k, HELPERS);
}

function makeClosure(condition: Condition): CacheEntry["make"] {
  const { test, count } = closureTest(condition);
  const emptyResult = emptyResultOf(test, count);
  return () => (incident) => {
    if (typeof incident !== "object" || incident === null || Array.isArray(incident)) return emptyResult;
    try {
      return test(incident, freshSlots(count));
    } catch {
      return false; // only a Proxy whose traps throw reaches here (outside the guarantee, see `compile`)
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
 * Compiles a condition into a predicate that agrees with `evaluate` on every input (docs/semantics.md 1.5),
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
