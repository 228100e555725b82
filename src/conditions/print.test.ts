import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import type { Condition } from "./ast.js";
import { INGESTION_TYPE_LABELS, SEVERITY_LABELS, STATUS_LABELS } from "./catalog.js";
import { MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "./dates.js";
import { parseSearchConditions } from "./parse.js";
import { explain, toSearchConditions } from "./print.js";

/** Parse, print, parse again: the two conditions must be deeply equal. */
function roundTrip(raw: unknown): { condition: Condition; printed: unknown; reparsed: Condition } {
  const condition = parseSearchConditions(raw);
  const printed = toSearchConditions(condition);
  return { condition, printed, reparsed: parseSearchConditions(printed) };
}

describe("toSearchConditions: canonical form (table)", () => {
  const D = "2024-01-01T00:00:00Z";
  const cases: readonly (readonly [string, unknown, unknown])[] = [
    ["{} stays {}", {}, {}],
    ["a plain value", { Title: "a" }, { Title: "a" }],
    ["$eq becomes a plain value", { Title: { $eq: "a" } }, { Title: "a" }],
    ["null stays null", { Title: { $eq: null } }, { Title: null }],
    ["-0 prints as 0", { Count: -0 }, { Count: 0 }],
    ["a string with a pipe keeps $eq", { Title: "a|b" }, { Title: { $eq: "a|b" } }],
    [
      "pipe alternatives print trimmed",
      { IngestionType: " Webhook | File" },
      { IngestionType: "Webhook|File" },
    ],
    ["one pipe alternative prints twice", { Status: "Open|Open" }, { Status: "Open|Open" }],
    [
      "$in is de-duplicated",
      { Severity: { $in: ["High", "High", "Low"] } },
      { Severity: { $in: ["High", "Low"] } },
    ],
    [
      "dates print as ISO, without .000",
      {
        CreatedUtcTime: {
          $lt: { $date: { $numberLong: "1704067200000" } },
          $gte: { $date: "2023-01-01T00:00:00.000Z" },
        },
      },
      { CreatedUtcTime: { $gte: { $date: "2023-01-01T00:00:00Z" }, $lt: { $date: D } } },
    ],
    [
      "milliseconds are kept",
      { When: { $date: "2024-01-01T00:00:00.007Z" } },
      { When: { $date: "2024-01-01T00:00:00.007Z" } },
    ],
    ["a root array prints as $or", [{ A: 1 }, { B: 2 }], { $or: [{ A: 1 }, { B: 2 }] }],
    ["$and of one stays $and", { $and: [{ A: 1 }] }, { $and: [{ A: 1 }] }],
    ["$and of distinct fields becomes one object", { $and: [{ A: 1 }, { B: 2 }] }, { A: 1, B: 2 }],
    [
      "$and of one field becomes one operator object",
      { $and: [{ A: 1 }, { A: { $ne: 2 } }] },
      { A: { $eq: 1, $ne: 2 } },
    ],
    ["$and of one operator twice stays $and", { $and: [{ A: 1 }, { A: 2 }] }, { $and: [{ A: 1 }, { A: 2 }] }],
    [
      "$and of two ranges of one type stays $and (they would merge)",
      { $and: [{ A: { $gt: 1 } }, { A: { $lt: 5 } }] },
      { $and: [{ A: { $gt: 1 } }, { A: { $lt: 5 } }] },
    ],
    [
      "two lower bounds print back as they were",
      { Count: { $gt: 5, $gte: 3 } },
      { Count: { $gt: 5, $gte: 3 } },
    ],
    [
      "a second full range on one field prints under $and",
      { $and: [{ Count: { $gt: 1, $lt: 9 } }, { Count: { $gte: 3, $lte: 5 } }] },
      { $and: [{ Count: { $gt: 1, $lt: 9 } }, { Count: { $gte: 3, $lte: 5 } }] },
    ],
    [
      "a single bound after a full range joins its object",
      { $and: [{ Count: { $gt: 1, $lt: 9 } }, { Count: { $gte: 3 } }] },
      { Count: { $gt: 1, $lt: 9, $gte: 3 } },
    ],
    [
      "$not with two upper bounds",
      { Count: { $not: { $lt: 5, $lte: 4, $exists: false } } },
      { Count: { $not: { $lt: 5, $lte: 4, $exists: false } } },
    ],
    ["ranges of two types share one object", { V: { $gt: 1, $lt: "z" } }, { V: { $gt: 1, $lt: "z" } }],
    [
      "$options are sorted",
      { Title: { $regex: "^a", $options: "mi" } },
      { Title: { $regex: "^a", $options: "im" } },
    ],
    ["empty $options are dropped", { Title: { $regex: "^a", $options: "" } }, { Title: { $regex: "^a" } }],
    ["$not", { Title: { $not: { $regex: "^a" } } }, { Title: { $not: { $regex: "^a" } } }],
    ["$not with several operators", { N: { $not: { $gt: 1, $ne: 5 } } }, { N: { $not: { $gt: 1, $ne: 5 } } }],
    [
      "$not beside other operators",
      { N: { $exists: true, $not: { $eq: 1 } } },
      { N: { $exists: true, $not: { $eq: 1 } } },
    ],
    ["$size and $all", { Tags: { $size: 2, $all: ["a"] } }, { Tags: { $size: 2, $all: ["a"] } }],
    [
      "logical entries keep their order",
      { $nor: [{ T: "a" }], $or: [{ B: 1 }] },
      { $nor: [{ T: "a" }], $or: [{ B: 1 }] },
    ],
    [
      "logical entries beside fields",
      { $or: [{ A: 1 }], B: 2, $and: [{ C: 3 }, { D: 4 }] },
      { $or: [{ A: 1 }], B: 2, $and: [{ C: 3 }, { D: 4 }] },
    ],
    [
      "two $or children collide and print under $and",
      { $and: [{ $or: [{ A: 1 }] }, { $or: [{ B: 2 }] }] },
      { $and: [{ $or: [{ A: 1 }] }, { $or: [{ B: 2 }] }] },
    ],
    ["{} inside $and", { $and: [{}, { A: 1 }] }, { $and: [{}, { A: 1 }] }],
    ["an array-index field name first keeps the object", { "1": "x", A: 1 }, { "1": "x", A: 1 }],
    [
      "an array-index field name after another prints under $and",
      { $and: [{ A: 1 }, { "1": "x" }] },
      { $and: [{ A: 1 }, { "1": "x" }] },
    ],
    ["dotted paths", { "Custom.Owner": { $exists: true } }, { "Custom.Owner": { $exists: true } }],
  ];

  it.each(cases)("%s", (_name, raw, expected) => {
    const { condition, printed, reparsed } = roundTrip(raw);
    expect(printed).toEqual(expected);
    expect(Object.keys(printed as object)).toEqual(Object.keys(expected as object));
    expect(reparsed).toEqual(condition);
  });

  it.each<[string, Condition]>([
    [
      "a date outside the years 0000-9999 (the parser refuses one)",
      {
        kind: "eq",
        path: ["When"],
        fieldKind: "open",
        operand: { type: "date", value: MAX_ISO_EPOCH_MS + 1 },
      },
    ],
    [
      "a not node whose child is not field operators",
      { kind: "not", child: { kind: "or", children: [] } } as unknown as Condition,
    ],
    [
      "a prototype-named path",
      { kind: "eq", path: ["__proto__"], fieldKind: "open", operand: { type: "number", value: 1 } },
    ],
  ])("refuses a hand-built condition: %s", (_name, condition) => {
    expect(() => toSearchConditions(condition)).toThrowError(/call parseSearchConditions/);
    expect(() => explain(condition)).toThrowError(/call parseSearchConditions/);
  });

  it("never creates keys that set a prototype", () => {
    const printed = toSearchConditions(parseSearchConditions({ "a.__proto__x": 1, constructorx: 2 }));
    expect(Object.getPrototypeOf(printed)).toBe(Object.prototype);
    expect(Object.keys(printed)).toEqual(["a.__proto__x", "constructorx"]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Valid raw Search Conditions for the default catalogue (every operator, every field kind).

type Kind = "text" | "severity" | "ingestion" | "status" | "date" | "open";
const FIELDS: ReadonlyMap<string, Kind> = new Map<string, Kind>([
  ["Title", "text"],
  ["Category", "text"],
  ["Severity", "severity"],
  ["IngestionType", "ingestion"],
  ["Status", "status"],
  ["CreatedUtcTime", "date"],
  ["Count", "open"],
  ["Custom.Owner", "open"],
  ["1", "open"],
  ["toString", "open"],
]);
const LABELS = {
  severity: SEVERITY_LABELS,
  ingestion: INGESTION_TYPE_LABELS,
  status: STATUS_LABELS,
} as const;

const textArb = fc.constantFrom("Phish", "a|b", "", " spaced ", "Ünïcode", "1", "x, y", "null", "$not");
const numberArb = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const dateArb = fc.oneof(
  fc
    .constantFrom(
      "2024-01-01T00:00:00Z",
      "2024-03-01T12:00:00.250Z",
      "1969-07-20T20:17:40Z",
      "0000-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z",
    )
    .map((iso) => ({ $date: iso })),
  fc
    .integer({ min: MIN_ISO_EPOCH_MS, max: MAX_ISO_EPOCH_MS })
    .map((ms) => ({ $date: { $numberLong: String(ms) } })),
);

function valueArb(kind: Kind): fc.Arbitrary<unknown> {
  switch (kind) {
    case "text":
      return fc.oneof(textArb, fc.constant(null));
    case "severity":
    case "ingestion":
    case "status":
      return fc.oneof(fc.constantFrom(...LABELS[kind]), fc.constant(null));
    case "date":
      return fc.oneof(dateArb, fc.constant(null));
    case "open":
      return fc.oneof(textArb, numberArb, fc.boolean(), fc.constant(null), dateArb);
  }
}

function orderedArb(kind: Kind): fc.Arbitrary<unknown> {
  if (kind === "date") return dateArb;
  if (kind === "open") return fc.oneof(textArb, numberArb, dateArb, fc.boolean(), fc.constant(null));
  return textArb;
}

const flagsArb = fc.shuffledSubarray(["i", "m", "s"]).map((flags) => flags.join(""));
const patternArb = fc.constantFrom("^Phish", "a.b", "(?i)x", "[0-9]+", "a|b", "", "\\d{2,3}$");

function operatorObjectArb(kind: Kind, notDepth: number): fc.Arbitrary<Record<string, unknown>> {
  const setArb = fc.array(valueArb(kind), { maxLength: 3 });
  const operators: Record<string, fc.Arbitrary<unknown>> = {
    $eq: valueArb(kind),
    $ne: valueArb(kind),
    $gt: orderedArb(kind),
    $gte: orderedArb(kind),
    $lt: orderedArb(kind),
    $lte: orderedArb(kind),
    $in: setArb,
    $nin: setArb,
    $all: setArb,
    $regex: patternArb,
    $options: flagsArb,
    $exists: fc.constantFrom(true, false, 1, 0),
    $size: fc.nat(4),
  };
  if (kind === "date") {
    // $regex on a date field is refused by the parser (README: semantics).
    delete operators.$regex;
    delete operators.$options;
  }
  // `$not` inside `$not` (docs/semantics.md 1.3), two levels deep.
  if (notDepth > 0) operators.$not = operatorObjectArb(kind, notDepth - 1);
  return fc
    .shuffledSubarray(Object.keys(operators), { minLength: 1, maxLength: 4 })
    .filter((keys) => !keys.includes("$options") || keys.includes("$regex"))
    .chain((keys) => fc.tuple(...keys.map((key) => operators[key]!)).map((values) => objectOf(keys, values)));
}

function fieldValueArb(kind: Kind): fc.Arbitrary<unknown> {
  const forms: fc.Arbitrary<unknown>[] = [valueArb(kind), operatorObjectArb(kind, 2)];
  if (kind === "ingestion" || kind === "status") {
    forms.push(
      fc
        .array(fc.tuple(fc.constantFrom(...LABELS[kind]), fc.constantFrom("", " ")), {
          minLength: 2,
          maxLength: 3,
        })
        .map((parts) => parts.map(([label, space]) => `${space}${label}${space}`).join("|")),
    );
  }
  return fc.oneof(...forms);
}

function objectOf(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  keys.forEach((key, index) => {
    object[key] = values[index];
  });
  return object;
}

function conditionObjectArb(depth: number): fc.Arbitrary<Record<string, unknown>> {
  const keys = [...FIELDS.keys(), ...(depth > 0 ? ["$and", "$or", "$nor"] : [])];
  return fc
    .uniqueArray(fc.constantFrom(...keys), { maxLength: 3 })
    .chain((chosen) =>
      fc
        .tuple(
          ...chosen.map((key) =>
            key.startsWith("$")
              ? fc.array(conditionObjectArb(depth - 1), { minLength: 1, maxLength: 3 })
              : fieldValueArb(FIELDS.get(key)!),
          ),
        )
        .map((values) => objectOf(chosen, values)),
    );
}

const searchConditionsArb: fc.Arbitrary<unknown> = fc.oneof(
  conditionObjectArb(2),
  fc.array(conditionObjectArb(2), { minLength: 1, maxLength: 3 }),
);

describe("toSearchConditions: round trip (properties)", () => {
  it("parse(print(c)) equals c for every parsed condition, also through JSON text", () => {
    fc.assert(
      fc.property(searchConditionsArb, (raw) => {
        const { condition, printed, reparsed } = roundTrip(raw);
        expect(reparsed).toEqual(condition);
        expect(parseSearchConditions(JSON.parse(JSON.stringify(printed)))).toEqual(condition);
      }),
      fcOptions(400),
    );
  });

  it("printing is canonical: print(parse(print(c))) equals print(c)", () => {
    fc.assert(
      fc.property(searchConditionsArb, (raw) => {
        const printed = toSearchConditions(parseSearchConditions(raw));
        const again = toSearchConditions(parseSearchConditions(printed));
        expect(JSON.stringify(again)).toBe(JSON.stringify(printed));
      }),
      fcOptions(300),
    );
  });

  it("explain gives one non-empty line per clause, never throwing", () => {
    fc.assert(
      fc.property(searchConditionsArb, (raw) => {
        const text = explain(parseSearchConditions(raw));
        const lines = text.split("\n");
        expect(lines.every((line) => line.trim() !== "")).toBe(true);
      }),
      fcOptions(200),
    );
  });
});

describe("explain (table)", () => {
  const cases: readonly (readonly [string, unknown, string])[] = [
    ["{} is every incident", {}, "every incident"],
    ["$in", { Severity: { $in: ["High", "Critical"] } }, "Severity is one of High, Critical"],
    [
      "pipe alternatives",
      { IngestionType: "Schedule Job|Webhook" },
      "IngestionType is one of Schedule Job, Webhook",
    ],
    [
      "a date lower bound",
      { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } },
      "CreatedUtcTime after 2024-01-01T00:00:00Z",
    ],
    [
      "a date range",
      {
        CreatedUtcTime: {
          $gte: { $date: "2024-01-01T00:00:00Z" },
          $lte: { $date: "2024-02-01T00:00:00.500Z" },
        },
      },
      "CreatedUtcTime at or after 2024-01-01T00:00:00Z and at or before 2024-02-01T00:00:00.500Z",
    ],
    ["a number range", { Count: { $gte: 1, $lt: 5 } }, "Count >= 1 and < 5"],
    ["a regex with flags", { Title: { $regex: "^Phish", $options: "i" } }, "Title matches /^Phish/i"],
    [
      "the specification's sample",
      {
        IngestionType: "Webhook|File",
        Title: { $regex: "^Phish" },
        Severity: { $in: ["High"] },
        CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } },
      },
      [
        "all of:",
        "  IngestionType is one of Webhook, File",
        "  Title matches /^Phish/",
        "  Severity is one of High",
        "  CreatedUtcTime after 2024-01-01T00:00:00Z",
      ].join("\n"),
    ],
    [
      "nesting is indented",
      [{ A: 1 }, { $nor: [{ B: { $exists: false } }, { C: { $exists: true } }] }],
      ["any of:", "  A is 1", "  none of:", "    B does not exist", "    C exists"].join("\n"),
    ],
    ["$not of one clause", { Title: { $not: { $regex: "x" } } }, "not (Title matches /x/)"],
    [
      "$not of several clauses",
      { Count: { $not: { $gt: 1, $ne: 5 } } },
      "not all of:\n  Count > 1\n  Count is not 5",
    ],
    ["null equality", { Title: null }, "Title is null or missing"],
    ["$ne null", { Title: { $ne: null } }, "Title is present and not null"],
    ["a string that looks like a number is quoted", { Title: "1" }, 'Title is "1"'],
    ["a number is bare", { Count: 1 }, "Count is 1"],
    ["a boolean", { Flag: true }, "Flag is true"],
    ["$size of one", { Tags: { $size: 1 } }, "Tags has exactly 1 element"],
    ["$size of three", { Tags: { $size: 3 } }, "Tags has exactly 3 elements"],
    ["an empty $in", { Tags: { $in: [] } }, "Tags is one of (no values)"],
    ["quoted strings in $nin", { Tags: { $nin: ["a, b", ""] } }, 'Tags is none of "a, b", ""'],
    ["$all", { Tags: { $all: ["x", true] } }, "Tags contains all of x, true"],
    ["a dotted path", { "Custom.Owner": "alice" }, "Custom.Owner is alice"],
  ];

  it.each(cases)("%s", (_name, raw, expected) => {
    expect(explain(parseSearchConditions(raw))).toBe(expected);
  });
});

describe("$elemMatch, $type, $mod: canonical form and explain (docs/semantics.md 1.3)", () => {
  it.each([
    [
      "$type names print canonically, one as a name",
      { a: { $type: ["int", 1] } },
      { a: { $type: "number" } },
    ],
    ["$type numbers print as names", { a: { $type: [2, 10] } }, { a: { $type: ["string", "null"] } }],
    ["$mod prints its truncated operands", { a: { $mod: [4.9, -1.2] } }, { a: { $mod: [4, -1] } }],
    [
      "the operator form prints its operators",
      { a: { $elemMatch: { $lt: 9, $gte: 5, $regex: "x", $options: "i" } } },
      { a: { $elemMatch: { $gte: 5, $lt: 9, $regex: "x", $options: "i" } } },
    ],
    [
      "the query form prints its condition",
      { a: { $elemMatch: { b: { $eq: 1 }, $or: [{ c: "High|Low" }] } } },
      { a: { $elemMatch: { b: 1, $or: [{ c: { $eq: "High|Low" } }] } } },
    ],
    ["an empty query form stays {}", { a: { $elemMatch: {} } }, { a: { $elemMatch: {} } }],
    [
      "beside other operators of the field",
      { a: { $type: "array", $elemMatch: { $mod: [2, 1] }, $size: 2 } },
      { a: { $type: "array", $elemMatch: { $mod: [2, 1] }, $size: 2 } },
    ],
  ])("%s", (_name, raw, printed) => {
    const trip = roundTrip(raw);
    expect(trip.printed).toEqual(printed);
    expect(trip.reparsed).toEqual(trip.condition);
  });

  it("explains them in words, the element of the operator form as the subject", () => {
    const condition = parseSearchConditions({
      Scores: { $elemMatch: { $gte: 5, $not: { $type: ["string", "null"] } } },
      Items: { $elemMatch: { b: 1, c: { $mod: [3, 1] } } },
      Tags: { $not: { $elemMatch: { $eq: "x" } } },
    });
    expect(explain(condition)).toBe(
      [
        "all of:",
        "  Scores has an element matching:",
        "    all of:",
        "      the element >= 5",
        "      not (the element is of type string or null)",
        "  Items has an element matching:",
        "    all of:",
        "      b is 1",
        "      c modulo 3 is 1 (integer part)",
        "  not:",
        "    Tags has an element matching:",
        "      the element is x",
      ].join("\n"),
    );
  });
});
