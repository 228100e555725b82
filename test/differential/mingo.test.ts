/**
 * Differential test: our reference interpreter (`evaluate`) against mingo 7, a JavaScript implementation
 * of MongoDB's query language, on the subset both share (docs/semantics.md 1.5 follows MongoDB's semantics).
 *
 * Raw Search Conditions are converted to MongoDB's dialect by the obvious translation of
 * test/arbitraries/mongo-dialect.ts (`$date` → Date, pipe alternatives → `$in`, top-level array → `$or`);
 * records are given to mingo with ISO strings in `CreatedUtcTime` turned into Dates, as a BSON store would
 * hold them (ISO strings are our extension, docs/semantics.md 1.5).
 *
 * Every disagreement must be excused by a rule of test/arbitraries/mingo-known-differences.ts, each
 * explained in test/differential/known-differences.md; anything else fails with the shrunk
 * counterexample. The generators are not narrowed to avoid disagreements.
 */
import fc from "fast-check";
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { fieldEntryArb, searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import {
  knownMingoDifferences,
  MINGO_DIFFERENCES,
  type MingoDifference,
} from "../arbitraries/mingo-known-differences.js";
import { desugarAll, toMongoDialect, toMongoRecord } from "../arbitraries/mongo-dialect.js";
import { fcOptions } from "../support/fc.js";

function mingoMatches(query: Record<string, unknown>, record: Record<string, unknown>): boolean {
  return new Query(query).test(toMongoRecord(record));
}

/** Tallies of one differential run. */
interface Tally {
  pairs: number;
  matches: number;
  excused: Partial<Record<MingoDifference, number>>;
}

/**
 * Compares one condition with mingo on every record; throws (failing the property, which fast-check then
 * shrinks) on a disagreement that no known difference excuses.
 */
function compare(raw: unknown, records: readonly Record<string, unknown>[], tally: Tally): void {
  const condition = parseSearchConditions(raw);
  const query = toMongoDialect(raw);
  const compiled = new Query(query);
  for (const record of records) {
    const ours = evaluate(condition, record);
    const theirs = compiled.test(toMongoRecord(record));
    tally.pairs++;
    if (ours) tally.matches++;
    if (ours === theirs) continue;
    const rules = knownMingoDifferences(raw, record);
    if (rules.length === 0) {
      throw new Error(
        `evaluate says ${ours}, mingo says ${theirs}, and no known difference applies.\n` +
          `conditions: ${JSON.stringify(raw)}\nmingo query: ${JSON.stringify(query)}\nrecord: ${JSON.stringify(record)}`,
      );
    }
    // Where $all alone explains it, ours must equal MongoDB's documented equivalent ($and of equalities).
    if (rules.length === 1 && rules[0] === "all-on-non-array") {
      expect(mingoMatches(desugarAll(query), record)).toBe(ours);
    }
    for (const rule of rules) tally.excused[rule] = (tally.excused[rule] ?? 0) + 1;
  }
}

function newTally(): Tally {
  return { pairs: 0, matches: 0, excused: {} };
}

function excusedCount(tally: Tally): number {
  return Object.values(tally.excused).reduce((a, b) => a + b, 0);
}

describe("evaluate agrees with mingo (MongoDB semantics) on the shared subset", () => {
  it("on 10,000 pairs of random Search Conditions × incident records", () => {
    const tally = newTally();
    fc.assert(
      fc.property(
        searchConditionsArb(),
        fc.array(incidentArb(), { minLength: 10, maxLength: 10 }),
        (raw, records) => compare(raw, records, tally),
      ),
      fcOptions(1_000),
    );
    expect(tally.pairs).toBeGreaterThanOrEqual(10_000);
    // The comparison means something only when both answers occur often.
    expect(tally.matches / tally.pairs).toBeGreaterThan(0.1);
    expect(tally.matches / tally.pairs).toBeLessThan(0.9);
    // The known differences excuse a small minority of pairs, never the bulk.
    expect(excusedCount(tally) / tally.pairs).toBeLessThan(0.02);
  });

  it("on 20,000 pairs of single-field conditions × incident records (dense in operator semantics)", () => {
    const tally = newTally();
    const single = fieldEntryArb().map(([field, value]) => ({ [field]: value }));
    fc.assert(
      fc.property(single, fc.array(incidentArb(), { minLength: 10, maxLength: 10 }), (raw, records) =>
        compare(raw, records, tally),
      ),
      fcOptions(2_000),
    );
    expect(tally.pairs).toBeGreaterThanOrEqual(20_000);
    expect(tally.matches / tally.pairs).toBeGreaterThan(0.05);
    expect(excusedCount(tally) / tally.pairs).toBeLessThan(0.02);
  });
});

describe("each known difference, pinned by its minimal example (known-differences.md)", () => {
  /** [rule, raw Search Conditions, record, what MongoDB and we answer]; mingo answers the opposite. */
  const cases: [MingoDifference, unknown, Record<string, unknown>, boolean][] = [
    ["all-on-non-array", { Score: { $all: [5] } }, { Score: 5 }, true],
    ["all-on-non-array", { Flag: { $all: [null] } }, {}, true],
    [
      "size-through-array",
      { "Custom.Owner": { $size: 2 } },
      { Custom: [{ Owner: "a" }, { Owner: "b" }] },
      false,
    ],
    ["null-missing-in-array", { "Custom.Owner": null }, { Custom: [{ Priority: 1 }] }, true],
    ["null-missing-in-array", { "Custom.Owner": null }, { Custom: [{ Owner: "a" }, {}] }, true],
    ["null-missing-in-array", { "Custom.Owner": { $ne: null } }, { Custom: [1] }, false],
    ["null-missing-in-array", { "Custom.Owner": { $nin: [null, "a"] } }, { Custom: [] }, false],
    ["null-range-missing", { Score: { $gte: null } }, {}, true],
    ["numeric-segment-array", { "Tags.0": "vip" }, { Tags: [["vip"]] }, false],
    ["numeric-segment-array", { "Tags.0": "vip" }, { Tags: [{ "0": ["vip"] }] }, true],
    ["dotted-nested-array", { "Custom.Owner": "a" }, { Custom: { Owner: [["a"]] } }, false],
    [
      "invalid-date-in-range",
      { CreatedUtcTime: { $gte: { $date: "2024-01-01T00:00:00Z" } } },
      { CreatedUtcTime: new Date(Number.NaN) },
      false,
    ],
    ["regex-nested-array", { Tags: { $regex: "vip" } }, { Tags: [["vip"]] }, false],
    ["dotted-nested-array", { "a.b.c": { $exists: false } }, { a: [[]] }, true],
    ["type-array-through-array", { "a.b": { $type: "array" } }, { a: [] }, false],
    ["type-array-elements", { a: { $type: "number" } }, { a: [1, 2, 3] }, true],
    ["mod-non-number", { a: { $mod: [1, 0] } }, { a: null }, false],
    ["mod-non-number", { a: { $mod: [1, 0] } }, { a: true }, false],
    ["mod-non-number", { a: { $mod: [1, 0] } }, { a: -1e19 }, false],
    ["mod-fraction", { a: { $mod: [4, 0] } }, { a: 4.5 }, true],
    ["type-nan", { a: { $type: "number" } }, { a: Number.NaN }, true],
    ["mod-fraction", { a: { $mod: [-4, 2] } }, { a: [14.5] }, true],
    ["nan-in-range", { a: { $gte: 0 } }, { a: Number.NaN }, false],
    ["elem-match-query-non-document", { a: { $elemMatch: { $or: [{}] } } }, { a: [false] }, false],
    ["elem-match-query-non-document", { a: { $elemMatch: {} } }, { a: [[]] }, true],
    ["elem-match-through-array", { "a.b": { $elemMatch: { $gte: 0 } } }, { a: [{ b: 1 }] }, false],
    [
      "elem-match-operator-nested-array",
      { a: { $elemMatch: { $elemMatch: { $gte: "a" } } } },
      { a: [[["a"]]] },
      false,
    ],
  ];

  it.each(cases)("%s: %j on %j", (rule, raw, record, expected) => {
    expect(evaluate(parseSearchConditions(raw), record)).toBe(expected);
    // mingo still differs; when a mingo upgrade fixes it, drop the rule and its section.
    expect(mingoMatches(toMongoDialect(raw), record)).toBe(!expected);
    expect(knownMingoDifferences(raw, record)).toContain(rule);
  });

  it("every rule has a pinned example", () => {
    expect(new Set(cases.map(([rule]) => rule))).toEqual(new Set(MINGO_DIFFERENCES));
  });

  it("mingo contradicts itself on null-missing-in-array: its $exists: false matches the same record", () => {
    expect(mingoMatches({ "Custom.Owner": { $exists: false } }, { Custom: [{ Priority: 1 }] })).toBe(true);
    expect(
      evaluate(parseSearchConditions({ "Custom.Owner": { $exists: false } }), { Custom: [{ Priority: 1 }] }),
    ).toBe(true);
  });

  it("$all: MongoDB's documented equivalent ($and of equalities) agrees with us where mingo does not", () => {
    const raw = { Score: { $all: [5], $gt: 1 } };
    const record = { Score: 5 };
    expect(mingoMatches(desugarAll(toMongoDialect(raw)), record)).toBe(true);
    expect(evaluate(parseSearchConditions(raw), record)).toBe(true);
  });
});
