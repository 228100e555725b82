import fc from "fast-check";
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { searchConditionsArb } from "../../test/arbitraries/conditions.js";
import { incidentArb } from "../../test/arbitraries/incidents.js";
import { knownMingoDifferences } from "../../test/arbitraries/mingo-known-differences.js";
import { fcOptions } from "../../test/support/fc.js";
import type { Condition } from "../conditions/ast.js";
import { MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS, parseIsoUtc } from "../conditions/dates.js";
import { evaluate } from "../conditions/evaluate.js";
import { SearchConditionsError } from "../conditions/issues.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { orderKeyOf } from "../incidents/order.js";
import {
  type DateStorage,
  ISO_UTC_PATTERN,
  type MongoFilter,
  toMongoFilter,
  toMongoFind,
} from "./to-mongo.js";

const matches = (filter: MongoFilter, record: object) =>
  new Query(filter).test(record as Record<string, unknown>);

describe("toMongoFilter: the documented translations", () => {
  it.each([
    {
      name: "pipe alternatives become $in",
      conditions: { IngestionType: "Webhook| Schedule Job" },
      filter: { IngestionType: { $in: ["Webhook", "Schedule Job"] } },
    },
    {
      name: "$date operands become Date objects",
      conditions: { CreatedUtcTime: { $gt: { $date: "2024-03-01T00:00:00Z" } } },
      filter: { CreatedUtcTime: { $gt: new Date("2024-03-01T00:00:00Z") } },
    },
    {
      name: "an exact literal regex becomes an equality (index-friendly)",
      conditions: { Status: { $regex: "^In Progress$" } },
      filter: { Status: { $eq: "In Progress" } },
    },
    {
      name: "a prefix regex stays a prefix regex (index-friendly), escaped",
      conditions: { Title: { $regex: "^Phish\\.ing" } },
      filter: { Title: { $regex: "^Phish\\.ing" } },
    },
    {
      name: "the i flag is kept",
      conditions: { Title: { $regex: "phish", $options: "i" } },
      filter: { Title: { $regex: "phish", $options: "i" } },
    },
    {
      name: "$not becomes $nor of the operator object",
      conditions: { Severity: { $not: { $in: ["High", "Critical"] } } },
      filter: { $nor: [{ Severity: { $in: ["High", "Critical"] } }] },
    },
    {
      name: "$all becomes the AND of equalities",
      conditions: { Tags: { $all: ["vip", "external"] } },
      filter: { $and: [{ Tags: { $eq: "vip" } }, { Tags: { $eq: "external" } }] },
    },
    { name: "the empty condition matches everything", conditions: {}, filter: {} },
    {
      name: "fields of one object are merged",
      conditions: { Severity: "High", Status: "Open" },
      filter: { Severity: { $eq: "High" }, Status: { $eq: "Open" } },
    },
    {
      name: "a top-level array is $or",
      conditions: [{ Severity: "High" }, { Severity: "Critical" }],
      filter: { $or: [{ Severity: { $eq: "High" } }, { Severity: { $eq: "Critical" } }] },
    },
  ])("$name", ({ conditions, filter }) => {
    expect(toMongoFilter(parseSearchConditions(conditions))).toEqual(filter);
  });

  it("maps field paths through fieldMap, longest prefix first", () => {
    const condition = parseSearchConditions({
      Number: "20240101-1",
      "Custom.Owner": "alice",
      "Custom.Team.Name": "x",
    });
    const filter = toMongoFilter(condition, {
      fieldMap: { Number: "incidentNo", Custom: "custom", "Custom.Team": "team" },
    });
    expect(Object.keys(filter)).toEqual(["incidentNo", "custom.Owner", "team.Name"]);
    const stored = { incidentNo: "20240101-1", custom: { Owner: "alice" }, team: { Name: "x" } };
    expect(matches(filter, stored)).toBe(true);
    expect(matches(filter, { ...stored, incidentNo: "20240101-2" })).toBe(false);
  });

  it("agrees with evaluate when the collection uses mapped names (random conditions and incidents)", () => {
    const fieldMap = { Severity: "sev", Custom: "custom", Tags: "labels", CreatedUtcTime: "created" };
    const rename = (incident: Record<string, unknown>) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(incident)) {
        out[Object.hasOwn(fieldMap, key) ? fieldMap[key as keyof typeof fieldMap] : key] = value;
      }
      return out;
    };
    fc.assert(
      fc.property(
        searchConditionsArb({ maxDepth: 2 }),
        incidentArb({ isoStrings: false }),
        (raw, incident) => {
          const condition = parseSearchConditions(raw);
          const stored = normaliseInvalidDates(incident);
          // Where mingo departs from MongoDB (known-differences.md), MongoDB's jstests judge, not mingo.
          if (knownMingoDifferences(raw, stored).some((rule) => rule !== "all-on-non-array")) return;
          expect(matches(toMongoFilter(condition, { fieldMap }), rename(stored))).toBe(
            evaluate(condition, stored),
          );
        },
      ),
      fcOptions(1500),
    );
  });
});

/** BSON has no invalid date (and mingo orders one among dates): such a record value is stored as null. */
function normaliseInvalidDates(incident: Record<string, unknown>): Record<string, unknown> {
  const out = { ...incident };
  const fix = (v: unknown) => (v instanceof Date && Number.isNaN(v.getTime()) ? null : v);
  const created = out.CreatedUtcTime;
  if (Object.hasOwn(out, "CreatedUtcTime"))
    out.CreatedUtcTime = Array.isArray(created) ? created.map(fix) : fix(created);
  return out;
}

describe("toMongoFilter: dates stored as ISO strings", () => {
  const base = Date.parse("2024-01-01T00:00:00Z");
  /** Instants around second boundaries, where the two string forms interleave. */
  const instantArb = fc
    .tuple(fc.integer({ min: -2, max: 2 }), fc.constantFrom(0, 1, 499, 500, 998, 999))
    .map(([second, ms]) => base + second * 1000 + ms);
  const operandArb = instantArb.map((ms) => ({ $date: new Date(ms).toISOString() }));
  const valueArb: fc.Arbitrary<unknown> = fc.oneof(
    { arbitrary: instantArb.map((ms) => new Date(ms).toISOString()), weight: 4 },
    {
      arbitrary: instantArb
        .filter((ms) => ms % 1000 === 0)
        .map((ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`),
      weight: 4,
    },
    {
      arbitrary: fc.constantFrom(
        "2024-02-30T00:00:00Z",
        "2024-01-01T00:00:00",
        "2024-01-01T00:00:00Z\n",
        "2024-01-01T00:00:00.5Z",
        "2024-01-01 00:00:00Z",
        "2024-01-01T00:00:00+00:00",
        "yesterday",
        "",
        "9999",
      ),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(null, 1704067200000, true), weight: 1 },
  );
  const recordArb = fc.oneof(
    fc.constant({}),
    valueArb.map((v) => ({ CreatedUtcTime: v })),
    fc.array(valueArb, { maxLength: 3 }).map((v) => ({ CreatedUtcTime: v })),
  );
  const opArb = fc.oneof(
    fc
      .uniqueArray(fc.constantFrom("$gt", "$gte", "$lt", "$lte"), { minLength: 1, maxLength: 2 })
      .chain((ops) =>
        fc
          .tuple(...ops.map(() => operandArb))
          .map((operands) => Object.fromEntries(ops.map((op, i) => [op, operands[i]]))),
      ),
    operandArb,
    operandArb.map((o) => ({ $ne: o })),
    fc.array(fc.oneof(operandArb, fc.constant(null)), { maxLength: 3 }).map((list) => ({ $in: list })),
    fc.array(fc.oneof(operandArb, fc.constant(null)), { maxLength: 3 }).map((list) => ({ $nin: list })),
    fc.array(operandArb, { maxLength: 2 }).map((list) => ({ $all: list })),
    operandArb.map((o) => ({ $not: { $gte: o } })),
  );

  it("compares by instant across both string forms, refuses invalid strings, and agrees with evaluate", () => {
    let matched = 0;
    fc.assert(
      fc.property(opArb, recordArb, (op, record) => {
        const condition = parseSearchConditions({ CreatedUtcTime: op });
        const expected = evaluate(condition, record);
        if (expected) matched++;
        expect(matches(toMongoFilter(condition, { dateStorage: "string" }), record)).toBe(expected);
      }),
      fcOptions(4000),
    );
    expect(matched).toBeGreaterThan(800);
  });

  it("handles $date operands at the ends of the years 0000-9999 (the parser refuses instants beyond)", () => {
    const $date = (ms: number) => ({ $date: { $numberLong: String(ms) } });
    const record = { CreatedUtcTime: "2024-01-01T00:00:00Z" };
    const invalid = { CreatedUtcTime: "zzz" };
    for (const [json, expected] of [
      [{ CreatedUtcTime: { $gt: $date(MIN_ISO_EPOCH_MS) } }, true],
      [{ CreatedUtcTime: { $lt: $date(MIN_ISO_EPOCH_MS) } }, false],
      [{ CreatedUtcTime: { $gt: $date(MAX_ISO_EPOCH_MS) } }, false],
      [{ CreatedUtcTime: { $lt: $date(MAX_ISO_EPOCH_MS) } }, true],
    ] as const) {
      const condition = parseSearchConditions(json);
      expect(evaluate(condition, record)).toBe(expected);
      expect(matches(toMongoFilter(condition, { dateStorage: "string" }), record)).toBe(expected);
      expect(matches(toMongoFilter(condition, { dateStorage: "string" }), invalid)).toBe(false);
    }
    const eq = parseSearchConditions({ CreatedUtcTime: $date(MAX_ISO_EPOCH_MS) });
    expect(matches(toMongoFilter(eq, { dateStorage: "string" }), record)).toBe(false);
    for (const ms of [MIN_ISO_EPOCH_MS - 1, MAX_ISO_EPOCH_MS + 1]) {
      expect(() => parseSearchConditions({ CreatedUtcTime: { $gt: $date(ms) } })).toThrow(
        SearchConditionsError,
      );
    }
  });

  it("compares open fields with BSON dates in both storages (only a JS Date is a date there)", () => {
    const condition = parseSearchConditions({ SeenAt: { $gte: { $date: "2024-01-01T00:00:00Z" } } });
    for (const dateStorage of ["date", "string"] as const) {
      const filter = toMongoFilter(condition, { dateStorage });
      expect(matches(filter, { SeenAt: new Date("2024-02-01T00:00:00Z") })).toBe(true);
      expect(matches(filter, { SeenAt: "2024-02-01T00:00:00Z" })).toBe(false);
    }
  });
});

describe("ISO_UTC_PATTERN", () => {
  const digit = fc.constantFrom(..."0123456789");
  const two = fc.tuple(digit, digit).map(([a, b]) => a + b);
  const candidateArb = fc.oneof(
    // Near-valid: the right shape with random digits (impossible months, days, hours…), leap days.
    fc
      .tuple(
        fc.tuple(two, two).map(([a, b]) => a + b),
        two,
        two,
        two,
        two,
        two,
        fc.option(fc.tuple(digit, two)),
      )
      .map(
        ([y, mo, d, h, mi, s, ms]) =>
          `${y}-${mo}-${d}T${h}:${mi}:${s}${ms === null ? "" : `.${ms[0]}${ms[1]}`}Z`,
      ),
    fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.constantFrom("02-28", "02-29", "02-30", "04-31", "12-31", "13-01"),
      )
      .map(([y, md]) => `${String(y).padStart(4, "0")}-${md}T00:00:00Z`),
    // Valid instants over the whole range, in both forms.
    fc
      .integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 })
      .map((ms) => new Date(ms).toISOString()),
    // Mutations: a character replaced, removed or added.
    fc
      .tuple(
        fc.integer({ min: 0, max: 1_000_000_000_000 }).map((ms) => new Date(ms).toISOString()),
        fc.nat(),
        fc.constantFrom("", "0", "Z", ".", "\n", " ", "+", "T", "a"),
        fc.boolean(),
      )
      .map(([iso, at, ch, replace]) => {
        const i = at % (iso.length + 1);
        return iso.slice(0, i) + ch + iso.slice(replace ? i + 1 : i);
      }),
  );

  it("accepts exactly the strings parseIsoUtc accepts", () => {
    const pattern = new RegExp(ISO_UTC_PATTERN);
    fc.assert(
      fc.property(candidateArb, (text) => {
        expect(pattern.test(text), text).toBe(parseIsoUtc(text) !== undefined);
      }),
      fcOptions(20_000),
    );
  });
});

describe("toMongoFind", () => {
  for (const dateStorage of ["date", "string"] as const satisfies readonly DateStorage[]) {
    it(`splits the matches into dated and undated incidents exactly (${dateStorage})`, () => {
      fc.assert(
        fc.property(searchConditionsArb({ maxDepth: 2 }), incidentArb(), (raw, incident) => {
          const stored = storeFor(normaliseInvalidDates(incident), dateStorage);
          const plan = toMongoFind(parseSearchConditions(raw), { dateStorage });
          const all = matches(plan.filter, stored);
          const dated = matches(plan.dated.filter, stored);
          const undated = matches(plan.undated.filter, stored);
          expect(dated || undated).toBe(all);
          expect(dated && undated).toBe(false);
          if (all) expect(dated).toBe(Number.isFinite(orderKeyOf(stored).time));
        }),
        fcOptions(2000),
      );
    });
  }

  it("sorts by CreatedUtcTime then IncidentId, through the field map", () => {
    const plan = toMongoFind(parseSearchConditions({ Severity: "High" }), {
      fieldMap: { CreatedUtcTime: "created", IncidentId: "id" },
    });
    expect(Object.entries(plan.sort)).toEqual([
      ["created", 1],
      ["id", 1],
    ]);
    expect(plan.undated.sort).toEqual({ id: 1 });
    expect(plan.fields).toEqual({ createdUtcTime: "created", incidentId: "id" });
  });
});

/** A record as a collection with this storage holds it (catalogue date values converted). */
function storeFor(incident: Record<string, unknown>, dateStorage: DateStorage): Record<string, unknown> {
  const convert = (v: unknown) => {
    if (dateStorage === "date" && typeof v === "string") {
      const ms = parseIsoUtc(v);
      return ms === undefined ? v : new Date(ms);
    }
    if (dateStorage === "string" && v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString();
    return v;
  };
  if (!Object.hasOwn(incident, "CreatedUtcTime")) return incident;
  const value = incident.CreatedUtcTime;
  return { ...incident, CreatedUtcTime: Array.isArray(value) ? value.map(convert) : convert(value) };
}

describe("untrusted input", () => {
  it("writes prototype-named field paths as own keys and never touches Object.prototype", () => {
    const condition = parseSearchConditions({ toString: "x", "Custom.hasOwnProperty": { $exists: true } });
    const filter = toMongoFilter(condition);
    expect(Object.keys(filter)).toEqual(["toString", "Custom.hasOwnProperty"]);
    expect(matches(filter, {})).toBe(false);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it.each([
    {
      name: "a __proto__ segment in a hand-built condition",
      condition: { kind: "exists", path: ["__proto__"], fieldKind: "open", exists: true },
    },
    {
      name: "a $-segment in a hand-built condition",
      condition: { kind: "exists", path: ["a", "$where"], fieldKind: "open", exists: true },
    },
    {
      name: "an empty segment in a hand-built condition",
      condition: { kind: "exists", path: ["a", ""], fieldKind: "open", exists: true },
    },
  ])("refuses $name with a TypeError", ({ condition }) => {
    expect(() => toMongoFilter(condition as Condition)).toThrow(TypeError);
  });

  it.each([
    { name: "a non-string value", options: { fieldMap: { Number: 5 as unknown as string } } },
    { name: "a $-prefixed target", options: { fieldMap: { Number: "$where" } } },
    { name: "a prototype-named target", options: { fieldMap: { Number: "a.constructor" } } },
    { name: "an unknown dateStorage", options: { dateStorage: "bson" as DateStorage } },
  ])("refuses options with $name", ({ options }) => {
    expect(() => toMongoFilter(parseSearchConditions({ Number: "1" }), options)).toThrow(TypeError);
  });

  it("ignores inherited fieldMap entries", () => {
    const fieldMap = Object.create({ Number: "inherited" }) as Record<string, string>;
    expect(Object.keys(toMongoFilter(parseSearchConditions({ Number: "1" }), { fieldMap }))).toEqual([
      "Number",
    ]);
  });
});

describe("toMongoFilter: $elemMatch, $type and $mod (docs/semantics.md 1.3; docs/mongodb.md)", () => {
  const D = "2024-03-01T12:00:00Z";
  it.each([
    {
      name: "$mod is MongoDB's own, with the truncated operands",
      conditions: { n: { $mod: [4.9, -1.5] } },
      filter: { n: { $mod: [4, -1] } },
    },
    {
      name: "$type names MongoDB's aliases; every number type is 'number'",
      conditions: { n: { $type: ["int", "double", 2, "bool"] } },
      filter: { n: { $type: ["number", "string", "bool"] } },
    },
    {
      name: "one $type is a name",
      conditions: { n: { $type: 10 } },
      filter: { n: { $type: "null" } },
    },
    {
      name: "$type date on a date field stored as dates is BSON's date",
      conditions: { CreatedUtcTime: { $type: ["date", "null"] } },
      filter: { CreatedUtcTime: { $type: ["date", "null"] } },
    },
    {
      name: "$type date on a date field stored as strings is a valid ISO string, ORed with the other types",
      conditions: { CreatedUtcTime: { $type: ["date", "null"] } },
      storage: "string" as const,
      filter: {
        $or: [{ CreatedUtcTime: { $type: "null" } }, { CreatedUtcTime: { $regex: ISO_UTC_PATTERN } }],
      },
    },
    {
      name: "the operator form is MongoDB's value form; $not inside it stays $not, $all one equality",
      conditions: { a: { $elemMatch: { $gte: 5, $lt: 9, $not: { $type: "string" }, $all: [6] } } },
      filter: { a: { $elemMatch: { $gte: 5, $lt: 9, $not: { $type: ["string"] }, $eq: 6 } } },
    },
    {
      name: "$all of two values in the value form matches no element",
      conditions: { a: { $elemMatch: { $all: [1, 2] } } },
      filter: { a: { $elemMatch: { $in: [] } } },
    },
    {
      name: "the query form is MongoDB's object form, its paths relative to the element",
      conditions: { a: { $elemMatch: { b: 1, "c.d": { $gt: 2 }, $or: [{ e: null }] } } },
      filter: { a: { $elemMatch: { b: { $eq: 1 }, "c.d": { $gt: 2 }, $or: [{ e: { $eq: null } }] } } },
    },
    {
      name: "$date operands inside the value form are Dates",
      conditions: { CreatedUtcTime: { $elemMatch: { $gte: { $date: D } } } },
      filter: { CreatedUtcTime: { $elemMatch: { $gte: new Date(D) } } },
    },
  ])("$name", ({ conditions, filter, storage }) => {
    const condition = parseSearchConditions(conditions);
    expect(toMongoFilter(condition, storage === undefined ? {} : { dateStorage: storage })).toEqual(filter);
  });

  it("does not map the query form's relative paths through fieldMap (it names top-level paths)", () => {
    const condition = parseSearchConditions({ Items: { $elemMatch: { Number: "x" } } });
    expect(toMongoFilter(condition, { fieldMap: { Number: "incidentNo", Items: "items" } })).toEqual({
      items: { $elemMatch: { Number: { $eq: "x" } } },
    });
  });

  it.each([
    [{ CreatedUtcTime: { $elemMatch: { $gte: { $date: D } } } }, "a $date operand"],
    [{ CreatedUtcTime: { $elemMatch: { $type: "date" } } }, '$type "date"'],
  ])("refuses what MongoDB's value form cannot say on string-stored dates: %j", (conditions, why) => {
    expect(() => toMongoFilter(parseSearchConditions(conditions), { dateStorage: "string" })).toThrow(
      new RegExp(`cannot be translated to a MongoDB filter: ${why.replace(/[$]/g, "\\$")}`),
    );
  });

  it("agrees with evaluate through mingo where mingo reads them as MongoDB does (flat values)", () => {
    const records = [
      { a: [1, 6, "x"], n: 5, t: "s" },
      { a: [{ b: 1, c: 3 }], n: -3, t: null },
      { a: [{ b: 1 }, { c: 3 }], n: 8, t: {} },
      { a: "x", n: "x", t: [] },
      {},
    ];
    for (const conditions of [
      { a: { $elemMatch: { $gte: 5, $lt: 9 } } },
      { a: { $elemMatch: { b: 1, c: { $gt: 2 } } } },
      { a: { $not: { $elemMatch: { $eq: 6 } } } },
      { n: { $mod: [4, 1] } },
      { n: { $mod: [-4, -3] } },
      { t: { $type: "string" } },
      { t: { $type: ["object", "null"] } },
    ]) {
      const condition = parseSearchConditions(conditions);
      const filter = toMongoFilter(condition);
      for (const record of records) {
        expect(matches(filter, record), `${JSON.stringify(conditions)} on ${JSON.stringify(record)}`).toBe(
          evaluate(condition, record),
        );
      }
    }
  });
});
