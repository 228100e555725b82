/**
 * Issue conformance cases: Search Conditions that must fail to parse, with exactly these issues (codes and
 * paths, compared as sets). One table for every parse-side rule of docs/semantics.md section 1: every issue code,
 * every limit (with small overridden limits and at the defaults), forbidden keys in every position, mixed
 * objects, paths inside nested `$or`/`$and`/`$nor`/`$not`/arrays, several issues collected from one input,
 * and the "did you mean" message. Run by test/conformance/parse.test.ts.
 *
 * One file of more than 800 lines on purpose: it is data, one case after another in the order of
 * docs/semantics.md section 1, with no logic to read; split, a rule's cases would sit in two places.
 */
import { DEFAULT_CATALOG, extendCatalog } from "../../src/conditions/catalog.js";
import type { PathSegment } from "../../src/conditions/issues.js";
import type { IssueCase } from "./types.js";

const D = "2024-01-01T00:00:00Z";

/** `{"$and": [{"$and": [ … {"Title": "x"} … ]}]}`, `levels` deep. */
function nestedAnd(levels: number): unknown {
  let condition: unknown = { Title: "x" };
  for (let i = 0; i < levels; i++) condition = { $and: [condition] };
  return condition;
}

/** `["$and", 0, "$and", 0, …]`, `levels` times. */
function andPath(levels: number): PathSegment[] {
  return Array.from({ length: levels }, () => ["$and", 0] as PathSegment[]).flat();
}

/** An object with `count` keys `f0`, `f1`, … each equal to 1. */
function wideObject(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));
}

function withGetter(key: string, get: () => unknown): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  Object.defineProperty(object, key, { get, enumerable: true });
  return object;
}

const severityPlus = extendCatalog(DEFAULT_CATALOG, { labels: { Severity: ["Unassigned"] } });
const customCatalog = extendCatalog(DEFAULT_CATALOG, {
  fields: { Priority: { kind: "enum", labels: ["P1", "P2", "P3"] }, "Custom.Seen": { kind: "date" } },
  alternativeFields: ["Priority"],
});

export const issueCases: IssueCase[] = [
  // --- $regex on a date field (ours: the answer would depend on how the date is stored) -----------
  {
    name: "$regex on the date field is refused, with the range to use instead",
    rule: "README: $regex on date fields",
    conditions: { CreatedUtcTime: { $regex: "^2024-03" } },
    issues: [{ code: "operand_type", path: ["CreatedUtcTime", "$regex"] }],
    messageIncludes: '"$gte"',
  },
  {
    name: "$regex on the date field is refused inside $not too",
    rule: "README: $regex on date fields",
    conditions: { CreatedUtcTime: { $not: { $regex: "^2024", $options: "i" } } },
    issues: [{ code: "operand_type", path: ["CreatedUtcTime", "$not", "$regex"] }],
  },
  // --- 1.1 Shape: the root ------------------------------------------------------------------------
  {
    name: "root: a string",
    rule: "docs/semantics.md 1.1",
    conditions: "Title",
    issues: [{ code: "invalid_type", path: [] }],
  },
  {
    name: "root: a number",
    rule: "docs/semantics.md 1.1",
    conditions: 42,
    issues: [{ code: "invalid_type", path: [] }],
  },
  {
    name: "root: null",
    rule: "docs/semantics.md 1.1",
    conditions: null,
    issues: [{ code: "invalid_type", path: [] }],
  },
  {
    name: "root: undefined",
    rule: "docs/semantics.md 1.1",
    conditions: undefined,
    issues: [{ code: "invalid_type", path: [] }],
    messageIncludes: "found nothing",
  },
  {
    name: "root: an empty array is an error",
    rule: "docs/semantics.md 1.1",
    conditions: [],
    issues: [{ code: "empty_array", path: [] }],
  },
  {
    name: "root array: a non-object element",
    rule: "docs/semantics.md 1.1",
    conditions: [{ Title: "a" }, "Title"],
    issues: [{ code: "invalid_type", path: [1] }],
  },
  {
    name: "root array: nested arrays and null elements",
    rule: "docs/semantics.md 1.1",
    conditions: [[{ Title: "a" }], null],
    issues: [
      { code: "invalid_type", path: [0] },
      { code: "invalid_type", path: [1] },
    ],
  },
  {
    name: "root: a Map is not a JSON object",
    rule: "docs/semantics.md 1.1",
    conditions: new Map([["Title", "a"]]),
    issues: [{ code: "invalid_type", path: [] }],
  },

  // --- 1.1 Logical operators ----------------------------------------------------------------------
  {
    name: "$and: empty",
    rule: "docs/semantics.md 1.1",
    conditions: { $and: [] },
    issues: [{ code: "empty_array", path: ["$and"] }],
  },
  {
    name: "$or: empty",
    rule: "docs/semantics.md 1.1",
    conditions: { $or: [] },
    issues: [{ code: "empty_array", path: ["$or"] }],
  },
  {
    name: "$nor: empty, nested in $or",
    rule: "docs/semantics.md 1.1",
    conditions: { $or: [{ Title: "a" }, { $nor: [] }] },
    issues: [{ code: "empty_array", path: ["$or", 1, "$nor"] }],
  },
  {
    name: "$and: an object instead of an array",
    rule: "docs/semantics.md 1.1",
    conditions: { $and: { Title: "a" } },
    issues: [{ code: "invalid_type", path: ["$and"] }],
  },
  {
    name: "$or: a string",
    rule: "docs/semantics.md 1.1",
    conditions: { $or: "Title" },
    issues: [{ code: "invalid_type", path: ["$or"] }],
  },
  {
    name: "$or: elements must be condition objects",
    rule: "docs/semantics.md 1.1",
    conditions: { $or: [1, { Title: "a" }, [{ Title: "b" }]] },
    issues: [
      { code: "invalid_type", path: ["$or", 0] },
      { code: "invalid_type", path: ["$or", 2] },
    ],
  },
  {
    name: "unknown operator at condition level",
    rule: "docs/semantics.md 1.1",
    conditions: { $foo: 1 },
    issues: [{ code: "unknown_operator", path: ["$foo"] }],
    messageIncludes: "expected one of $and, $or, $nor",
  },
  {
    name: "$where is refused, never executed",
    rule: "docs/semantics.md 1.3",
    conditions: { $where: "this.Severity == 'High'" },
    issues: [{ code: "unknown_operator", path: ["$where"] }],
  },
  {
    name: "$expr is refused",
    rule: "docs/semantics.md 1.3",
    conditions: { $expr: { $gt: ["$a", "$b"] } },
    issues: [{ code: "unknown_operator", path: ["$expr"] }],
  },
  {
    name: "$text and $comment are refused",
    rule: "docs/semantics.md 1.3",
    conditions: { $text: { $search: "x" }, $comment: "hi" },
    issues: [
      { code: "unknown_operator", path: ["$text"] },
      { code: "unknown_operator", path: ["$comment"] },
    ],
  },
  {
    name: "$date at condition level is not an operator",
    rule: "docs/semantics.md 1.1",
    conditions: { $date: D },
    issues: [{ code: "unknown_operator", path: ["$date"] }],
  },
  {
    name: "field operator at condition level",
    rule: "docs/semantics.md 1.3",
    conditions: { $in: ["High"] },
    issues: [{ code: "misplaced_operator", path: ["$in"] }],
    messageIncludes: "cannot stand at condition level",
  },
  {
    name: "$regex and $not at condition level",
    rule: "docs/semantics.md 1.3",
    conditions: { $regex: "^a", $not: { $eq: 1 } },
    issues: [
      { code: "misplaced_operator", path: ["$regex"] },
      { code: "misplaced_operator", path: ["$not"] },
    ],
  },
  {
    name: "$or under a field",
    rule: "docs/semantics.md 1.1",
    conditions: { Title: { $or: [{ Title: "a" }] } },
    issues: [{ code: "misplaced_operator", path: ["Title", "$or"] }],
    messageIncludes: "cannot stand under a field",
  },
  {
    name: "$and and $nor under a field",
    rule: "docs/semantics.md 1.1",
    conditions: { Count: { $and: [{ Count: 1 }], $nor: [{ Count: 2 }] } },
    issues: [
      { code: "misplaced_operator", path: ["Count", "$and"] },
      { code: "misplaced_operator", path: ["Count", "$nor"] },
    ],
  },
  {
    name: "unknown field operator",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $like: "a%" } },
    issues: [{ code: "unknown_operator", path: ["Title", "$like"] }],
    messageIncludes: "expected one of $eq, $ne",
  },
  {
    name: "$where and $function under a field",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $where: "1", $function: { body: "return true" } } },
    issues: [
      { code: "unknown_operator", path: ["Title", "$where"] },
      { code: "unknown_operator", path: ["Title", "$function"] },
    ],
  },
  // $elemMatch, $mod and $type (docs/semantics.md 1.3, revised: accepted; these are their refusals).
  {
    name: "$where, $expr and $function stay refused inside $elemMatch (both forms)",
    rule: "docs/semantics.md 1.3",
    conditions: {
      Tags: { $elemMatch: { $where: "1", $expr: { $eq: [1, 1] } } },
      Items: { $elemMatch: { b: 1, $function: { body: "return true" } } },
    },
    issues: [
      { code: "unknown_operator", path: ["Tags", "$elemMatch", "$where"] },
      { code: "unknown_operator", path: ["Tags", "$elemMatch", "$expr"] },
      { code: "unknown_operator", path: ["Items", "$elemMatch", "$function"] },
    ],
  },
  {
    name: "$elemMatch needs an object (MongoDB: '$elemMatch needs an Object')",
    rule: "docs/semantics.md 1.3",
    conditions: { a: { $elemMatch: [1] }, b: { $elemMatch: 1 }, c: { $elemMatch: null } },
    issues: [
      { code: "invalid_type", path: ["a", "$elemMatch"] },
      { code: "invalid_type", path: ["b", "$elemMatch"] },
      { code: "invalid_type", path: ["c", "$elemMatch"] },
    ],
  },
  {
    name: "$elemMatch: a field operator beside a field path is misplaced (query form), a logical one in the operator form too",
    rule: "docs/semantics.md 1.3",
    conditions: { a: { $elemMatch: { b: 1, $gt: 2 } }, c: { $elemMatch: { $gt: 2, $or: [{ d: 1 }] } } },
    issues: [
      { code: "misplaced_operator", path: ["a", "$elemMatch", "$gt"] },
      { code: "misplaced_operator", path: ["c", "$elemMatch", "$gt"] },
    ],
  },
  {
    name: "$elemMatch: inner issues carry their whole path; an unknown operator in the operator form",
    rule: "docs/semantics.md 1.3, 1.8",
    conditions: {
      a: { $elemMatch: { b: { $regex: "(?=x)" }, c: { $size: -1 } } },
      d: { $elemMatch: { $bogus: 1 } },
    },
    issues: [
      { code: "invalid_regex", path: ["a", "$elemMatch", "b", "$regex"] },
      { code: "invalid_size", path: ["a", "$elemMatch", "c", "$size"] },
      { code: "unknown_operator", path: ["d", "$elemMatch", "$bogus"] },
    ],
  },
  {
    name: "$elemMatch: the query form on a text, enumerated or date field is an operand_type issue",
    rule: "docs/semantics.md 1.3, 1.4 (ours: such a field holds no objects)",
    conditions: {
      Title: { $elemMatch: { b: 1 } },
      Severity: { $elemMatch: {} },
      CreatedUtcTime: { $elemMatch: { $or: [{ x: 1 }] } },
    },
    issues: [
      { code: "operand_type", path: ["Title", "$elemMatch"] },
      { code: "operand_type", path: ["Severity", "$elemMatch"] },
      { code: "operand_type", path: ["CreatedUtcTime", "$elemMatch"] },
    ],
    messageIncludes: "the operator form of $elemMatch",
  },
  {
    name: "$elemMatch: the operator form checks operands against the field's kind and labels",
    rule: "docs/semantics.md 1.3, 1.4, 1.6",
    conditions: {
      Severity: { $elemMatch: { $in: ["High", "Hihg"] } },
      Title: { $elemMatch: { $eq: 5 } },
      CreatedUtcTime: { $elemMatch: { $gte: "2024-01-01T00:00:00Z" } },
    },
    issues: [
      { code: "unknown_label", path: ["Severity", "$elemMatch", "$in", 1] },
      { code: "operand_type", path: ["Title", "$elemMatch", "$eq"] },
      { code: "date_operand_required", path: ["CreatedUtcTime", "$elemMatch", "$gte"] },
    ],
  },
  {
    name: "$elemMatch: the query form's fields are the catalogue's at the whole path",
    rule: "docs/semantics.md 1.3, 1.4 (ours)",
    catalog: customCatalog,
    conditions: { Custom: { $elemMatch: { Seen: "2024-01-01T00:00:00Z" } } },
    issues: [{ code: "date_operand_required", path: ["Custom", "$elemMatch", "Seen"] }],
    messageIncludes: "Custom.Seen is a date field",
  },
  {
    name: "$elemMatch counts towards the depth limit",
    rule: "docs/semantics.md 1.3, 1.7",
    options: { limits: { depth: 4 } },
    conditions: { a: { $elemMatch: { b: { $elemMatch: { c: { $elemMatch: { d: 1 } } } } } } },
    issues: [{ code: "limit_exceeded", path: ["a", "$elemMatch", "b", "$elemMatch"] }],
  },
  {
    name: "$elemMatch counts towards the node limit",
    rule: "docs/semantics.md 1.3, 1.7",
    options: { limits: { nodes: 5 } },
    conditions: { a: { $elemMatch: { b: 1, c: 2, d: 3, e: 4 } } },
    issues: [{ code: "limit_exceeded", path: ["a", "$elemMatch", "d"] }],
  },
  {
    name: "$type: an unknown name, a non-JSON BSON type, a wrong number, a non-name (MongoDB's type_array.js)",
    rule: "docs/semantics.md 1.3",
    conditions: {
      a: { $type: "integer" },
      b: { $type: "objectId" },
      c: { $type: 17 },
      d: { $type: 2.5 },
      e: { $type: ["string", null] },
      f: { $type: [{}, "string"] },
      g: { $type: [] },
      h: { $type: true },
    },
    issues: [
      { code: "unknown_type", path: ["a", "$type"] },
      { code: "unknown_type", path: ["b", "$type"] },
      { code: "unknown_type", path: ["c", "$type"] },
      { code: "unknown_type", path: ["d", "$type"] },
      { code: "invalid_type", path: ["e", "$type", 1] },
      { code: "invalid_type", path: ["f", "$type", 0] },
      { code: "empty_array", path: ["g", "$type"] },
      { code: "invalid_type", path: ["h", "$type"] },
    ],
  },
  {
    name: "$type: a catalogue field takes only the types it can hold",
    rule: "docs/semantics.md 1.3, 1.4 (ours)",
    conditions: {
      Title: { $type: "number" },
      Severity: { $type: ["string", "object"] },
      CreatedUtcTime: { $type: "string" },
    },
    issues: [
      { code: "operand_type", path: ["Title", "$type"] },
      { code: "operand_type", path: ["Severity", "$type", 1] },
      { code: "operand_type", path: ["CreatedUtcTime", "$type"] },
    ],
    messageIncludes: "a $type such a field can hold (string, null, array)",
  },
  {
    name: "$mod: arity, operand types and a zero divisor (MongoDB's mod.js)",
    rule: "docs/semantics.md 1.3",
    conditions: {
      a: { $mod: [0, 1] },
      b: { $mod: [0, 0] },
      c: { $mod: [0.001, 1.001] },
      d: { $mod: [1, 0, 0] },
      e: { $mod: [0.1] },
      f: { $mod: [10] },
      g: { $mod: ["a", 0] },
      h: { $mod: ["a", "b"] },
      i: { $mod: 4 },
      j: { $mod: [] },
      k: { $mod: [2, null] },
    },
    issues: [
      { code: "invalid_mod", path: ["a", "$mod", 0] },
      { code: "invalid_mod", path: ["b", "$mod", 0] },
      { code: "invalid_mod", path: ["c", "$mod", 0] },
      { code: "invalid_mod", path: ["d", "$mod"] },
      { code: "invalid_mod", path: ["e", "$mod"] },
      { code: "invalid_mod", path: ["f", "$mod"] },
      { code: "invalid_mod", path: ["g", "$mod", 0] },
      { code: "invalid_mod", path: ["h", "$mod", 0] },
      { code: "invalid_mod", path: ["i", "$mod"] },
      { code: "invalid_mod", path: ["j", "$mod"] },
      { code: "invalid_mod", path: ["k", "$mod", 1] },
    ],
  },
  {
    name: "$mod: NaN, infinities and values beyond 64 bits as divisor or remainder (MongoDB's mod_special_values.js)",
    rule: "docs/semantics.md 1.3",
    conditions: {
      a: { $mod: [Number.NaN, 1] },
      b: { $mod: [1, Number.NaN] },
      c: { $mod: [Number.POSITIVE_INFINITY, 1] },
      d: { $mod: [1, Number.POSITIVE_INFINITY] },
      e: { $mod: [1e19, 1] },
      f: { $mod: [1, 1e19] },
      g: { $mod: [2 ** 63, 1] },
    },
    issues: [
      { code: "invalid_mod", path: ["a", "$mod", 0] },
      { code: "invalid_mod", path: ["b", "$mod", 1] },
      { code: "invalid_mod", path: ["c", "$mod", 0] },
      { code: "invalid_mod", path: ["d", "$mod", 1] },
      { code: "invalid_mod", path: ["e", "$mod", 0] },
      { code: "invalid_mod", path: ["f", "$mod", 1] },
      { code: "invalid_mod", path: ["g", "$mod", 0] },
    ],
  },
  {
    name: "bit tests: an operand that is neither a non-negative integer mask below 2^63 nor an array of bit positions is refused (MongoDB's bittest refusals)",
    rule: "docs/semantics.md 1.3",
    conditions: {
      a: { $bitsAllSet: -1 },
      b: { $bitsAnySet: 1.5 },
      c: { $bitsAllClear: "1" },
      d: { $bitsAnyClear: { x: 1 } },
      e: { $bitsAllSet: null },
      f: { $bitsAnySet: 2 ** 63 },
      g: { $bitsAllClear: [1, -1] },
      h: { $bitsAnyClear: [0.5] },
      i: { $bitsAllSet: ["1"] },
      j: { $bitsAnySet: Number.NaN },
    },
    issues: [
      { code: "invalid_type", path: ["a", "$bitsAllSet"] },
      { code: "invalid_type", path: ["b", "$bitsAnySet"] },
      { code: "invalid_type", path: ["c", "$bitsAllClear"] },
      { code: "invalid_type", path: ["d", "$bitsAnyClear"] },
      { code: "invalid_type", path: ["e", "$bitsAllSet"] },
      { code: "invalid_type", path: ["f", "$bitsAnySet"] },
      { code: "invalid_type", path: ["g", "$bitsAllClear", 1] },
      { code: "invalid_type", path: ["h", "$bitsAnyClear", 0] },
      { code: "invalid_type", path: ["i", "$bitsAllSet", 0] },
      { code: "invalid_type", path: ["j", "$bitsAnySet"] },
    ],
  },
  {
    name: "$all mixing $elemMatch objects with other values is refused, in either order (MongoDB's arrayfind2.js)",
    rule: "docs/semantics.md 1.3",
    conditions: {
      a: { $all: [1, { $elemMatch: { x: 3 } }] },
      b: { $all: [{ $elemMatch: { x: 3 } }, 1] },
      c: { $all: [{ $elemMatch: { x: 3 } }, { $elemMatch: { x: 3 }, $size: 1 }] },
      d: { $all: [{ $elemMatch: 3 }] },
    },
    issues: [
      { code: "invalid_type", path: ["a", "$all", 1] },
      { code: "invalid_type", path: ["b", "$all", 1] },
      { code: "invalid_type", path: ["c", "$all", 1] },
      { code: "invalid_type", path: ["d", "$all", 0, "$elemMatch"] },
    ],
  },
  {
    name: "bit tests on a text, enumerated or date field are an operand_type issue",
    rule: "docs/semantics.md 1.3, 1.4 (ours: such a field holds no numbers)",
    conditions: {
      Number: { $bitsAllSet: 1 },
      Severity: { $bitsAnySet: [0] },
      CreatedUtcTime: { $bitsAllClear: 0 },
    },
    issues: [
      { code: "operand_type", path: ["Number", "$bitsAllSet"] },
      { code: "operand_type", path: ["Severity", "$bitsAnySet"] },
      { code: "operand_type", path: ["CreatedUtcTime", "$bitsAllClear"] },
    ],
  },
  {
    name: "$mod on a text, enumerated or date field is an operand_type issue",
    rule: "docs/semantics.md 1.3, 1.4 (ours: such a field holds no numbers)",
    conditions: { Number: { $mod: [2, 0] }, Severity: { $mod: [2, 0] }, CreatedUtcTime: { $mod: [2, 0] } },
    issues: [
      { code: "operand_type", path: ["Number", "$mod"] },
      { code: "operand_type", path: ["Severity", "$mod"] },
      { code: "operand_type", path: ["CreatedUtcTime", "$mod"] },
    ],
    messageIncludes:
      "Number is a text field: expected an operator for its values ($mod matches numbers only)",
  },
  {
    name: "$date beside another operator",
    rule: "docs/semantics.md 1.2",
    conditions: { CreatedUtcTime: { $date: D, $exists: true } },
    issues: [{ code: "unknown_operator", path: ["CreatedUtcTime", "$date"] }],
  },

  // --- 1.1 Field paths ----------------------------------------------------------------------------
  {
    name: "field path: empty middle segment",
    rule: "docs/semantics.md 1.1",
    conditions: { "Custom..Owner": "a" },
    issues: [{ code: "invalid_field_path", path: ["Custom..Owner"] }],
  },
  {
    name: "field path: leading dot",
    rule: "docs/semantics.md 1.1",
    conditions: { ".Owner": "a" },
    issues: [{ code: "invalid_field_path", path: [".Owner"] }],
  },
  {
    name: "field path: trailing dot",
    rule: "docs/semantics.md 1.1",
    conditions: { "Custom.": "a" },
    issues: [{ code: "invalid_field_path", path: ["Custom."] }],
  },
  {
    name: "field path: the empty key",
    rule: "docs/semantics.md 1.1",
    conditions: { "": "a" },
    issues: [{ code: "invalid_field_path", path: [""] }],
  },
  {
    name: "field path: a $-segment after the first",
    rule: "docs/semantics.md 1.1",
    conditions: { "Custom.$where": "a" },
    issues: [{ code: "invalid_field_path", path: ["Custom.$where"] }],
  },

  // --- 1.1 Forbidden segments, in every position ---------------------------------------------------
  {
    name: "forbidden: __proto__ key from JSON.parse",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"__proto__": {"polluted": true}}'),
    issues: [{ code: "forbidden_key", path: ["__proto__"] }],
    messageIncludes: "'__proto__' is not allowed",
  },
  {
    name: "forbidden: constructor as a field",
    rule: "docs/semantics.md 1.1",
    conditions: { constructor: "x" },
    issues: [{ code: "forbidden_key", path: ["constructor"] }],
  },
  {
    name: "forbidden: prototype as a field",
    rule: "docs/semantics.md 1.1",
    conditions: { prototype: "x" },
    issues: [{ code: "forbidden_key", path: ["prototype"] }],
  },
  {
    name: "forbidden: a segment of a dotted path",
    rule: "docs/semantics.md 1.1",
    conditions: { "Custom.__proto__.polluted": true },
    issues: [{ code: "forbidden_key", path: ["Custom.__proto__.polluted"] }],
  },
  {
    name: "forbidden: constructor.prototype",
    rule: "docs/semantics.md 1.1",
    conditions: { "constructor.prototype": 1 },
    issues: [{ code: "forbidden_key", path: ["constructor.prototype"] }],
  },
  {
    name: "forbidden: in an operator object",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"Title": {"$eq": "a", "__proto__": {"x": 1}}}'),
    issues: [{ code: "forbidden_key", path: ["Title", "__proto__"] }],
  },
  {
    name: "forbidden: in the operator object of $not",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"Title": {"$not": {"$regex": "a", "constructor": 1}}}'),
    issues: [{ code: "forbidden_key", path: ["Title", "$not", "constructor"] }],
  },
  {
    name: "forbidden: beside $date in an operand",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse(`{"CreatedUtcTime": {"$gt": {"$date": "${D}", "__proto__": 1}}}`),
    issues: [{ code: "forbidden_key", path: ["CreatedUtcTime", "$gt", "__proto__"] }],
  },
  {
    name: "forbidden: inside a $numberLong date",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"CreatedUtcTime": {"$date": {"$numberLong": "0", "__proto__": 1}}}'),
    issues: [{ code: "forbidden_key", path: ["CreatedUtcTime", "$date", "__proto__"] }],
  },
  {
    name: "forbidden: inside a plain object value",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"Custom": {"__proto__": {"polluted": true}}}'),
    issues: [{ code: "forbidden_key", path: ["Custom", "__proto__"] }],
  },
  {
    name: "forbidden: in an element of $or",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"$or": [{"Title": "a"}, {"__proto__": {"x": 1}}]}'),
    issues: [{ code: "forbidden_key", path: ["$or", 1, "__proto__"] }],
  },
  {
    name: "forbidden: in an object inside $in",
    rule: "docs/semantics.md 1.1",
    conditions: JSON.parse('{"Tags": {"$in": ["a", {"constructor": 1}]}}'),
    issues: [{ code: "forbidden_key", path: ["Tags", "$in", 1, "constructor"] }],
  },

  // --- 1.2 Value forms ----------------------------------------------------------------------------
  {
    name: "plain object as a direct value: hint to use a dotted path",
    rule: "docs/semantics.md 1.2",
    conditions: { Custom: { Owner: "alice" } },
    issues: [{ code: "object_value", path: ["Custom"] }],
    messageIncludes: "use a dotted field path such as 'Custom.Name'",
  },
  {
    name: "empty object as a direct value",
    rule: "docs/semantics.md 1.2",
    conditions: { Title: {} },
    issues: [{ code: "object_value", path: ["Title"] }],
  },
  {
    name: "array as a direct value: hint to use $in",
    rule: "docs/semantics.md 1.2",
    conditions: { Severity: ["High", "Critical"] },
    issues: [{ code: "array_value", path: ["Severity"] }],
    messageIncludes: '{"$in": [...]}',
  },
  {
    name: "empty array as a direct value",
    rule: "docs/semantics.md 1.2",
    conditions: { Tags: [] },
    issues: [{ code: "array_value", path: ["Tags"] }],
  },
  {
    name: "mixing $-keys and plain keys",
    rule: "docs/semantics.md 1.2",
    conditions: { Title: { $regex: "^a", Name: "b" } },
    issues: [{ code: "mixed_operator_object", path: ["Title"] }],
    messageIncludes: "$regex and Name",
  },
  {
    name: "mixing $-keys and plain keys inside $not",
    rule: "docs/semantics.md 1.2",
    conditions: { Title: { $not: { $regex: "^a", x: 1 } } },
    issues: [{ code: "mixed_operator_object", path: ["Title", "$not"] }],
  },
  {
    name: "mixed object inside $and",
    rule: "docs/semantics.md 1.2",
    conditions: { $and: [{ Count: { $gt: 1, max: 3 } }] },
    issues: [{ code: "mixed_operator_object", path: ["$and", 0, "Count"] }],
  },
  {
    name: "pipe: an empty trailing alternative",
    rule: "docs/semantics.md 1.2",
    conditions: { IngestionType: "Webhook|" },
    issues: [{ code: "empty_alternative", path: ["IngestionType"] }],
  },
  {
    name: "pipe: a blank leading alternative",
    rule: "docs/semantics.md 1.2",
    conditions: { Status: " |Open" },
    issues: [{ code: "empty_alternative", path: ["Status"] }],
  },
  {
    name: "pipe: a blank middle alternative",
    rule: "docs/semantics.md 1.2",
    conditions: { Status: "Open|  |Closed" },
    issues: [{ code: "empty_alternative", path: ["Status"] }],
  },
  {
    name: "pipe: each alternative is a label",
    rule: "docs/semantics.md 1.2, 1.6",
    conditions: { IngestionType: "Webhook|Fiel" },
    issues: [{ code: "unknown_label", path: ["IngestionType"] }],
    messageIncludes: "did you mean 'File'?",
  },
  {
    name: "pipe: an ordinary character on a non-alternative enumerated field",
    rule: "docs/semantics.md 1.2",
    conditions: { Severity: "High|Low" },
    issues: [{ code: "unknown_label", path: ["Severity"] }],
    messageIncludes: "'High|Low' is not a label of Severity",
  },
  {
    name: "pipe: on a custom alternative field",
    rule: "docs/semantics.md 1.2, 1.6",
    conditions: { Priority: "P1|P4" },
    catalog: customCatalog,
    issues: [{ code: "unknown_label", path: ["Priority"] }],
  },
  {
    name: "not a JSON value: NaN",
    rule: "docs/semantics.md 1.2",
    conditions: { Count: Number.NaN },
    issues: [{ code: "invalid_type", path: ["Count"] }],
  },
  {
    name: "not a JSON value: undefined, a function, a bigint, a symbol",
    rule: "docs/semantics.md 1.2",
    conditions: { A: undefined, B: () => 1, C: 10n, D: Symbol("x") },
    issues: [
      { code: "invalid_type", path: ["A"] },
      { code: "invalid_type", path: ["B"] },
      { code: "invalid_type", path: ["C"] },
      { code: "invalid_type", path: ["D"] },
    ],
  },
  {
    name: "not a JSON value: a Date instance (use $date)",
    rule: "docs/semantics.md 1.2, 1.4",
    conditions: { CreatedUtcTime: { $gt: new Date(0) } },
    issues: [{ code: "invalid_type", path: ["CreatedUtcTime", "$gt"] }],
    messageIncludes: "found a Date",
  },
  {
    name: "not a JSON value: a getter is never invoked",
    rule: "docs/semantics.md 1.1",
    conditions: withGetter("Title", () => {
      throw new Error("getter invoked");
    }),
    issues: [{ code: "invalid_type", path: ["Title"] }],
  },

  // --- 1.4 Dates ----------------------------------------------------------------------------------
  {
    name: "$date: missing Z",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00" } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$gt", "$date"] }],
    messageIncludes: "yyyy-MM-ddTHH:mm:ssZ",
  },
  {
    name: "$date: an offset instead of Z",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $lt: { $date: "2024-01-01T00:00:00+02:00" } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$lt", "$date"] }],
  },
  {
    name: "$date: an impossible calendar date",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $gte: { $date: "2024-02-30T00:00:00Z" } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$gte", "$date"] }],
  },
  {
    name: "$date: a date without a time",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $date: "2024-01-01" } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$date"] }],
  },
  {
    name: "$date: a number",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $date: 1704067200000 } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$date"] }],
  },
  {
    name: "$numberLong: not an integer string",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $gt: { $date: { $numberLong: "1.5e3" } } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$gt", "$date", "$numberLong"] }],
  },
  {
    name: "$numberLong: a number instead of a string",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $date: { $numberLong: 1704067200000 } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$date", "$numberLong"] }],
  },
  {
    name: "$numberLong: after the year 9999",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $date: { $numberLong: "253402300800000" } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$date", "$numberLong"] }],
  },
  {
    name: "$date: an object that is not $numberLong",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $date: { $numberLong: "0", $numberInt: "0" } } },
    issues: [{ code: "invalid_date", path: ["CreatedUtcTime", "$date"] }],
  },
  {
    name: "date field: a bare string in $gt, with the wrapping hint",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $gt: D } },
    issues: [{ code: "date_operand_required", path: ["CreatedUtcTime", "$gt"] }],
    messageIncludes: `write {"$date": "${D}"}`,
  },
  {
    name: "date field: a bare string as a direct value",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: D },
    issues: [{ code: "date_operand_required", path: ["CreatedUtcTime"] }],
  },
  {
    name: "date field: a number in $lt",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $lt: 1704067200000 } },
    issues: [{ code: "date_operand_required", path: ["CreatedUtcTime", "$lt"] }],
  },
  {
    name: "date field: null in a comparison",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $lte: null } },
    issues: [{ code: "date_operand_required", path: ["CreatedUtcTime", "$lte"] }],
  },
  {
    name: "date field: a bare string inside $in",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $in: [{ $date: D }, D] } },
    issues: [{ code: "date_operand_required", path: ["CreatedUtcTime", "$in", 1] }],
  },
  {
    name: "date field: a custom dotted date field",
    rule: "docs/semantics.md 1.4, 1.6",
    conditions: { "Custom.Seen": { $gt: "yesterday" } },
    catalog: customCatalog,
    issues: [{ code: "date_operand_required", path: ["Custom.Seen", "$gt"] }],
  },

  // --- 1.4 Operand types --------------------------------------------------------------------------
  {
    name: "text field: a number",
    rule: "docs/semantics.md 1.4",
    conditions: { Number: 123 },
    issues: [{ code: "operand_type", path: ["Number"] }],
    messageIncludes: "Number is a text field: expected a string, found the number 123",
  },
  {
    name: "text field: a boolean",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: true },
    issues: [{ code: "operand_type", path: ["Title"] }],
  },
  {
    name: "text field: a number in $gt",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $gt: 5 } },
    issues: [{ code: "operand_type", path: ["Title", "$gt"] }],
  },
  {
    name: "text field: a $date operand",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $date: D } },
    issues: [{ code: "operand_type", path: ["Title"] }],
  },
  {
    name: "text field: a number inside $nin",
    rule: "docs/semantics.md 1.4",
    conditions: { Category: { $nin: ["Phishing", 7] } },
    issues: [{ code: "operand_type", path: ["Category", "$nin", 1] }],
  },
  {
    name: "enumerated field: a number inside $in",
    rule: "docs/semantics.md 1.4",
    conditions: { Severity: { $in: ["High", 3] } },
    issues: [{ code: "operand_type", path: ["Severity", "$in", 1] }],
    messageIncludes: "Severity is an enumerated field",
  },
  {
    name: "comparison: a boolean operand on a text field",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $gt: true } },
    issues: [{ code: "operand_type", path: ["Title", "$gt"] }],
  },
  {
    name: "comparison: a null operand on a text field",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $lte: null } },
    issues: [{ code: "operand_type", path: ["Title", "$lte"] }],
  },
  {
    name: "comparison: an array operand",
    rule: "docs/semantics.md 1.4",
    conditions: { Count: { $gt: [1] } },
    issues: [{ code: "invalid_type", path: ["Count", "$gt"] }],
  },
  {
    name: "comparison: Infinity is not a JSON number",
    rule: "docs/semantics.md 1.4",
    conditions: { Count: { $lt: Number.POSITIVE_INFINITY } },
    issues: [{ code: "invalid_type", path: ["Count", "$lt"] }],
  },
  {
    name: "$eq: an object operand",
    rule: "docs/semantics.md 1.2",
    conditions: { Custom: { $eq: { Owner: "a" } } },
    issues: [{ code: "invalid_type", path: ["Custom", "$eq"] }],
  },
  {
    name: "$ne: an array operand",
    rule: "docs/semantics.md 1.2",
    conditions: { Tags: { $ne: ["a"] } },
    issues: [{ code: "invalid_type", path: ["Tags", "$ne"] }],
  },

  // --- 1.6 Labels ---------------------------------------------------------------------------------
  {
    name: "label: did you mean, by edit distance",
    rule: "docs/semantics.md 1.6",
    conditions: { IngestionType: "Webhok" },
    issues: [{ code: "unknown_label", path: ["IngestionType"] }],
    messageIncludes: "did you mean 'Webhook'?",
  },
  {
    name: "label: did you mean, case-insensitive match preferred",
    rule: "docs/semantics.md 1.6",
    conditions: { Severity: "high" },
    issues: [{ code: "unknown_label", path: ["Severity"] }],
    messageIncludes: "did you mean 'High'?",
  },
  {
    name: "label: did you mean, a transposition",
    rule: "docs/semantics.md 1.6",
    conditions: { Severity: { $eq: "Hihg" } },
    issues: [{ code: "unknown_label", path: ["Severity", "$eq"] }],
    messageIncludes: "did you mean 'High'?",
  },
  {
    name: "label: did you mean, spaces ignored",
    rule: "docs/semantics.md 1.6",
    conditions: { IngestionType: "ScheduleJob" },
    issues: [{ code: "unknown_label", path: ["IngestionType"] }],
    messageIncludes: "did you mean 'Schedule Job'?",
  },
  {
    name: "label: inside $nin",
    rule: "docs/semantics.md 1.6",
    conditions: { Status: { $nin: ["Closed", "Opn"] } },
    issues: [{ code: "unknown_label", path: ["Status", "$nin", 1] }],
    messageIncludes: "did you mean 'Open'?",
  },
  {
    name: "label: in $ne",
    rule: "docs/semantics.md 1.6",
    conditions: { Severity: { $ne: "Critcal" } },
    issues: [{ code: "unknown_label", path: ["Severity", "$ne"] }],
    messageIncludes: "did you mean 'Critical'?",
  },
  {
    name: "label: nothing near, the labels are listed",
    rule: "docs/semantics.md 1.6",
    conditions: { Severity: "Banana" },
    issues: [{ code: "unknown_label", path: ["Severity"] }],
    messageIncludes: "expected one of 'Critical', 'High', 'Medium', 'Low', 'Informational'.",
  },
  {
    name: "label: a label added to the catalogue is suggested",
    rule: "docs/semantics.md 1.6",
    conditions: { Severity: "Unasigned" },
    catalog: severityPlus,
    issues: [{ code: "unknown_label", path: ["Severity"] }],
    messageIncludes: "did you mean 'Unassigned'?",
  },
  {
    name: "label: a custom enumerated field",
    rule: "docs/semantics.md 1.6",
    conditions: { Priority: { $in: ["P1", "p2"] } },
    catalog: customCatalog,
    issues: [{ code: "unknown_label", path: ["Priority", "$in", 1] }],
    messageIncludes: "did you mean 'P2'?",
  },

  // --- 1.3, 1.4 Operators and their operands -----------------------------------------------------
  {
    name: "$in: not an array",
    rule: "docs/semantics.md 1.4",
    conditions: { Severity: { $in: "High" } },
    issues: [{ code: "invalid_type", path: ["Severity", "$in"] }],
  },
  {
    name: "$in: an array element",
    rule: "docs/semantics.md 1.4",
    conditions: { Tags: { $in: ["a", ["b"]] } },
    issues: [{ code: "invalid_type", path: ["Tags", "$in", 1] }],
  },
  {
    name: "$all: an object element",
    rule: "docs/semantics.md 1.4",
    conditions: { Tags: { $all: [{ tag: "a" }] } },
    issues: [{ code: "invalid_type", path: ["Tags", "$all", 0] }],
  },
  {
    name: "$in: a hole in a sparse array",
    rule: "docs/semantics.md 1.4",
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point of the case
    conditions: { Tags: { $in: ["a", , "b"] } },
    issues: [{ code: "invalid_type", path: ["Tags", "$in", 1] }],
  },
  {
    name: "$regex: not a string",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: 5 } },
    issues: [{ code: "invalid_type", path: ["Title", "$regex"] }],
  },
  {
    name: "$regex: a JS RegExp is not JSON",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: /^a/ } },
    issues: [{ code: "invalid_type", path: ["Title", "$regex"] }],
  },
  {
    name: "$regex: a backreference, with RE2's reason",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(a)\\1" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "invalid escape sequence",
  },
  {
    name: "$regex: a lookahead",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "^(?=Phish)" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "invalid or unsupported Perl syntax",
  },
  {
    name: "$regex: a NUL character in the pattern, refused as MongoDB refuses it (jstests regex/regex_error.js)",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "a\u0000b" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "NUL character (U+0000), which MongoDB refuses",
  },
  {
    name: "$regex: a NUL character under $not and in an open field",
    rule: "docs/semantics.md 1.4",
    conditions: {
      $or: [{ Title: { $not: { $regex: "\u0000" } } }, { "Custom.Owner": { $regex: "^\u0000" } }],
    },
    issues: [
      { code: "invalid_regex", path: ["$or", 0, "Title", "$not", "$regex"] },
      { code: "invalid_regex", path: ["$or", 1, "Custom.Owner", "$regex"] },
    ],
  },
  {
    name: "arrays and objects inside $in, $nin, $all, $ne (MongoDB compares whole arrays: jstests ne/ne_array.js)",
    rule: "docs/semantics.md 1.11",
    conditions: {
      $or: [
        { a: { $ne: [1, 3] } },
        { a: { $not: { $in: [[1, 3]] } } },
        { a: { $nin: [{ b: 1 }] } },
        { a: { $all: [[1]] } },
      ],
    },
    issues: [
      { code: "invalid_type", path: ["$or", 0, "a", "$ne"] },
      { code: "invalid_type", path: ["$or", 1, "a", "$not", "$in", 0] },
      { code: "invalid_type", path: ["$or", 2, "a", "$nin", 0] },
      { code: "invalid_type", path: ["$or", 3, "a", "$all", 0] },
    ],
  },
  {
    name: "$regex: unbalanced parenthesis",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(Phish" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "missing closing )",
  },
  {
    name: "$options: the x flag",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "a", $options: "x" } },
    issues: [{ code: "invalid_regex_options", path: ["Title", "$options"] }],
    messageIncludes: 'the flag "x" is not supported',
  },
  {
    name: "$options: the g and u flags",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "a", $options: "gu" } },
    issues: [{ code: "invalid_regex_options", path: ["Title", "$options"] }],
  },
  {
    name: "$options: a flag twice",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $options: "imi", $regex: "a" } },
    issues: [{ code: "invalid_regex_options", path: ["Title", "$options"] }],
    messageIncludes: "more than once",
  },
  {
    name: "$options: without $regex",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $options: "i" } },
    issues: [{ code: "invalid_regex_options", path: ["Title", "$options"] }],
    messageIncludes: "needs a $regex",
  },
  {
    name: "$options: not a string",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "a", $options: ["i"] } },
    issues: [{ code: "invalid_type", path: ["Title", "$options"] }],
  },
  {
    name: "$exists: a number other than 1 and 0",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $exists: 2 } },
    issues: [{ code: "invalid_type", path: ["Title", "$exists"] }],
    messageIncludes: "Expected true, false, 1 or 0 for $exists, found the number 2.",
  },
  {
    name: "$exists: a string",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $exists: "true" } },
    issues: [{ code: "invalid_type", path: ["Title", "$exists"] }],
  },
  {
    name: "$size: negative",
    rule: "docs/semantics.md 1.3",
    conditions: { Tags: { $size: -1 } },
    issues: [{ code: "invalid_size", path: ["Tags", "$size"] }],
  },
  {
    name: "$size: a fraction",
    rule: "docs/semantics.md 1.3",
    conditions: { Tags: { $size: 1.5 } },
    issues: [{ code: "invalid_size", path: ["Tags", "$size"] }],
  },
  {
    name: "$size: a string",
    rule: "docs/semantics.md 1.3",
    conditions: { Tags: { $size: "3" } },
    issues: [{ code: "invalid_size", path: ["Tags", "$size"] }],
  },
  {
    name: "$not: a string",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $not: "Phish" } },
    issues: [{ code: "invalid_type", path: ["Title", "$not"] }],
  },
  {
    name: "$not: an empty object",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $not: {} } },
    issues: [{ code: "invalid_type", path: ["Title", "$not"] }],
  },
  {
    name: "$not: a plain object",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $not: { Name: "a" } } },
    issues: [{ code: "invalid_type", path: ["Title", "$not"] }],
  },
  {
    name: "$not: a logical operator inside",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $not: { $or: [{ Title: "a" }] } } },
    issues: [{ code: "misplaced_operator", path: ["Title", "$not", "$or"] }],
    messageIncludes: "cannot stand inside $not",
  },
  {
    name: "$not: an empty $not inside $not",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $not: { $not: {} } } },
    issues: [{ code: "invalid_type", path: ["Title", "$not", "$not"] }],
  },
  {
    name: "$not: an unknown operator inside",
    rule: "docs/semantics.md 1.3",
    conditions: { Title: { $not: { $where: "1" } } },
    issues: [{ code: "unknown_operator", path: ["Title", "$not", "$where"] }],
  },
  {
    name: "$not: a bad pattern inside, in an element of $or",
    rule: "docs/semantics.md 1.3, 1.4",
    conditions: { $or: [{ Severity: "High" }, { Title: { $not: { $regex: "a{2,1}" } } }] },
    issues: [{ code: "invalid_regex", path: ["$or", 1, "Title", "$not", "$regex"] }],
  },

  // --- 1.7 Limits: small overridden limits --------------------------------------------------------
  {
    name: "limit depth (2): an operator's array",
    rule: "docs/semantics.md 1.7",
    conditions: { Tags: { $in: ["a"] } },
    options: { limits: { depth: 2 } },
    issues: [{ code: "limit_exceeded", path: ["Tags", "$in"] }],
    messageIncludes: "nesting depth to be at most 2",
  },
  {
    name: "limit depth (1): $and's array",
    rule: "docs/semantics.md 1.7",
    conditions: { $and: [{ Title: "a" }] },
    options: { limits: { depth: 1 } },
    issues: [{ code: "limit_exceeded", path: ["$and"] }],
  },
  {
    name: "limit depth (3): the $numberLong object",
    rule: "docs/semantics.md 1.7",
    conditions: { CreatedUtcTime: { $gt: { $date: { $numberLong: "0" } } } },
    options: { limits: { depth: 3 } },
    issues: [{ code: "limit_exceeded", path: ["CreatedUtcTime", "$gt", "$date"] }],
  },
  {
    name: "limit depth (3): several too-deep subtrees are each reported",
    rule: "docs/semantics.md 1.7, 1.8",
    conditions: { $or: [{ A: { $in: [1] } }, { B: { $nin: [2] } }] },
    options: { limits: { depth: 3 } },
    issues: [
      { code: "limit_exceeded", path: ["$or", 0, "A"] },
      { code: "limit_exceeded", path: ["$or", 1, "B"] },
    ],
  },
  {
    name: "limit nodes (3): the fourth node",
    rule: "docs/semantics.md 1.7",
    conditions: { A: 1, B: 2, C: 3 },
    options: { limits: { nodes: 3 } },
    issues: [{ code: "limit_exceeded", path: ["C"] }],
    messageIncludes: "number of nodes in one condition to be at most 3",
  },
  {
    name: "limit nodes (6): inside a root array",
    rule: "docs/semantics.md 1.7",
    conditions: [{ A: 1 }, { B: 2 }, { C: 3 }],
    // root, [0], A, [1], B, [2] make six nodes; C is the seventh.
    options: { limits: { nodes: 6 } },
    issues: [{ code: "limit_exceeded", path: [2, "C"] }],
  },
  {
    name: "limit setSize (2): $in",
    rule: "docs/semantics.md 1.7",
    conditions: { Tags: { $in: [1, 2, 3] } },
    options: { limits: { setSize: 2 } },
    issues: [{ code: "limit_exceeded", path: ["Tags", "$in"] }],
    messageIncludes: "found 3",
  },
  {
    name: "limit setSize (2): $all and $nin",
    rule: "docs/semantics.md 1.7",
    conditions: { Tags: { $all: ["a", "b", "c"], $nin: ["d", "e", "f"] } },
    options: { limits: { setSize: 2 } },
    issues: [
      { code: "limit_exceeded", path: ["Tags", "$all"] },
      { code: "limit_exceeded", path: ["Tags", "$nin"] },
    ],
  },
  {
    name: "limit stringLength (5): a direct value",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: "abcdef" },
    options: { limits: { stringLength: 5 } },
    issues: [{ code: "limit_exceeded", path: ["Title"] }],
  },
  {
    name: "limit stringLength (5): an element of $in and a pipe string",
    rule: "docs/semantics.md 1.7",
    conditions: { Tags: { $in: ["abc", "abcdef"] }, Status: "Open|Closed" },
    options: { limits: { stringLength: 5 } },
    issues: [
      { code: "limit_exceeded", path: ["Tags", "$in", 1] },
      { code: "limit_exceeded", path: ["Status"] },
    ],
  },
  {
    name: "limit patternLength (3)",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "abcd" } },
    options: { limits: { patternLength: 3 } },
    issues: [{ code: "limit_exceeded", path: ["Title", "$regex"] }],
    messageIncludes: "length of one regex pattern to be at most 3",
  },

  // --- 1.7 Limits: the defaults -------------------------------------------------------------------
  {
    name: "default depth 32: 40 nested $and",
    rule: "docs/semantics.md 1.7",
    conditions: nestedAnd(40),
    // The object inside the 16th $and is at depth 33 (root 1, then an array and an object per level).
    issues: [{ code: "limit_exceeded", path: andPath(16) }],
    messageIncludes: "at most 32",
  },
  {
    name: "default nodes 1,000: an object of 1,000 entries",
    rule: "docs/semantics.md 1.7",
    conditions: wideObject(1000),
    issues: [{ code: "limit_exceeded", path: ["f999"] }],
    messageIncludes: "at most 1000",
  },
  {
    name: "default setSize 10,000: 10,001 values in $in",
    rule: "docs/semantics.md 1.7",
    conditions: { Tags: { $in: Array.from({ length: 10_001 }, (_, i) => i) } },
    issues: [{ code: "limit_exceeded", path: ["Tags", "$in"] }],
    messageIncludes: "found 10001",
  },
  {
    name: "default stringLength 10,000",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: "x".repeat(10_001) },
    issues: [{ code: "limit_exceeded", path: ["Title"] }],
  },
  {
    name: "default patternLength 1,000",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "a".repeat(1001) } },
    issues: [{ code: "limit_exceeded", path: ["Title", "$regex"] }],
  },

  // --- 1.8 Every issue is collected, with its path ------------------------------------------------
  {
    name: "collected: four problems in one object",
    rule: "docs/semantics.md 1.8",
    conditions: { Severity: "Hihg", CreatedUtcTime: "2024", Title: { $regex: "(" }, $where: "1" },
    issues: [
      { code: "unknown_label", path: ["Severity"] },
      { code: "date_operand_required", path: ["CreatedUtcTime"] },
      { code: "invalid_regex", path: ["Title", "$regex"] },
      { code: "unknown_operator", path: ["$where"] },
    ],
    messageIncludes: "did you mean 'High'?",
  },
  {
    name: "collected: paths through $or, $and and $nor",
    rule: "docs/semantics.md 1.8",
    conditions: {
      $or: [
        { Title: "a" },
        {
          $and: [
            { Severity: { $in: ["High", "Hgh"] } },
            { $nor: [{ CreatedUtcTime: { $gt: { $date: "bad" } } }] },
          ],
        },
      ],
    },
    issues: [
      { code: "unknown_label", path: ["$or", 1, "$and", 0, "Severity", "$in", 1] },
      { code: "invalid_date", path: ["$or", 1, "$and", 1, "$nor", 0, "CreatedUtcTime", "$gt", "$date"] },
    ],
  },
  {
    name: "collected: paths in a root array",
    rule: "docs/semantics.md 1.8",
    conditions: [{ Title: { $regex: "(?=a)" } }, { Severity: 1 }, { Status: "Open|" }],
    issues: [
      { code: "invalid_regex", path: [0, "Title", "$regex"] },
      { code: "operand_type", path: [1, "Severity"] },
      { code: "empty_alternative", path: [2, "Status"] },
    ],
  },
  {
    name: "collected: several problems in one operator object",
    rule: "docs/semantics.md 1.8",
    conditions: { Tags: { $size: -2, $exists: "yes", $all: "a", $in: [1, {}] } },
    issues: [
      { code: "invalid_size", path: ["Tags", "$size"] },
      { code: "invalid_type", path: ["Tags", "$exists"] },
      { code: "invalid_type", path: ["Tags", "$all"] },
      { code: "invalid_type", path: ["Tags", "$in", 1] },
    ],
  },
  {
    name: "collected: every unknown label of a pipe string",
    rule: "docs/semantics.md 1.6, 1.8",
    conditions: { $nor: [{ Status: "Opn|Closd|Open" }] },
    issues: [{ code: "unknown_label", path: ["$nor", 0, "Status"] }],
    messageIncludes: "did you mean 'Open'?",
  },
  // --- 1.1 Field-name near misses and strict catalogues (guard) -------------------------------------
  {
    name: "field near miss: case",
    rule: "docs/semantics.md 1.1",
    conditions: { severity: "High" },
    issues: [{ code: "unknown_field", path: ["severity"] }],
    messageIncludes: "did you mean 'Severity'?",
  },
  {
    name: "field near miss: underscores and case",
    rule: "docs/semantics.md 1.1",
    conditions: { Created_UTC_Time: { $gt: { $date: D } } },
    issues: [{ code: "unknown_field", path: ["Created_UTC_Time"] }],
    messageIncludes: "did you mean 'CreatedUtcTime'?",
  },
  {
    name: "field near miss: spaces and hyphens, inside $or",
    rule: "docs/semantics.md 1.1",
    conditions: { $or: [{ Title: "x" }, { "ingestion-type": "Webhook" }, { "Custom Field 1": "a" }] },
    issues: [
      { code: "unknown_field", path: ["$or", 1, "ingestion-type"] },
      { code: "unknown_field", path: ["$or", 2, "Custom Field 1"] },
    ],
    messageIncludes: "did you mean 'IngestionType'?",
  },
  {
    name: "field near miss: a dotted catalogue field",
    rule: "docs/semantics.md 1.1",
    catalog: customCatalog,
    conditions: { "custom.seen": { $exists: true } },
    issues: [{ code: "unknown_field", path: ["custom.seen"] }],
    messageIncludes: "did you mean 'Custom.Seen'?",
  },
  {
    name: "strict catalogue: an open field is refused with the nearest field",
    rule: "docs/semantics.md 1.1",
    catalog: extendCatalog(DEFAULT_CATALOG, { strictFields: true }),
    conditions: { Titel: "x", Severity: "High" },
    issues: [{ code: "unknown_field", path: ["Titel"] }],
    messageIncludes: "did you mean 'Title'?",
  },
  {
    name: "strict catalogue: a field far from every catalogue field",
    rule: "docs/semantics.md 1.1",
    catalog: extendCatalog(DEFAULT_CATALOG, { strictFields: true }),
    conditions: [{ Score: { $gt: 1 } }, { "Custom.Owner": "alice" }],
    issues: [
      { code: "unknown_field", path: [0, "Score"] },
      { code: "unknown_field", path: [1, "Custom.Owner"] },
    ],
    messageIncludes: "allows only its own fields.",
  },
  // --- 1.4 A JS Date is not JSON: the $date operand to write instead (guard) -----------------------
  {
    name: "a Date object as a range operand: the $date hint",
    rule: "docs/semantics.md 1.4",
    conditions: { CreatedUtcTime: { $gt: new Date("2024-03-01T12:00:00Z") } },
    issues: [{ code: "invalid_type", path: ["CreatedUtcTime", "$gt"] }],
    messageIncludes: 'found a Date; write {"$date": "2024-03-01T12:00:00.000Z"} instead',
  },
  {
    name: "a Date object as a direct value and inside $in: the $date hint",
    rule: "docs/semantics.md 1.4",
    conditions: { SeenAt: new Date(Date.UTC(2024, 0, 2)), Tags: { $in: ["a", new Date(0)] } },
    issues: [
      { code: "invalid_type", path: ["SeenAt"] },
      { code: "invalid_type", path: ["Tags", "$in", 1] },
    ],
    messageIncludes: '{"$date": "2024-01-02T00:00:00.000Z"}',
  },
  // --- 1.4: RE2 refusals name the unsupported construct first, then quote the engine ------
  {
    name: "regex: lookbehind is named as such before the engine's wording",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(?<=a)b" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "lookbehind ((?<=…), (?<!…)) is not supported (RE2: invalid named capture: `(?<=a)b`)",
  },
  {
    name: "regex: negative lookbehind",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(?<!a)b" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "lookbehind ((?<=…), (?<!…)) is not supported",
  },
  {
    name: "regex: lookahead",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "Phish(?!ing)" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes:
      "lookahead ((?=…), (?!…)) is not supported (RE2: invalid or unsupported Perl syntax: `(?!`)",
  },
  {
    name: "regex: a backreference",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(a)\\1" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes:
      "backreferences (\\1, \\k<name>) are not supported (RE2: invalid escape sequence: `\\1`)",
  },
  {
    name: "regex: a named backreference",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(?<w>a)\\k<w>" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "backreferences",
  },
  {
    name: "regex: a possessive quantifier",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $not: { $regex: "a++" } } },
    issues: [{ code: "invalid_regex", path: ["Title", "$not", "$regex"] }],
    messageIncludes: "possessive quantifiers (a*+, a++, a?+, a{n}+) are not supported",
  },
  {
    name: "regex: an atomic group",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(?>ab|a)c" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "atomic groups ((?>…)) are not supported",
  },
  {
    name: "regex: \\C (any byte)",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "a\\Cb" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "\\C (any byte) is not supported",
  },
  {
    name: "regex: \\Z, with the RE2 spelling to use",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "exe\\Z" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: "use $ (or \\z)",
  },
  {
    name: "regex: a malformed pattern keeps the engine's own reason",
    rule: "docs/semantics.md 1.4",
    conditions: { Title: { $regex: "(a" } },
    issues: [{ code: "invalid_regex", path: ["Title", "$regex"] }],
    messageIncludes: 'found "(a": missing closing ): `(a`.',
  },
  // --- 1.7: the regex program budget (counted before anything is compiled) ------------------------
  {
    name: "regex budget: a pattern whose program exceeds 1,000 instructions",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "a{1000}b" } },
    issues: [{ code: "regex_program_too_large", path: ["Title", "$regex"] }],
    messageIncludes: "at most 1000 instructions",
  },
  {
    name: "regex budget: the hostile pattern is refused by count, not by building it",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "(?:|a){1000}".repeat(82) } },
    issues: [{ code: "regex_program_too_large", path: ["Title", "$regex"] }],
    messageIncludes: "which compiles to 246000",
  },
  {
    name: "regex budget: the .{1000} repeated, which took 1.3 s to match",
    rule: "docs/semantics.md 1.7",
    conditions: { Description: { $regex: ".{1000}".repeat(141) } },
    issues: [{ code: "regex_program_too_large", path: ["Description", "$regex"] }],
  },
  {
    name: "regex budget: the nested counted repetitions multiply",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "(?:(?:ab){10}){50}c{10}" } },
    issues: [{ code: "regex_program_too_large", path: ["Title", "$regex"] }],
    messageIncludes: "which compiles to 1010",
  },
  {
    name: "regex budget: a character class counts once per range, under the i flag too",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "[a-c][e-g][i-k]{400}", $options: "i" } },
    issues: [{ code: "regex_program_too_large", path: ["Title", "$regex"] }],
    messageIncludes: "which compiles to 1204",
  },
  {
    name: "regex budget: exactly 1,000 instructions is allowed, the total crosses at the fifth pattern",
    rule: "docs/semantics.md 1.7",
    conditions: {
      $or: [1, 2, 3, 4, 5].map((i) => ({ Title: { $regex: `a{999}${i}` } })),
    },
    issues: [{ code: "regex_programs_too_large", path: ["$or", 4, "Title", "$regex"] }],
    messageIncludes: "at most 4000 instructions in all, found 5000",
  },
  {
    name: "regex budget: patterns after the total is crossed are not examined",
    rule: "docs/semantics.md 1.7",
    conditions: [
      { Title: { $regex: "x{600}" } },
      { Description: { $regex: "y{600}" } },
      { Title: { $regex: "(?=not examined)" } },
    ],
    options: { limits: { regexProgramTotal: 1000 } },
    issues: [{ code: "regex_programs_too_large", path: [1, "Description", "$regex"] }],
  },
  {
    name: "regex budget: limits are configurable",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "^Phish(ing)?" } },
    options: { limits: { regexProgramSize: 10 } },
    issues: [{ code: "regex_program_too_large", path: ["Title", "$regex"] }],
    messageIncludes: 'at most 10 instructions, found "^Phish(ing)?", which compiles to 12',
  },
  {
    name: "regex budget: case folding of a wide class range counts, and is refused before parsing",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "[\\x{100}-\\x{1e943}]", $options: "i" } },
    issues: [{ code: "regex_program_too_large", path: ["Title", "$regex"] }],
    messageIncludes: "which compiles to at least 2499",
  },
  {
    name: "regex budget: the same range without case folding is one instruction",
    rule: "docs/semantics.md 1.7",
    conditions: { Title: { $regex: "[\\x{100}-\\x{1e943}]", $options: "m" }, Severity: 1 },
    issues: [{ code: "operand_type", path: ["Severity"] }],
  },
];
