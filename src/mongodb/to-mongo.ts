/**
 * Translation of a parsed Search Conditions AST to a MongoDB filter document that means exactly what
 * `evaluate` means (docs/semantics.md section 1), so that a server implementation can push a condition down to
 * a MongoDB cluster (sharded or not) instead of loading incidents into memory.
 *
 * Search Conditions follow MongoDB 9.0's semantics (docs/semantics.md 1.5), so most operators translate as
 * they are: `null` equality (also inside `$in`, `$nin`, `$ne`, `$all` and as an inclusive range bound) is
 * MongoDB's own `null`, numeric path segments are MongoDB's, `$not` inside `$not` is MongoDB's. Where
 * MongoDB's implicit semantics differ from ours, the filter spells our meaning out:
 * - `$all`: written as the AND of equalities (its MongoDB definition), which every engine reads alike.
 * - Dates: `$date` operands become `Date` objects. A catalogue date field stored as ISO-8601 strings
 *   (`dateStorage: "string"`) is compared lexically with the operand's string forms, minding that
 *   `…:00Z` and `…:00.000Z` are the same instant and that an invalid string is not a date.
 * - Regular expressions are rewritten from RE2 syntax to patterns that mean the same in MongoDB's PCRE
 *   (and, where the syntax allows, in JavaScript): `$` is the very end of the value, `.` excludes only
 *   `\n`, `\s` is `[\t\n\f\r ]`; literal patterns are re-emitted escaped, and an exact literal
 *   (`^Closed$`) becomes an equality that an index can serve.
 *
 * Known differences that a filter cannot remove are listed in docs/mongodb.md.
 * Pure: no I/O, no clock; `Date` objects are built from operand values only.
 */

import {
  type Condition,
  type ElementOperators,
  type FieldNode,
  type FieldTarget,
  type JsonType,
  type Operand,
  operandValue,
  type RangeBound,
} from "../conditions/ast.js";
import { ID_FIELD, isForbiddenSegment, ORDER_FIELD } from "../conditions/catalog.js";
import { MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "../conditions/dates.js";
import { bitsOperator, boundOperator } from "../conditions/operators.js";
import { requireParsedCondition } from "../conditions/parse.js";
import { analyzeLiteral } from "../conditions/regex/matcher.js";
import { toMongoRegex } from "./regex-dialect.js";

/** A MongoDB filter document (the `filter` of `find`, `findOne`, `countDocuments`, `$match`). */
export type MongoFilter = { [key: string]: unknown };

/** A MongoDB sort document: field path → 1 (ascending) or -1 (descending), in priority order. */
export type MongoSort = { readonly [key: string]: 1 | -1 };

/**
 * How a catalogue date field (`CreatedUtcTime` by default) is stored in the collection:
 * - `"date"`: BSON dates (the default; what the MongoDB drivers write for a JS `Date`);
 * - `"string"`: ISO-8601 UTC strings of the format `yyyy-MM-ddTHH:mm:ssZ` or `yyyy-MM-ddTHH:mm:ss.SSSZ`
 *   (both forms may be mixed).
 * Open fields compared with a `$date` operand are always BSON dates (only a JS `Date` is a date there,
 * docs/semantics.md 1.5).
 */
export type DateStorage = "date" | "string";

/** Options of `toMongoFilter` and `toMongoFind`. */
export interface ToMongoOptions {
  /** How catalogue date fields are stored (default `"date"`). See `DateStorage`. */
  readonly dateStorage?: DateStorage;
  /**
   * Field paths of the Search Conditions → field paths in the collection, e.g.
   * `{ Number: "incidentNo", Custom: "custom" }`. The longest mapped prefix of a path (by whole segments)
   * is replaced: with `{ Custom: "custom" }`, `Custom.Owner` becomes `custom.Owner`. Unmapped paths are
   * kept. Also applies to the sort fields `CreatedUtcTime` and `IncidentId`.
   */
  readonly fieldMap?: Readonly<Record<string, string>>;
}

/** One query of the plan of `toMongoFind`: `collection.findOne(filter, { sort })`. */
export interface MongoQuery {
  readonly filter: MongoFilter;
  readonly sort: MongoSort;
}

/**
 * The MongoDB form of "the first matching incident" (docs/semantics.md 1.9), from `toMongoFind`.
 * - `filter`, `sort`: every matching incident, sorted by `CreatedUtcTime` then `IncidentId`. MongoDB's
 *   sort puts incidents whose `CreatedUtcTime` is missing, `null` or not a date *before* the dated ones,
 *   so this pair alone is the 1.9 order only when every incident has a valid `CreatedUtcTime`.
 * - `dated`, `undated`: the exact plan. `dated` matches the incidents of `filter` that have a valid
 *   `CreatedUtcTime` (a BSON date, or with `dateStorage: "string"` a valid ISO string), sorted by it then
 *   `IncidentId`; `undated` matches the others, sorted by `IncidentId`. The first incident is the first of
 *   `dated`, or when there is none the first of `undated`. Both are served by the indexes
 *   `{CreatedUtcTime: 1, IncidentId: 1}` and `{IncidentId: 1}`. `firstMatchingIncident` runs this plan.
 */
export interface MongoFind extends MongoQuery {
  readonly dated: MongoQuery;
  readonly undated: MongoQuery;
  /** The collection's field paths of the order keys (after `fieldMap`). */
  readonly fields: { readonly createdUtcTime: string; readonly incidentId: string };
  /** The date storage the plan was built for. */
  readonly dateStorage: DateStorage;
}

// ---------------------------------------------------------------------------------------------------------
// Field paths

interface Context {
  readonly dateStorage: DateStorage;
  readonly fieldMap: ReadonlyMap<string, string>;
}

function resolveOptions(options: ToMongoOptions | undefined): Context {
  const dateStorage = options?.dateStorage ?? "date";
  if (dateStorage !== "date" && dateStorage !== "string") {
    throw new TypeError(`Unknown dateStorage '${String(dateStorage)}': expected "date" or "string".`);
  }
  const fieldMap = new Map<string, string>();
  const raw = options?.fieldMap;
  if (raw !== undefined) {
    for (const key of Object.keys(raw)) {
      const value = Object.getOwnPropertyDescriptor(raw, key)?.value;
      if (typeof value !== "string") {
        throw new TypeError(`fieldMap['${key}'] must be a string field path, found ${typeof value}.`);
      }
      assertMongoPath(value.split("."), `fieldMap['${key}']`);
      fieldMap.set(key, value);
    }
  }
  return { dateStorage, fieldMap };
}

/**
 * Checks that segments can be written as a MongoDB field path: non-empty, no leading `$` (an operator),
 * no NUL (refused by BSON), none of `__proto__`, `prototype`, `constructor` (docs/semantics.md 1.1).
 */
function assertMongoPath(segments: readonly string[], what: string): void {
  for (const segment of segments) {
    if (segment === "" || segment.startsWith("$") || segment.includes("\0") || isForbiddenSegment(segment)) {
      throw new TypeError(`${what}: '${segments.join(".")}' cannot be written as a MongoDB field path.`);
    }
  }
}

/** The collection's field path of a Search Conditions field path, through the field map. */
function mongoPath(path: readonly string[], ctx: Context): string {
  assertMongoPath(path, "Field path");
  for (let n = path.length; n > 0; n--) {
    const mapped = ctx.fieldMap.get(path.slice(0, n).join("."));
    if (mapped !== undefined) return [mapped, ...path.slice(n)].join(".");
  }
  return path.join(".");
}

/** `{ [key]: value }` as an own data property whatever the key (never a prototype setter). */
function entry(key: string, value: unknown): MongoFilter {
  const out: MongoFilter = {};
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** A filter that matches no document in any engine: `$in` with no values. */
function nothing(key: string): MongoFilter {
  return entry(key, { $in: [] });
}

// ---------------------------------------------------------------------------------------------------------
// Dates stored as ISO-8601 strings

/**
 * A MongoDB/PCRE (and JavaScript) pattern that matches exactly the strings `parseIsoUtc` accepts:
 * `yyyy-MM-ddTHH:mm:ssZ` or `yyyy-MM-ddTHH:mm:ss.SSSZ` naming a real calendar date (leap years of the
 * Gregorian calendar, years 0000–9999). The end is `(?![\s\S])`, not `$`, which in PCRE also matches
 * before a final newline.
 */
export const ISO_UTC_PATTERN: string =
  "^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))" +
  "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)" +
  "T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{3})?Z(?![\\s\\S])";

/** The smallest and largest valid ISO strings, as lexical bounds that let an index bound the scan. */
const ISO_MIN = "0000-01-01T00:00:00.000Z";
const ISO_MAX = "9999-12-31T23:59:59Z";

/** The string forms of an instant: `[seconds prefix (19 chars), "SSS"]`, or undefined outside 0000–9999. */
function isoParts(ms: number): [string, string] | undefined {
  if (!(ms >= MIN_ISO_EPOCH_MS && ms <= MAX_ISO_EPOCH_MS)) return undefined;
  const iso = new Date(ms).toISOString();
  return [iso.slice(0, 19), iso.slice(20, 23)];
}

/** Every ISO string naming the instant `ms`: with milliseconds, and without when they are zero. */
function isoForms(ms: number): string[] {
  const parts = isoParts(ms);
  if (parts === undefined) return [];
  const [seconds, millis] = parts;
  return millis === "000" ? [`${seconds}Z`, `${seconds}.000Z`] : [`${seconds}.${millis}Z`];
}

/**
 * Values that satisfy every operator of `ops` *in the same value*: an array element (`$elemMatch`) or a
 * scalar. MongoDB applies the operators of one field object to an array independently, element by element.
 */
function sameValue(key: string, ops: MongoFilter): MongoFilter {
  return {
    $or: [entry(key, { $elemMatch: ops }), entry(key, { ...ops, $not: { $type: "array" } })],
  };
}

/**
 * One bound of a range on a catalogue date field stored as ISO strings. Lexical order equals time order
 * for valid strings of one form; across forms, `P Z` (no milliseconds) sorts after every `P.SSSZ` of the
 * same second `P` although it is the instant `P.000`. Derivation, for the bound instant `P.SSS`:
 * - `> T`  ⇔ `v > "P.SSSZ"` and `v ≠ "PZ"`;  `≥ T` ⇔ `v ≥ "P.SSSZ"` and (`SSS = 000` or `v ≠ "PZ"`);
 * - `< T`  ⇔ `v < "P.SSSZ"` or (`SSS ≠ 000` and `v = "PZ"`);  `≤ T` ⇔ `v ≤ "P.SSSZ"` or `v = "PZ"`;
 * and `v` must be a valid ISO string (`ISO_UTC_PATTERN`), checked in the same value.
 */
function stringDateBound(key: string, bound: RangeBound, side: "lower" | "upper"): MongoFilter {
  const parts = isoParts((bound.operand as { value: number }).value);
  const valid = { $regex: ISO_UTC_PATTERN };
  if (parts === undefined) {
    // Outside the years 0000–9999: every valid string is after an early bound, before a late one.
    const early = (bound.operand as { value: number }).value < MIN_ISO_EPOCH_MS;
    return (side === "lower") === early
      ? sameValue(key, { $gte: ISO_MIN, $lte: ISO_MAX, ...valid })
      : nothing(key);
  }
  const [seconds, millis] = parts;
  const exact = `${seconds}.${millis}Z`;
  const plain = `${seconds}Z`;
  if (side === "lower") {
    const ops: MongoFilter = bound.inclusive ? { $gte: exact } : { $gt: exact };
    ops.$lte = ISO_MAX;
    Object.assign(ops, valid);
    if (!(bound.inclusive && millis === "000")) ops.$ne = plain;
    return sameValue(key, ops);
  }
  const below = sameValue(key, {
    $gte: ISO_MIN,
    ...(bound.inclusive ? { $lte: exact } : { $lt: exact }),
    ...valid,
  });
  return bound.inclusive || millis !== "000" ? { $or: [below, entry(key, { $eq: plain })] } : below;
}

// ---------------------------------------------------------------------------------------------------------
// Operands and field nodes

/** The MongoDB value of an operand for equality (`$date` → `Date`). */
function mongoValue(operand: Operand): unknown {
  return operandValue(operand, (ms) => new Date(ms));
}

/** True when equality with this operand is on ISO strings (a date operand on a date field stored as strings). */
function isStringDate(
  target: FieldTarget,
  operand: Operand,
  ctx: Context,
): operand is Extract<Operand, { type: "date" }> {
  return operand.type === "date" && target.fieldKind === "date" && ctx.dateStorage === "string";
}

/**
 * Values for `$in` equal to `operand` (a string-stored date has two forms). `null` is MongoDB's own `null`
 * on every path: since MongoDB 9.0 (SERVER-36681) it matches a reached `null` and every place where a
 * dotted path reaches nothing, which is the rule of docs/semantics.md 1.5 (see `toMongoFilter` for older
 * servers).
 */
function inValues(target: FieldTarget, operand: Operand, ctx: Context): unknown[] {
  if (isStringDate(target, operand, ctx)) return isoForms(operand.value);
  return [mongoValue(operand)];
}

/**
 * The filter for "some reached value equals one of `operands`" (eq and `$in`), and, when it is a plain
 * `{key: {$in: values}}`, those values (so that `$ne`/`$nin` can use `$nin`).
 */
function membership(
  target: FieldTarget,
  operands: readonly Operand[],
  ctx: Context,
): { filter: MongoFilter; values?: unknown[] } {
  const key = mongoPath(target.path, ctx);
  const values: unknown[] = [];
  for (const operand of operands) values.push(...inValues(target, operand, ctx));
  if (values.length === 1) return { filter: entry(key, { $eq: values[0] }), values };
  return { filter: entry(key, { $in: values }), values };
}

/** The negation of a membership filter: `$nin` when it is plain, else `$nor`. */
function nonMembership(target: FieldTarget, operands: readonly Operand[], ctx: Context): MongoFilter {
  const { filter, values } = membership(target, operands, ctx);
  if (values === undefined) return { $nor: [filter] };
  const key = mongoPath(target.path, ctx);
  return values.length === 1 ? entry(key, { $ne: values[0] }) : entry(key, { $nin: values });
}

function rangeFilter(node: Extract<FieldNode, { kind: "range" }>, ctx: Context): MongoFilter {
  const key = mongoPath(node.path, ctx);
  const bounds: [RangeBound, "lower" | "upper"][] = [];
  if (node.lower !== undefined) bounds.push([node.lower, "lower"]);
  if (node.upper !== undefined) bounds.push([node.upper, "upper"]);
  if (bounds.length === 0) return {};
  const first = bounds[0]![0];
  if (isStringDate(node, first.operand, ctx)) {
    // Each bound is met by some value (docs/semantics.md 1.5, as MongoDB): one filter per bound.
    const parts = bounds.map(([bound, side]) => stringDateBound(key, bound, side));
    return parts.length === 1 ? parts[0]! : { $and: parts };
  }
  const ops: MongoFilter = {};
  for (const [bound, side] of bounds) ops[boundOperator(side, bound.inclusive)] = mongoValue(bound.operand);
  return entry(key, ops);
}

function regexFilter(node: Extract<FieldNode, { kind: "regex" }>, ctx: Context): MongoFilter {
  const key = mongoPath(node.path, ctx);
  const literal = analyzeLiteral(node.source, node.flags);
  if (literal?.anchorStart && literal.anchorEnd && !literal.ignoreCase) {
    // `^text$`: an equality with a string (strings only match strings), which an index can serve.
    return entry(key, { $eq: literal.text });
  }
  const regex = toMongoRegex(node.source, node.flags);
  return entry(
    key,
    regex.options === "" ? { $regex: regex.pattern } : { $regex: regex.pattern, $options: regex.options },
  );
}

function fieldFilter(node: FieldNode, ctx: Context): MongoFilter {
  return (TRANSLATIONS[node.kind].field as (node: FieldNode, ctx: Context) => MongoFilter)(node, ctx);
}

/** MongoDB's `$type` alias of each canonical type (docs/semantics.md 1.3): `number` covers all four numbers. */
const MONGO_TYPE: { readonly [T in JsonType]: string } = {
  number: "number",
  string: "string",
  object: "object",
  array: "array",
  bool: "bool",
  null: "null",
  date: "date",
};

/**
 * `$type` as MongoDB's own (same traversal, `array` the value itself). On a catalogue date field stored as
 * ISO strings, `date` means a valid ISO string there (as `$date` comparisons do): `$regex` of
 * `ISO_UTC_PATTERN`, ORed with the other types.
 */
function typeFilter(node: Extract<FieldNode, { kind: "type" }>, ctx: Context): MongoFilter {
  const key = mongoPath(node.path, ctx);
  const stringDates =
    node.fieldKind === "date" && ctx.dateStorage === "string" && node.types.includes("date");
  const types = node.types
    .filter((type) => !(stringDates && type === "date"))
    .map((type) => MONGO_TYPE[type]);
  const typed = entry(key, { $type: types.length === 1 ? types[0] : types });
  if (!stringDates) return typed;
  const iso = entry(key, { $regex: ISO_UTC_PATTERN });
  return types.length === 0 ? iso : { $or: [typed, iso] };
}

/**
 * The operand of `$elemMatch`: the query form's condition translated with paths relative to the element
 * (not through `fieldMap`, which names the collection's top-level paths), or the operator form as an
 * operator object (MongoDB's value form, `elementOperators`).
 */
function elemMatchOperand(node: Extract<FieldNode, { kind: "elemMatch" }>, ctx: Context): MongoFilter {
  const { match } = node;
  if (match.form === "query") return translate(match.condition, { ...ctx, fieldMap: new Map() });
  return elementOperators(match.operators, ctx);
}

/**
 * The operator form of `$elemMatch` as MongoDB's value form: one operator object whose operators each test
 * the element itself, as ours do. `$all` on one element is one equality (two different operands cannot
 * both equal it; none matches nothing).
 * @throws {TypeError} where the value form cannot say it: `$date` operands or `$type: "date"` on a date field
 *   stored as strings (an OR of forms), an operator that would be written twice in one object
 */
function elementOperators(node: ElementOperators, ctx: Context): MongoFilter {
  // Every operator of the object is on the `$elemMatch`'s field: one field kind for all.
  switch (node.kind) {
    case "and": {
      const merged: MongoFilter = {};
      for (const child of node.children) {
        for (const [key, operand] of Object.entries(elementOperators(child, ctx))) {
          if (Object.hasOwn(merged, key)) refuseElement(`${key} twice on one element`);
          Object.defineProperty(merged, key, {
            value: operand,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return merged;
    }
    case "not":
      return { $not: elementOperators(node.child, ctx) };
    default: {
      const translate = TRANSLATIONS[node.kind].element as (node: FieldNode, ctx: Context) => MongoFilter;
      return translate(node, ctx);
    }
  }
}

/**
 * The translation of each field node kind, once (a new kind is a compile error here): `field`, the filter
 * of the node on its field path; `element`, the operators that test one element of `$elemMatch`'s value
 * form (MongoDB's value form), which refuse what that form cannot say.
 */
interface Translation<K extends FieldNode["kind"]> {
  readonly field: (node: Extract<FieldNode, { kind: K }>, ctx: Context) => MongoFilter;
  readonly element: (node: Extract<FieldNode, { kind: K }>, ctx: Context) => MongoFilter;
}

/** A kind written as one operator on its path, the same in both forms. */
function operator<K extends FieldNode["kind"]>(
  write: (node: Extract<FieldNode, { kind: K }>, ctx: Context) => MongoFilter,
): Translation<K> {
  return { field: (node, ctx) => entry(mongoPath(node.path, ctx), write(node, ctx)), element: write };
}

/** An operand as the value form writes it (a `$date` on a date field stored as strings is refused). */
function elementValue(operand: Operand, target: FieldTarget, ctx: Context): unknown {
  if (isStringDate(target, operand, ctx)) refuseElement("a $date operand on a date field stored as strings");
  return mongoValue(operand);
}

function refuseElement(why: string): never {
  throw new TypeError(`This $elemMatch cannot be translated to a MongoDB filter: ${why} (docs/mongodb.md).`);
}

const TRANSLATIONS: { readonly [K in FieldNode["kind"]]: Translation<K> } = {
  eq: {
    field: (node, ctx) => membership(node, [node.operand], ctx).filter,
    element: (node, ctx) => ({ $eq: elementValue(node.operand, node, ctx) }),
  },
  ne: {
    field: (node, ctx) => nonMembership(node, [node.operand], ctx),
    element: (node, ctx) => ({ $ne: elementValue(node.operand, node, ctx) }),
  },
  in: {
    field: (node, ctx) =>
      node.operands.length === 0
        ? nothing(mongoPath(node.path, ctx))
        : membership(node, node.operands, ctx).filter,
    element: (node, ctx) => ({ $in: node.operands.map((operand) => elementValue(operand, node, ctx)) }),
  },
  nin: {
    field: (node, ctx) => (node.operands.length === 0 ? {} : nonMembership(node, node.operands, ctx)),
    element: (node, ctx) => ({ $nin: node.operands.map((operand) => elementValue(operand, node, ctx)) }),
  },
  all: {
    // The AND of equalities (MongoDB's definition of $all; docs/semantics.md 1.5); $all: [] matches nothing.
    field: (node, ctx) =>
      node.operands.length === 0
        ? nothing(mongoPath(node.path, ctx))
        : andOf(node.operands.map((operand) => membership(node, [operand], ctx).filter)),
    element: (node, ctx) =>
      node.operands.length === 1 ? { $eq: elementValue(node.operands[0]!, node, ctx) } : { $in: [] },
  },
  range: {
    field: rangeFilter,
    element: (node, ctx) => {
      const ops: MongoFilter = {};
      const { lower, upper } = node;
      if (lower !== undefined)
        ops[boundOperator("lower", lower.inclusive)] = elementValue(lower.operand, node, ctx);
      if (upper !== undefined)
        ops[boundOperator("upper", upper.inclusive)] = elementValue(upper.operand, node, ctx);
      return ops;
    },
  },
  regex: {
    field: regexFilter,
    element: (node, ctx) => Object.values(regexFilter(node, ctx))[0] as MongoFilter,
  },
  exists: operator((node) => ({ $exists: node.exists })),
  size: operator((node) => ({ $size: node.size })),
  type: {
    field: typeFilter,
    element: (node, ctx) => {
      if (node.fieldKind === "date" && ctx.dateStorage === "string" && node.types.includes("date"))
        refuseElement('$type "date" on a date field stored as strings');
      return { $type: node.types.map((type) => MONGO_TYPE[type]) };
    },
  },
  mod: operator((node) => ({ $mod: [node.divisor, node.remainder] })),
  bits: operator((node) => ({ [bitsOperator(node.test)]: [...node.positions] })),
  elemMatch: operator((node, ctx) => ({ $elemMatch: elemMatchOperand(node, ctx) })),
};

/** The AND of filters: merged into one object when their keys are distinct, else `$and`. */
function andOf(filters: readonly MongoFilter[]): MongoFilter {
  const nonEmpty = filters.filter((f) => Object.keys(f).length > 0);
  if (nonEmpty.length === 0) return {};
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const merged: MongoFilter = {};
  for (const filter of nonEmpty) {
    for (const key of Object.keys(filter)) {
      if (Object.hasOwn(merged, key)) return { $and: [...nonEmpty] };
      Object.defineProperty(merged, key, {
        value: filter[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return merged;
}

function translate(condition: Condition, ctx: Context): MongoFilter {
  switch (condition.kind) {
    case "and":
      return andOf(condition.children.map((child) => translate(child, ctx)));
    case "or":
      return { $or: condition.children.map((child) => translate(child, ctx)) };
    case "nor":
      return { $nor: condition.children.map((child) => translate(child, ctx)) };
    case "not":
      return { $nor: [translate(condition.child, ctx)] };
    default:
      return fieldFilter(condition, ctx);
  }
}

/**
 * Translates a parsed Search Conditions object to a MongoDB filter document with the same meaning as
 * `evaluate` (docs/semantics.md 1.5): `collection.find(toMongoFilter(c))` returns the incidents `evaluate(c, ·)`
 * accepts, except for the known differences listed in docs/mongodb.md.
 *
 * - `$date` operands become `Date` objects (or ISO-string comparisons with `dateStorage: "string"`);
 * - pipe alternatives (`"Webhook|File"`) become `$in`;
 * - `$regex` patterns are rewritten from RE2 to PCRE syntax (`toMongoRegex`); `^literal$` becomes `$eq`;
 * - `$not` becomes `$nor` of the translated operator object (`$not` inside `$not` nests two); `$all` the
 *   AND of equalities;
 * - `null` operands, numeric path segments, booleans and `null` as range operands are written as they are:
 *   MongoDB's own semantics are the rule (docs/semantics.md 1.4, 1.5);
 * - field paths go through `options.fieldMap`.
 *
 * Server versions: the `null` rule on dotted paths through arrays (docs/semantics.md 1.5) is MongoDB's from
 * version 9.0 on (SERVER-36681; its jstests `null_query_semantics.js`, `ne_null.js`, `nin_null.js` are
 * tagged `requires_fcv_90`), so the filter means exactly what `evaluate` means on MongoDB 9.0 and later.
 * On an older server (8.x and before) one thing differs: where a dotted path meets an empty array, an array
 * element that is not an object (a scalar, `null`, a nested array), `{"a.b": null}` (and `null` in `$in`,
 * `$all`, `$gte`/`$lte`) does not match there, and `$ne: null` / `$nin` with `null` do. For example
 * `{"a.b": null}` matches `{a: [1]}` and `{a: []}` on 9.0 and here, but not on 8.0. An element object
 * without the field (`{a: [{b: 1}, {}]}`) matches on every version. Paths that never cross an array, and
 * `null` on a one-segment path, mean the same on every version.
 *
 * @param condition - a Condition from `parseSearchConditions` (only parsed conditions are accepted:
 *   docs/semantics.md 1.1)
 * @param options - `dateStorage` (`"date"` default, or `"string"`) and `fieldMap`
 * @returns a fresh filter document (plain objects, arrays, strings, numbers, booleans, `null`, `Date`s);
 *   `{}` for the empty condition (matches every incident)
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions` (raw Search
 *   Conditions JSON, a hand-built or copied AST: the message says to call `parseSearchConditions`), when
 *   `options.dateStorage` is not `"date"` or `"string"`, or when a `fieldMap` value is not a string or not
 *   a writable MongoDB path (empty segment, leading `$`, NUL, `__proto__`…)
 * @example toMongoFilter(parseSearchConditions({ IngestionType: "Webhook|File" }))
 *   //=> { IngestionType: { $in: ["Webhook", "File"] } }
 */
export function toMongoFilter(condition: Condition, options?: ToMongoOptions): MongoFilter {
  requireParsedCondition(condition, "toMongoFilter");
  return translate(condition, resolveOptions(options));
}

/**
 * The filter that holds when an incident has a valid `CreatedUtcTime` (docs/semantics.md 1.9): a BSON date
 * within the JavaScript range (`Date` objects), or with string storage an ISO string `parseIsoUtc`
 * accepts; never an array.
 */
function datedFilter(key: string, ctx: Context): MongoFilter {
  if (ctx.dateStorage === "string") {
    return entry(key, { $gte: ISO_MIN, $lte: ISO_MAX, $regex: ISO_UTC_PATTERN, $not: { $type: "array" } });
  }
  return entry(key, {
    $gte: new Date(-8_640_000_000_000_000),
    $lte: new Date(8_640_000_000_000_000),
    $not: { $type: "array" },
  });
}

/**
 * Translates a parsed Search Conditions object to the MongoDB queries that find "the first matching
 * incident" (docs/semantics.md 1.9: earliest `CreatedUtcTime`, undated incidents after every dated one, ties
 * by `IncidentId` ascending). See `MongoFind` for the shape and `firstMatchingIncident`
 * (first-match.ts) for the helper that runs it.
 *
 * With `dateStorage: "string"`, ISO strings sort lexically: exact when the collection uses one form
 * (with or without milliseconds); with mixed forms `…:00Z` sorts after `…:00.500Z` of the same second,
 * which `firstMatchingIncident` corrects with one more query.
 *
 * @param condition - a Condition from `parseSearchConditions` (docs/semantics.md 1.1)
 * @param options - as `toMongoFilter`; `fieldMap` also renames `CreatedUtcTime` and `IncidentId`
 * @returns `{ filter, sort, dated, undated, fields, dateStorage }`
 * @throws {TypeError} as `toMongoFilter`
 * @example toMongoFind(parseSearchConditions({ Severity: "High" })).dated
 *   //=> { filter: { $and: [{ Severity: { $eq: "High" } }, { CreatedUtcTime: { $gte: …, $lte: …, $not: … } }] },
 *   //     sort: { CreatedUtcTime: 1, IncidentId: 1 } }
 */
export function toMongoFind(condition: Condition, options?: ToMongoOptions): MongoFind {
  requireParsedCondition(condition, "toMongoFind");
  const ctx = resolveOptions(options);
  const filter = translate(condition, ctx);
  // The order of docs/semantics.md 1.9, as the incident set defines it (order.ts): time key, then id key.
  const created = mongoPath([ORDER_FIELD], ctx);
  const id = mongoPath([ID_FIELD], ctx);
  const dated = datedFilter(created, ctx);
  const both = (a: MongoFilter, b: MongoFilter) => (Object.keys(a).length === 0 ? b : { $and: [a, b] });
  return {
    filter,
    sort: { ...entry(created, 1), ...entry(id, 1) } as MongoSort,
    dated: { filter: both(filter, dated), sort: { ...entry(created, 1), ...entry(id, 1) } as MongoSort },
    undated: { filter: both(filter, { $nor: [dated] }), sort: entry(id, 1) as MongoSort },
    fields: { createdUtcTime: created, incidentId: id },
    dateStorage: ctx.dateStorage,
  };
}
