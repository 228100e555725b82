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
  assertNever,
  type Condition,
  type FieldNode,
  type FieldTarget,
  type Operand,
  type RangeBound,
} from "../conditions/ast.js";
import { isForbiddenSegment } from "../conditions/catalog.js";
import { MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "../conditions/dates.js";
import { requireParsedCondition } from "../conditions/parse.js";
import { analyzeLiteral } from "../conditions/regex/matcher.js";
import { ID_FIELD, ORDER_FIELD } from "../incidents/order.js";

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

/** A `$regex` operand in MongoDB form: the pattern (PCRE syntax) and its `$options` (empty or `"i"`). */
export interface MongoRegex {
  readonly pattern: string;
  readonly options: string;
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
  switch (operand.type) {
    case "string":
    case "number":
    case "boolean":
      return operand.value;
    case "null":
      return null;
    case "date":
      return new Date(operand.value);
    default:
      return assertNever(operand);
  }
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

/** The MongoDB comparison operator of a range bound. */
function boundOperator(bound: RangeBound, side: "lower" | "upper"): "$gt" | "$gte" | "$lt" | "$lte" {
  if (side === "lower") return bound.inclusive ? "$gte" : "$gt";
  return bound.inclusive ? "$lte" : "$lt";
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
  for (const [bound, side] of bounds) ops[boundOperator(bound, side)] = mongoValue(bound.operand);
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
  switch (node.kind) {
    case "eq":
      return membership(node, [node.operand], ctx).filter;
    case "ne":
      return nonMembership(node, [node.operand], ctx);
    case "in":
      if (node.operands.length === 0) return nothing(mongoPath(node.path, ctx));
      return membership(node, node.operands, ctx).filter;
    case "nin":
      if (node.operands.length === 0) return {};
      return nonMembership(node, node.operands, ctx);
    case "all":
      // The AND of equalities (MongoDB's definition of $all; docs/semantics.md 1.5); $all: [] matches nothing.
      if (node.operands.length === 0) return nothing(mongoPath(node.path, ctx));
      return andOf(node.operands.map((operand) => membership(node, [operand], ctx).filter));
    case "range":
      return rangeFilter(node, ctx);
    case "regex":
      return regexFilter(node, ctx);
    case "exists":
      return entry(mongoPath(node.path, ctx), { $exists: node.exists });
    case "size":
      return entry(mongoPath(node.path, ctx), { $size: node.size });
    default:
      return assertNever(node);
  }
}

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

// ---------------------------------------------------------------------------------------------------------
// RE2 → PCRE

/** RE2 flags in effect at a point of a pattern. `U` (ungreedy) does not change whether a pattern matches. */
interface Flags {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
}

/** POSIX classes of RE2 (ASCII), as class ranges that PCRE and JavaScript read alike. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\x09 ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\x09-\\x0D ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * RE2's `\w` under the `i` flag, as class content: RE2 folds the class, which adds U+017F (long s, folds
 * to `s`) and U+212A (Kelvin sign, folds to `k`); PCRE's and JavaScript's `\w` stay ASCII.
 */
const WORD_FOLDED = "\\w\u017F\u212A";

/** RE2's `\s` (no vertical tab), as class content. */
const SPACE_CLASS = "\\x09\\x0A\\x0C\\x0D ";

/**
 * A code point as a pattern character that means itself in PCRE and JavaScript, inside or outside a
 * class: ASCII letters, digits and space as themselves, other printable ASCII escaped with `\`, control
 * characters as `\xHH`, everything else as the character.
 */
function literalChar(cp: number): string {
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).toUpperCase().padStart(2, "0")}`;
  if (cp < 0x80) {
    const ch = String.fromCharCode(cp);
    return /[0-9A-Za-z _]/.test(ch) ? ch : `\\${ch}`;
  }
  return String.fromCodePoint(cp);
}

class RegexTranslator {
  private pos = 0;

  constructor(
    private readonly source: string,
    private readonly baseI: boolean,
  ) {}

  private fail(reason: string): never {
    throw new TypeError(`Cannot translate the pattern ${JSON.stringify(this.source)} to MongoDB: ${reason}.`);
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.pos + offset];
  }

  /** Reads one code point. */
  private next(): number {
    const cp = this.source.codePointAt(this.pos);
    if (cp === undefined) this.fail("unexpected end of pattern");
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  translate(flags: Flags): string {
    const out = this.sequence(flags, this.baseI);
    if (this.pos < this.source.length) this.fail("unbalanced ')'");
    return out;
  }

  /**
   * Translates up to the closing `)` of the current group (not consumed) or the end. `emittedI` is the
   * case-insensitivity in effect in the output at the start; inline `(?i)` changes open `(?i:` / `(?-i:`
   * wrappers, closed at `|` and at the end (RE2 and PCRE both keep an inline flag to the group's end).
   */
  private sequence(entryFlags: Flags, emittedI: boolean): string {
    let flags = entryFlags;
    let out = "";
    let wrapper = false;
    const atom = (text: string) => {
      if (!wrapper && flags.i !== emittedI) {
        out += flags.i ? "(?i:" : "(?-i:";
        wrapper = true;
      }
      out += text;
    };
    const closeWrapper = () => {
      if (wrapper) out += ")";
      wrapper = false;
    };
    const inner = () => (wrapper ? flags.i : emittedI);
    while (this.pos < this.source.length) {
      const ch = this.peek()!;
      if (ch === ")") break;
      if (ch === "|") {
        this.pos++;
        closeWrapper();
        out += "|";
        continue;
      }
      if (ch === "(") {
        const group = this.group(flags);
        if (group.setFlags !== undefined) {
          flags = group.setFlags;
          if (wrapper && flags.i !== emittedI) continue;
          closeWrapper();
          continue;
        }
        const current = flags;
        atom("");
        out += `(?:${this.sequence(group.flags ?? current, inner())}`;
        if (this.peek() !== ")") this.fail("missing ')'");
        this.pos++;
        out += ")";
        continue;
      }
      if (ch === "*" || ch === "+" || ch === "?") {
        this.pos++;
        out += ch;
        if (this.peek() === "?") {
          this.pos++;
          out += "?";
        }
        continue;
      }
      if (ch === "{") {
        const repeat = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos, this.pos + 12));
        if (repeat !== null) {
          this.pos += repeat[0].length;
          out += repeat[0];
          if (this.peek() === "?") {
            this.pos++;
            out += "?";
          }
          continue;
        }
        this.pos++;
        atom("\\{");
        continue;
      }
      if (ch === "[") {
        atom(this.charClass(flags.i));
        continue;
      }
      if (ch === ".") {
        this.pos++;
        atom(flags.s ? "[\\s\\S]" : "[^\\n]");
        continue;
      }
      if (ch === "^") {
        this.pos++;
        atom(flags.m ? "(?:(?<![^\\n]))" : "^");
        continue;
      }
      if (ch === "$") {
        this.pos++;
        atom(flags.m ? "(?:(?![^\\n]))" : "(?:(?![\\s\\S]))");
        continue;
      }
      if (ch === "\\") {
        atom(this.escapeOutside(flags.i));
        continue;
      }
      atom(literalChar(this.next()));
    }
    closeWrapper();
    return out;
  }

  /**
   * Reads `(` and what makes it special: `(?:`, `(?P<name>`, `(?<name>`, `(?flags)`, `(?flags:`.
   * Returns `setFlags` for a flag setting (no group), else the group's flags (when it has its own).
   */
  private group(flags: Flags): { setFlags?: Flags; flags?: Flags } {
    this.pos++; // (
    if (this.peek() !== "?") return {};
    this.pos++;
    if (this.peek() === ":") {
      this.pos++;
      return {};
    }
    if (this.peek() === "P" && this.peek(1) === "<") this.pos++;
    if (this.peek() === "<") {
      const close = this.source.indexOf(">", this.pos);
      if (close < 0 || /^[=!]/.test(this.source.slice(this.pos + 1)))
        this.fail("lookaround is not RE2 syntax");
      this.pos = close + 1;
      return {};
    }
    let { i, m, s } = flags;
    let negate = false;
    while (this.pos < this.source.length) {
      const c = this.source[this.pos++]!;
      if (c === "-") negate = true;
      else if (c === "i") i = !negate;
      else if (c === "m") m = !negate;
      else if (c === "s") s = !negate;
      else if (c === "U") {
        // Ungreedy: changes which match is reported, never whether one exists.
      } else if (c === ")") return { setFlags: { i, m, s } };
      else if (c === ":") return { flags: { i, m, s } };
      else this.fail(`unsupported group syntax '(?${c}'`);
    }
    return this.fail("missing ')'");
  }

  /** Hex or octal escape digits after `\x` / `\0`–`\7`, as a code point. */
  private numericEscape(kind: string): number {
    if (kind === "x") {
      if (this.peek() === "{") {
        const close = this.source.indexOf("}", this.pos);
        if (close < 0) this.fail("missing '}' in \\x{…}");
        const cp = Number.parseInt(this.source.slice(this.pos + 1, close), 16);
        this.pos = close + 1;
        if (!(cp >= 0 && cp <= 0x10ffff)) this.fail("invalid \\x{…} escape");
        return cp;
      }
      const digits = this.source.slice(this.pos, this.pos + 2);
      if (!/^[0-9A-Fa-f]{2}$/.test(digits)) this.fail("invalid \\x escape");
      this.pos += 2;
      return Number.parseInt(digits, 16);
    }
    // RE2: `\0` and `\1`–`\7` followed by an octal digit start an octal escape (up to three digits);
    // a lone `\1`–`\7` would be a backreference, which RE2 refuses.
    if (kind !== "0" && !/[0-7]/.test(this.peek() ?? ""))
      this.fail(`backreference '\\${kind}' is not RE2 syntax`);
    let digits = kind;
    while (digits.length < 3 && /[0-7]/.test(this.peek() ?? "")) digits += this.source[this.pos++];
    return Number.parseInt(digits, 8);
  }

  private static readonly CONTROL: Readonly<Record<string, number>> = {
    a: 7,
    f: 12,
    t: 9,
    n: 10,
    r: 13,
    v: 11,
  };

  /** A `\p…`/`\P…` Unicode class, passed through (PCRE reads the same names). */
  private unicodeClass(kind: string): string {
    if (this.peek() === "{") {
      const close = this.source.indexOf("}", this.pos);
      if (close < 0) this.fail("missing '}' in \\p{…}");
      const name = this.source.slice(this.pos, close + 1);
      this.pos = close + 1;
      return `\\${kind}${name}`;
    }
    return `\\${kind}${String.fromCodePoint(this.next())}`;
  }

  /** An escape outside a class. */
  private escapeOutside(ignoreCase: boolean): string {
    this.pos++; // backslash
    const c = this.peek();
    if (c === undefined) this.fail("trailing backslash");
    this.pos++;
    switch (c) {
      case "A":
        return "^";
      case "z":
        return "(?:(?![\\s\\S]))";
      case "b":
      case "B":
      case "d":
      case "D":
        return `\\${c}`;
      case "w":
        return ignoreCase ? `[${WORD_FOLDED}]` : "\\w";
      case "W":
        return ignoreCase ? `[^${WORD_FOLDED}]` : "\\W";
      case "s":
        return `[${SPACE_CLASS}]`;
      case "S":
        return `[^${SPACE_CLASS}]`;
      case "p":
      case "P":
        return this.unicodeClass(c);
      case "Q": {
        const end = this.source.indexOf("\\E", this.pos);
        const text = this.source.slice(this.pos, end < 0 ? undefined : end);
        this.pos = end < 0 ? this.source.length : end + 2;
        let out = "";
        for (const ch of text) out += literalChar(ch.codePointAt(0)!);
        return out;
      }
      case "E":
        return "";
      default:
        return literalChar(this.escapedChar(c));
    }
  }

  /** The code point of a character escape (`\n`, `\x41`, `\101`, `\.`) whose letter `c` was read. */
  private escapedChar(c: string): number {
    const control = RegexTranslator.CONTROL[c];
    if (control !== undefined) return control;
    if (c === "x") return this.numericEscape("x");
    if (/[0-7]/.test(c)) return this.numericEscape(c);
    if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(c)) return c.codePointAt(0)!;
    return this.fail(`unsupported escape '\\${c}'`);
  }

  /**
   * A bracketed class `[…]`, `[^…]`, with ranges, escapes, Perl, POSIX and Unicode classes. Members that
   * are complements (`\S`, `[:^alpha:]`) have no class syntax that PCRE and JavaScript read alike, so a
   * class holding them is rewritten: `[P\S]` → `(?:[P]|[^\t\n\f\r ])`, and `[^P\S]` (a character in
   * every complemented set's complement and not in P) → `(?:(?![P])[\t\n\f\r ])`.
   */
  private charClass(ignoreCase: boolean): string {
    this.pos++; // [
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    let items = "";
    const complements: string[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail("missing ']'");
      if (c === "]" && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === "[" && this.peek(1) === ":") {
        const close = this.source.indexOf(":]", this.pos + 2);
        if (close >= 0) {
          let name = this.source.slice(this.pos + 2, close);
          this.pos = close + 2;
          const negatedPosix = name.startsWith("^");
          if (negatedPosix) name = name.slice(1);
          const ranges = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
          if (ranges === undefined) this.fail(`unknown POSIX class '${name}'`);
          if (negatedPosix) complements.push(ranges);
          else items += ranges;
          continue;
        }
      }
      const lo = this.classAtom(ignoreCase);
      if (typeof lo === "object") {
        complements.push(lo.not);
        continue;
      }
      if (typeof lo === "string") {
        items += lo;
        continue;
      }
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const hi = this.classAtom(ignoreCase);
        if (typeof hi !== "number") this.fail("a class cannot end a range");
        items += `${literalChar(lo)}-${literalChar(hi)}`;
        continue;
      }
      items += literalChar(lo);
    }
    if (complements.length === 0) return `[${negated ? "^" : ""}${items}]`;
    if (!negated) {
      const parts = complements.map((set) => `[^${set}]`);
      if (items !== "") parts.unshift(`[${items}]`);
      return `(?:${parts.join("|")})`;
    }
    const [last, ...others] = complements as [string, ...string[]];
    return `(?:${items === "" ? "" : `(?![${items}])`}${others.map((set) => `(?=[${set}])`).join("")}[${last}])`;
  }

  /**
   * One element of a class: a code point, class text (`\d`, `\p{L}`, RE2's `\s`), or a complemented
   * set (`\S`: `{ not: "\t\n\f\r " }`).
   */
  private classAtom(ignoreCase: boolean): number | string | { readonly not: string } {
    if (this.peek() !== "\\") return this.next();
    this.pos++;
    const c = this.peek();
    if (c === undefined) this.fail("trailing backslash");
    this.pos++;
    switch (c) {
      case "d":
      case "D":
        return `\\${c}`;
      case "w":
        return ignoreCase ? WORD_FOLDED : "\\w";
      case "W":
        return ignoreCase ? { not: WORD_FOLDED } : "\\W";
      case "s":
        return SPACE_CLASS;
      case "S":
        // Not `\S`: PCRE's also excludes the vertical tab, JavaScript's the Unicode spaces.
        return { not: SPACE_CLASS };
      case "p":
      case "P":
        return this.unicodeClass(c);
      default:
        return this.escapedChar(c);
    }
  }
}

/**
 * Rewrites a `$regex` pattern from RE2 syntax (docs/semantics.md 1.4) to a PCRE pattern with the same meaning
 * in MongoDB (also valid JavaScript for everything but `\p` classes, negated POSIX classes and inline
 * `(?i)` changes):
 * - the `m` and `s` flags are applied while rewriting: `^`/`$` become `^`/`(?![\s\S])` (text start and
 *   very end) or, under `m`, `(?<![^\n])`/`(?![^\n])` (line boundaries at `\n` only); `.` becomes `[^\n]`,
 *   or `[\s\S]` under `s`; `\A` → `^`, `\z` → `(?![\s\S])`;
 * - `\s` becomes `[\t\n\f\r ]` (PCRE's and JavaScript's `\s` also match the vertical tab, JavaScript's
 *   Unicode spaces too); POSIX classes become ASCII ranges;
 * - literal characters are escaped (`{` included, which PCRE2 10.43+ may read as a quantifier);
 *   groups become non-capturing; `(?U)` is dropped (greediness never changes whether a value matches).
 * Only `i` remains as an option.
 * @param source - a pattern in RE2 syntax
 * @param flags - `$options`: `i`, `m`, `s`
 * @returns `{ pattern, options }` for `{ $regex: pattern, $options: options }`
 * @throws {TypeError} when the pattern is not RE2 syntax (the parser refuses those first)
 * @example toMongoRegex("host$", "") //=> { pattern: "host(?:(?![\\s\\S]))", options: "" }
 */
export function toMongoRegex(source: string, flags: string): MongoRegex {
  const i = flags.includes("i");
  const pattern = new RegexTranslator(source, i).translate({
    i,
    m: flags.includes("m"),
    s: flags.includes("s"),
  });
  return { pattern, options: i ? "i" : "" };
}
