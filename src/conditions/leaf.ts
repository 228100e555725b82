/**
 * Leaf semantics shared by the fast paths: the compiled predicate's closures and its code generator
 * (compile.ts, codegen.ts), and the incident set's planner, which decides a field node once per distinct
 * stored value (`leafSemantics`). They all agree with the reference interpreter (`evaluate`,
 * docs/semantics.md 1.5), which shares nothing with this module, so that the differential tests compare two
 * independent implementations.
 *
 * Also here: how the fast paths read records (docs/semantics.md 1.1: own properties, data or accessor, a
 * throwing read is missing, inherited properties never count), the field slots of a condition, and the
 * static cost order of AND/OR children.
 */

import {
  assertNever,
  type BitTest,
  type Condition,
  type ElementOperators,
  type FieldKind,
  type FieldNode,
  isFieldNode,
  type JsonType,
  type LogicalNode,
  type Operand,
  type OrderedOperand,
  type RangeBound,
} from "./ast.js";
import { dateFieldMs, recordDateValue } from "./dates.js";
import { compileRegex } from "./regex/matcher.js";

// ---------------------------------------------------------------------------------------------------------
// Dates

/** A record value in a non-date field as epoch ms: only a valid JS `Date` counts; `NaN` otherwise. */
export function openFieldMs(value: unknown): number {
  if (!(value instanceof Date)) return Number.NaN;
  const ms = recordDateValue(value);
  return ms === undefined ? Number.NaN : ms;
}

/** The date reader for a field kind (docs/semantics.md 1.5). */
export function dateReader(fieldKind: FieldKind): (value: unknown) => number {
  return fieldKind === "date" ? dateFieldMs : openFieldMs;
}

// ---------------------------------------------------------------------------------------------------------
// Reading records (docs/semantics.md 1.1): own properties, data or accessor; a throwing read is missing

/** `Object.hasOwn`, captured once (a later change to `Object` cannot reach the fast paths). */
export const hasOwn = Object.hasOwn;
/** `Array.isArray`, captured once. */
export const isArray = Array.isArray;

/** Marks a field slot not read yet in this evaluation. */
export const UNREAD: unique symbol = Symbol("unread");
/** Marks a field slot whose read threw (the field counts as missing). */
export const THREW: unique symbol = Symbol("threw");

/**
 * An own property of a holder (data or accessor), `undefined` when it is inherited, absent, holds
 * `undefined`, or its read throws. The exact reader of the closure back end and of nested path segments.
 */
export function readOwn(holder: object, key: string): unknown {
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
export interface Reach {
  readonly values: readonly unknown[];
  readonly whole: readonly unknown[];
  readonly missing: boolean;
}

/** What a dotted path reaches from a missing first segment. */
export const NOTHING: Reach = Object.freeze({ values: [], whole: [], missing: true });

// ---------------------------------------------------------------------------------------------------------
// The walk of a dotted path: linear, and stoppable by a search's time budget (docs/semantics.md 1.7)

/**
 * What a dotted-path walk charges a search's time budget: one tick (one record's worth) per this many
 * values examined. A value examined costs about as much as a short record's check (an own-property read
 * under a guard), so a walk alone reads the clock at least every 1,024 × 256 = 262,144 values.
 */
export const WALK_STEPS_PER_TICK = 256;

/** The part of a search's `BudgetTimer` a walk uses: `tick()` counts one record and may throw. */
export interface WalkBudget {
  tick(): void;
}

/** The budget of the search under way (`underWalkBudget`), if any. */
let walkBudget: WalkBudget | undefined;
/** What the budget threw during the search under way: every later walk step throws it again. */
let walkStop: { readonly error: unknown } | undefined;
/** Values a walk may still examine before it charges the budget a tick. */
let walkCredit = WALK_STEPS_PER_TICK;

/**
 * Runs a search with its budget charged by every dotted-path walk of the fast paths, every traversal of an
 * array at the end of a path and every element `$elemMatch` tries (docs/semantics.md 1.7,
 * "Time budget of a search over a collection"): a walk ticks `budget` once per `WALK_STEPS_PER_TICK` values
 * it examines, so a single record's walk can be stopped. When `tick` throws, the error leaves the predicate
 * (whose own guards otherwise answer a throwing read as missing), and every walk step after it throws it
 * again until `run` returns. Synchronous: the budget is in force only while `run` runs (nested calls
 * restore the outer budget).
 * @param budget - the search's timer (`BudgetTimer` of search-budget.ts)
 * @param run - the search
 * @returns what `run` returns
 * @throws whatever `budget.tick` or `run` throws
 */
export function underWalkBudget<T>(budget: WalkBudget, run: () => T): T {
  const outerBudget = walkBudget;
  const outerStop = walkStop;
  walkBudget = budget;
  walkStop = undefined;
  try {
    return run();
  } finally {
    walkBudget = outerBudget;
    walkStop = outerStop;
  }
}

/**
 * Throws again what the search's budget threw during a walk, if it did: the first thing a guard that
 * catches every error (the predicates' `catch`) does, so that a stopped search is not answered as a miss.
 */
export function rethrowWalkStop(): void {
  if (walkStop !== undefined) throw walkStop.error;
}

/** Charges the budget one tick (`WALK_STEPS_PER_TICK` values examined). */
function chargeWalk(): void {
  walkCredit = WALK_STEPS_PER_TICK;
  if (walkStop !== undefined) throw walkStop.error;
  if (walkBudget === undefined) return;
  try {
    walkBudget.tick();
  } catch (error) {
    walkStop = { error };
    throw error;
  }
}

/**
 * `values` with each object kept once (its first occurrence; order kept); scalars all kept. The list itself
 * when it holds no object twice.
 */
function distinct(values: unknown[]): unknown[] {
  if (values.length < 2) return values;
  let first: unknown;
  let seen: Set<unknown> | undefined;
  let out: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === "object" && value !== null) {
      if (first === undefined) first = value;
      else {
        seen ??= new Set([first]);
        if (seen.has(value)) {
          out ??= values.slice(0, i);
          continue;
        }
        seen.add(value);
      }
    }
    out?.push(value);
  }
  return out ?? values;
}

/**
 * Walks the segments after the first from the first segment's value (`undefined`: missing). Every place
 * that reaches nothing sets `missing`: a scalar or `null` holder, an object without the key, an empty
 * array, an array element that is not an object. Nested arrays are not entered.
 *
 * Each value is examined at most once per segment, however many routes reach it (docs/semantics.md 1.7,
 * "The walk of a dotted path"): a numeric segment both indexes an array and reads the field of each of its
 * elements, so without this the routes of `[{"0": [{"0": …}]}]` under `0.0.0…` double every level or two.
 * Each segment's values are kept once per object (`distinct`), the indexed values of the last segment (the
 * `whole` ones, tested without traversal) apart from the others. The walk thus costs at most the size of the
 * record times the length of the path, and charges the search's budget as it goes (`underWalkBudget`).
 * @throws only what the search's budget throws (`underWalkBudget`)
 */
export function walkRest(first: unknown, rest: readonly string[]): Reach {
  if (first === undefined) return NOTHING;
  let current: unknown[] = [first];
  let whole: unknown[] | undefined;
  let missing = false;
  for (let s = 0; s < rest.length; s++) {
    const segment = rest[s]!;
    const last = s === rest.length - 1;
    const next: unknown[] = [];
    for (const value of current) {
      if (--walkCredit <= 0) chargeWalk();
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
        if (--walkCredit <= 0) chargeWalk();
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
    current = distinct(next);
  }
  return { values: current, whole: whole === undefined ? [] : distinct(whole), missing };
}

// ---------------------------------------------------------------------------------------------------------
// Leaf semantics (shared by both back ends)

/** A test of one reached value (never `undefined`). */
export type ValueTest = (value: unknown) => boolean;

/**
 * The semantics of one field node, in three forms that agree with `evaluate` (and `many(NOTHING)` is always
 * `missing`):
 * - `many(reach)`: what a dotted path reaches (`walkRest`), with its missing places;
 * - `one(value)`: exactly one reached value (a single-segment path), `undefined` never passed;
 * - `missing`: the result when no value is reached.
 */
export interface Leaf {
  readonly missing: boolean;
  readonly one: ValueTest;
  readonly many: (reach: Reach) => boolean;
}

/**
 * True when some own element of the array satisfies `test`. Holes read as `undefined`, which no test
 * accepts; an element that passes is checked to be own (a polluted `Array.prototype` never counts).
 * Each element tested is a value examined, charged to the search's budget like a walk's (`underWalkBudget`):
 * the traversal at the end of a path is as long as the array, and a condition may traverse the same array
 * once per operand (`$all`, `$or`), so a single record's check would otherwise never read the clock.
 * @throws only what the search's budget throws (`underWalkBudget`)
 */
function someElement(array: readonly unknown[], test: ValueTest): boolean {
  try {
    // Charged after each run of at most `WALK_STEPS_PER_TICK` elements, so that the loop itself writes no
    // module state (a charge per element made `$all` of 10,000 values over 110,000 elements 1.5× slower).
    let i = 0;
    while (i < array.length) {
      const from = i;
      const end = i + WALK_STEPS_PER_TICK;
      for (; i < end && i < array.length; i++) {
        if (test(array[i]) && hasOwn(array, i)) {
          walkCredit -= i - from + 1;
          if (walkCredit <= 0) chargeWalk();
          return true;
        }
      }
      walkCredit -= i - from;
      if (walkCredit <= 0) chargeWalk();
    }
    return false;
  } catch {
    rethrowWalkStop(); // the search's budget stopped a walk, not an accessor
    // An element accessor threw: read every element exactly (a throwing one is a hole).
    for (let i = 0; i < array.length; i++) {
      if (--walkCredit <= 0) chargeWalk();
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

/** The test of one value for one `$type` (the reference's `hasType`, docs/semantics.md 1.3). */
function typeTest(type: JsonType, fieldKind: FieldKind): ValueTest {
  switch (type) {
    case "number":
      return (value) => typeof value === "number";
    case "string":
      return (value) => typeof value === "string";
    case "bool":
      return (value) => typeof value === "boolean";
    case "null":
      return (value) => value === null;
    case "array":
      return (value) => isArray(value);
    case "date": {
      const read = dateReader(fieldKind);
      return (value) => !Number.isNaN(read(value));
    }
    case "object":
      return (value) =>
        typeof value === "object" && value !== null && !isArray(value) && !(value instanceof Date);
    default:
      return assertNever(type);
  }
}

/** The smallest integer that is not a 64-bit integer (`$mod` dividends must be below it in magnitude). */
const INT64_END = 2 ** 63;

/** The `$mod` test of one value (the reference's `modMatches`). */
function modTest(divisor: number, remainder: number): ValueTest {
  return (value) => {
    if (typeof value !== "number") return false;
    const t = Math.trunc(value);
    // NaN and the infinities fail the range test.
    return t >= -INT64_END && t < INT64_END && t % divisor === remainder;
  };
}

/**
 * The bit test of one value (the reference's `bitsMatch`), on two 32-bit words: the mask of `positions` (a
 * position past 63 is the sign bit) against the two's complement of an integer from -2^63 to 2^63 - 1.
 */
function bitsTest(test: BitTest, positions: readonly number[]): ValueTest {
  let maskLow = 0;
  let maskHigh = 0;
  for (const position of positions) {
    const bit = Math.min(position, 63);
    if (bit < 32) maskLow |= 1 << bit;
    else maskHigh |= 1 << (bit - 32);
  }
  const wordTest = BIT_WORD_TESTS[test];
  return (value) => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < -INT64_END || value >= INT64_END) {
      return false;
    }
    // Exact on doubles: the high word is a power-of-two scaling, the low word the difference below 2^32.
    const high = Math.floor(value / 2 ** 32);
    const low = value - high * 2 ** 32;
    return wordTest(low | 0, high | 0, maskLow, maskHigh);
  };
}

/** Each bit test on the two words of a value and of a mask (signed 32-bit words). */
const BIT_WORD_TESTS: Readonly<
  Record<BitTest, (low: number, high: number, mLow: number, mHigh: number) => boolean>
> = {
  allSet: (low, high, mLow, mHigh) => (low & mLow) === mLow && (high & mHigh) === mHigh,
  anySet: (low, high, mLow, mHigh) => (low & mLow) !== 0 || (high & mHigh) !== 0,
  allClear: (low, high, mLow, mHigh) => (low & mLow) === 0 && (high & mHigh) === 0,
  anyClear: (low, high, mLow, mHigh) => (low & mLow) !== mLow || (high & mHigh) !== mHigh,
};

/** No reached values (the operator form of `$elemMatch` tests one element as a whole). */
const NO_VALUES: readonly unknown[] = Object.freeze([]);

/**
 * The operator form of `$elemMatch` on one present element: each operator's leaf on a reach of that element
 * alone, as a whole (no traversal, never missing).
 */
function elementTest(operators: ElementOperators): ValueTest {
  switch (operators.kind) {
    case "and": {
      const tests = operators.children.map(elementTest);
      return (value) => {
        for (const test of tests) if (!test(value)) return false;
        return true;
      };
    }
    case "not": {
      const test = elementTest(operators.child);
      return (value) => !test(value);
    }
    default: {
      const { many } = leafOf(operators);
      return (value) => many({ values: NO_VALUES, whole: [value], missing: false });
    }
  }
}

/** A test of a record (or of an `$elemMatch` element), given the slots of the fields it read (`UNREAD`). */
export type SlotTest<T> = (subject: T, slots: unknown[]) => boolean;

/**
 * A logical node as a closure over its children's tests, children cheapest first (`ordered`): `and` holds
 * when every child does (no children: always), `or` when one does, `nor` when none does, `not` when its child
 * does not (docs/semantics.md 1.3).
 * @param build - the test of a child
 */
export function logicalTest<T>(node: LogicalNode, build: (child: Condition) => SlotTest<T>): SlotTest<T> {
  switch (node.kind) {
    case "and": {
      const children = ordered(node.children).map(build);
      if (children.length === 0) return () => true;
      if (children.length === 1) return children[0]!;
      if (children.length === 2) {
        const [a, b] = children as [SlotTest<T>, SlotTest<T>];
        return (subject, slots) => a(subject, slots) && b(subject, slots);
      }
      return (subject, slots) => {
        for (const child of children) if (!child(subject, slots)) return false;
        return true;
      };
    }
    case "or": {
      const children = ordered(node.children).map(build);
      if (children.length === 1) return children[0]!;
      return (subject, slots) => {
        for (const child of children) if (child(subject, slots)) return true;
        return false;
      };
    }
    case "nor": {
      const children = ordered(node.children).map(build);
      return (subject, slots) => {
        for (const child of children) if (child(subject, slots)) return false;
        return true;
      };
    }
    case "not": {
      const child = build(node.child);
      return (subject, slots) => !child(subject, slots);
    }
    default:
      return assertNever(node);
  }
}

/**
 * The query form of `$elemMatch` on one element that is an object: the sub-condition over the element as a
 * document (an array's own keys are its indexes), each of its fields read at most once per call.
 */
function documentTest(condition: Condition): (element: object) => boolean {
  const { fields } = slotsOf(condition);
  const count = fields.size;
  const test = (node: Condition): SlotTest<object> => {
    if (!isFieldNode(node)) return logicalTest(node, test);
    const leaf = leafOf(node);
    const key = node.path[0]!;
    const slot = fields.get(key)!;
    const rest = node.path.slice(1);
    return (element, slots) => {
      let first = slots[slot];
      if (first === UNREAD) {
        // An array is a document of its indexes: no other own key (`length`) is a field of it.
        first = isArray(element) && !INDEX_SEGMENT.test(key) ? undefined : readOwn(element, key);
        slots[slot] = first;
      }
      if (first === undefined) return leaf.missing;
      return rest.length === 0 ? leaf.one(first) : leaf.many(walkRest(first, rest));
    };
  };
  const root = test(condition);
  return (element) => {
    const slots = new Array<unknown>(count).fill(UNREAD);
    return root(element, slots);
  };
}

/** The leaf of `$elemMatch`: some reached array (not traversed further) holds a matching element. */
function elemMatchLeaf(node: Extract<FieldNode, { kind: "elemMatch" }>): Leaf {
  const { match } = node;
  let element: ValueTest;
  if (match.form === "query") {
    const document = documentTest(match.condition);
    // Objects and arrays only: a JS `Date` stands for a BSON date, no document (docs/semantics.md 1.3).
    element = (value) =>
      typeof value === "object" && value !== null && !(value instanceof Date) && document(value);
  } else element = elementTest(match.operators);
  const one: ValueTest = (value) => {
    if (!isArray(value)) return false;
    const n = value.length;
    for (let i = 0; i < n; i++) {
      // Each element is a value examined, charged to the search's budget (see `someElement`).
      if (--walkCredit <= 0) chargeWalk();
      // A hole, or an element holding `undefined`, is no element.
      const item = readOwn(value, String(i));
      if (item !== undefined && element(item)) return true;
    }
    return false;
  };
  return { missing: false, one, many: (reach) => someOf(reach.values, one) || someOf(reach.whole, one) };
}

/** One builder per field node kind: a new kind is a compile error here until it has its semantics. */
type LeafBuilders = { readonly [K in FieldNode["kind"]]: (node: Extract<FieldNode, { kind: K }>) => Leaf };

/** The leaf semantics of each field node kind (docs/semantics.md 1.5; the reference's `evaluateField`). */
const LEAVES: LeafBuilders = {
  eq: (node) => existential(equalsTest(node.operand, node.fieldKind), node.operand.type === "null"),
  ne: (node) => negate(LEAVES.eq({ ...node, kind: "eq" })),
  in: (node) =>
    existential(
      membershipTest(node.operands, node.fieldKind),
      node.operands.some((o) => o.type === "null"),
    ),
  nin: (node) => negate(LEAVES.in({ ...node, kind: "in", fromPipe: false })),
  all: (node) => {
    if (node.operands.length === 0) return NEVER;
    return node.operands
      .map((operand) => LEAVES.eq({ kind: "eq", path: node.path, fieldKind: node.fieldKind, operand }))
      .reduce(both);
  },
  range: (node) => {
    const lower = node.lower === undefined ? undefined : boundLeaf(node.lower, "lower", node.fieldKind);
    const upper = node.upper === undefined ? undefined : boundLeaf(node.upper, "upper", node.fieldKind);
    if (lower !== undefined && upper !== undefined) return both(lower, upper);
    return lower ?? upper ?? { missing: true, one: () => true, many: () => true };
  },
  regex: (node) => {
    const matcher = compileRegex(node.source, node.flags);
    return existential((value) => typeof value === "string" && matcher.test(value), false);
  },
  exists: (node) => {
    const exists = node.exists;
    return {
      missing: !exists,
      one: () => exists,
      many: (reach) => exists === reach.values.length + reach.whole.length > 0,
    };
  },
  size: (node) => {
    const size = node.size;
    const one: ValueTest = (value) => isArray(value) && value.length === size;
    return { missing: false, one, many: (reach) => someOf(reach.values, one) || someOf(reach.whole, one) };
  },
  type: (node) => {
    const tests = node.types.map((type) => typeTest(type, node.fieldKind));
    const [only] = tests;
    return existential(
      tests.length === 1 && only !== undefined ? only : (value) => tests.some((test) => test(value)),
      false,
    );
  },
  mod: (node) => existential(modTest(node.divisor, node.remainder), false),
  bits: (node) => existential(bitsTest(node.test, node.positions), false),
  elemMatch: elemMatchLeaf,
};

/**
 * The leaf semantics of a field node in its three forms (see `Leaf`), agreeing with `evaluate`.
 * @throws {RegexSyntaxError} for a hand-built `$regex` that RE2 refuses (never for a parsed condition)
 */
export function leafOf(node: FieldNode): Leaf {
  return (LEAVES[node.kind] as (node: FieldNode) => Leaf)(node);
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

/**
 * Calls `visit` on every field node of a condition, depth first, children in their order. The one walk of
 * the fast paths over a whole condition (slots, date reads, cache weight): a new node kind is a compile error
 * here.
 */
export function forEachField(condition: Condition, visit: (node: FieldNode) => void): void {
  // An `$elemMatch`'s own operators and sub-condition are about its elements, not about the record.
  if (isFieldNode(condition)) visit(condition);
  else if (condition.kind === "not") forEachField(condition.child, visit);
  else for (const child of condition.children) forEachField(child, visit);
}

/**
 * The result of a condition on a record that has no fields (every field missing): what a predicate answers
 * for a value that is not a non-array object (docs/semantics.md 1.1).
 * @param condition - a condition
 * @param missingOf - a field node's result on a missing field (default: its leaf's `missing`; a caller
 *   that already built the leaves passes them)
 */
export function emptyRecordResult(
  condition: Condition,
  missingOf: (node: FieldNode) => boolean = (node) => leafOf(node).missing,
): boolean {
  const empty = (node: Condition): boolean => {
    if (isFieldNode(node)) return missingOf(node);
    switch (node.kind) {
      case "and":
        return node.children.every(empty);
      case "or":
        return node.children.some(empty);
      case "nor":
        return !node.children.some(empty);
      case "not":
        return !empty(node.child);
      default:
        return assertNever(node);
    }
  };
  return empty(condition);
}

/**
 * The field slots of a condition: the first segments of its field paths (`fields`, each once, in order of
 * first use) and its dotted paths joined by NUL (`paths`, each once). A slot holds what one evaluation read.
 */
export interface Slots {
  readonly fields: ReadonlyMap<string, number>;
  readonly paths: ReadonlyMap<string, number>;
}

/** The slots of a condition (see `Slots`). */
export function slotsOf(condition: Condition): Slots {
  const fields = new Map<string, number>();
  const paths = new Map<string, number>();
  forEachField(condition, (node) => {
    const key = node.path[0]!;
    if (!fields.has(key)) fields.set(key, fields.size);
    if (node.path.length > 1) {
      const path = node.path.join("\0");
      if (!paths.has(path)) paths.set(path, paths.size);
    }
  });
  return { fields, paths };
}

/** The static cost of a single-segment field node, per kind (before the date and nesting surcharges). */
const FIELD_COST = {
  exists: () => 1,
  // `$ne`/`$nin` after the positive tests: they reject few records, so a positive test before them decides
  // an AND sooner.
  eq: () => 2,
  size: () => 2,
  in: () => 3,
  range: () => 3,
  ne: () => 4,
  nin: () => 5,
  all: () => 6,
  type: () => 2,
  mod: () => 3,
  bits: () => 3,
  elemMatch: (node) =>
    10 + (node.match.form === "query" ? costOf(node.match.condition) : costOf(node.match.operators)),
  regex: (node) => {
    const literal = compileRegex(node.source, node.flags).literal;
    return literal === undefined ? 40 : literal.ignoreCase ? 12 : 8;
  },
} satisfies { readonly [K in FieldNode["kind"]]: (node: Extract<FieldNode, { kind: K }>) => number };

/**
 * A static cost estimate used to order AND/OR children cheapest first (regular expressions last): it
 * never changes the answer, since every test is total and side-effect free.
 */
function costOf(node: Condition): number {
  if (isFieldNode(node)) {
    const nested = node.path.length > 1 ? 20 : 0;
    const date = node.fieldKind === "date" && node.kind !== "exists" && node.kind !== "regex" ? 3 : 0;
    return (FIELD_COST[node.kind] as (node: FieldNode) => number)(node) + date + nested;
  }
  return node.kind === "not"
    ? costOf(node.child)
    : node.children.reduce((sum, child) => sum + costOf(child), 1);
}

/** Children ordered cheapest first (stable). */
export function ordered(children: readonly Condition[]): Condition[] {
  return children
    .map((child, index) => ({ child, index, cost: costOf(child) }))
    .sort((a, b) => a.cost - b.cost || a.index - b.index)
    .map((entry) => entry.child);
}
