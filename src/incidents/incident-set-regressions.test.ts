/**
 * Regression cases: IncidentSet answers that disagreed with `evaluate`.
 */
import { describe, expect, it } from "vitest";
import { untyped } from "../../test/support/conditions-input.js";
import { evaluate } from "../conditions/evaluate.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { IncidentSet } from "./incident-set.js";

type Incident = Record<string, unknown>;

const hashWithArray: Incident[] = [
  ...Array.from({ length: 7 }, (_, i) => ({ IncidentId: i, Number: `N-${i}` })),
  { IncidentId: 7, Number: ["N-100", "N-101"] },
];

describe("a hash candidate holding an array is not a sure match", () => {
  it.each<[string, Incident[], unknown]>([
    [
      "AND under OR with a hash leaf",
      hashWithArray,
      { $or: [{ Number: "N-999", ExternalKey: { $ne: "EXT-1" } }, { Title: "nothing" }] },
    ],
    [
      "AND under NOR with a hash leaf",
      hashWithArray,
      { $nor: [{ Number: "N-999", Title: { $exists: false } }] },
    ],
    [
      "IncidentId array, AND under OR",
      [
        ...Array.from({ length: 9 }, (_, i) => ({ IncidentId: i, Severity: "High" })),
        { IncidentId: [3, 4], Severity: "High" },
      ],
      [{ IncidentId: 100, Severity: "High" }, { Title: "x" }],
    ],
  ])("%s", (_name, incidents, raw) => {
    const set = new IncidentSet(incidents);
    const condition = parseSearchConditions(raw);
    const expected = incidents.filter((incident) => evaluate(condition, incident));
    expect(set.count(untyped(raw))).toBe(expected.length);
    expect(new Set(set.findAll(untyped(raw)))).toEqual(new Set(expected));
    expect(set.findFirst(untyped(raw)) === undefined).toBe(expected.length === 0);
  });
});

describe("dictionary codes past 65,535", () => {
  it("finds the 70,000th distinct Type with maxDictionary 100,000", () => {
    const incidents = Array.from({ length: 70_000 }, (_, i) => ({ IncidentId: i, Type: `t${i}` }));
    const set = new IncidentSet(incidents, { maxDictionary: 100_000 });
    for (const i of [0, 65_532, 65_533, 69_999]) {
      expect(set.count({ Type: `t${i}` })).toBe(1);
      expect(set.findAll({ Type: `t${i}` })).toEqual([incidents[i]]);
      expect(set.findFirst({ Type: `t${i}` })).toBe(incidents[i]);
    }
    expect(set.count({ Type: { $in: ["t1", "t69998", "t69999", "none"] } })).toBe(3);
    expect(set.count({ Type: { $ne: "t69999" } })).toBe(69_999);
  });
});

describe("every IncidentSet option is validated", () => {
  it.each<[string, unknown, RegExp]>([
    ["options not an object", "fast", /IncidentSet options must be an object, found the string "fast"/],
    ["options an array", [], /IncidentSet options must be an object, found an array/],
    [
      "an unknown option",
      { maxDictionnary: 10 },
      /Unknown IncidentSet option 'maxDictionnary': expected one of catalog, compile, dictionaryFields, hashFields, limits, maxDictionary, siteField, textIndex\./,
    ],
    [
      "maxDictionary a string",
      { maxDictionary: "100" },
      /'maxDictionary' must be a number of distinct values, found the string "100"/,
    ],
    ["maxDictionary negative", { maxDictionary: -1 }, /'maxDictionary' must be an integer ≥ 0, found -1/],
    ["maxDictionary fractional", { maxDictionary: 1.5 }, /'maxDictionary' must be an integer ≥ 0, found 1.5/],
    [
      "maxDictionary infinite",
      { maxDictionary: Number.POSITIVE_INFINITY },
      /'maxDictionary' must be an integer ≥ 0, found Infinity/,
    ],
    ["maxDictionary NaN", { maxDictionary: Number.NaN }, /'maxDictionary' must be an integer ≥ 0, found NaN/],
    [
      "dictionaryFields a string",
      { dictionaryFields: "Type" },
      /'dictionaryFields' must be an array of field names, found the string "Type"/,
    ],
    [
      "dictionaryFields with a number",
      { dictionaryFields: ["Type", 3] },
      /'dictionaryFields'\[1\] must be a non-empty field name, found the number 3/,
    ],
    [
      "dictionaryFields with an empty name",
      { dictionaryFields: [""] },
      /'dictionaryFields'\[0\] must be a non-empty field name/,
    ],
    [
      "dictionaryFields with a dotted path",
      { dictionaryFields: ["Custom.Owner"] },
      /'dictionaryFields'\[0\] must be a single field name, found the dotted path 'Custom.Owner'/,
    ],
    [
      "hashFields with __proto__",
      { hashFields: ["__proto__"] },
      /'hashFields'\[0\] names '__proto__', which no Search Condition may use/,
    ],
    ["hashFields null", { hashFields: null }, /'hashFields' must be an array of field names, found null/],
    ["catalog not a catalogue", { catalog: { Severity: "enum" } }, /'catalog' must be a field catalogue/],
    ["limits not an object", { limits: 5 }, /'limits' must be an object of limits, found the number 5/],
    ["an unknown limit", { limits: { deepth: 3 } }, /Unknown limit 'deepth': expected one of .*depth/],
    [
      "a limit of the wrong type",
      { limits: { depth: "3" } },
      /Limit 'depth' must be a number, found the string "3"/,
    ],
    ["a negative limit", { limits: { nodes: -5 } }, /Limit 'nodes' must be an integer ≥ 0, found -5/],
    ["compile not an object", { compile: false }, /'compile' must be an object, found the boolean false/],
    [
      "an unknown compile option",
      { compile: { codeGen: false } },
      /Unknown compile option 'codeGen': expected one of cache, codegen/,
    ],
    [
      "a compile option of the wrong type",
      { compile: { codegen: "no" } },
      /Compile option 'codegen' must be a boolean, found the string "no"/,
    ],
  ])("refuses %s", (_name, options, message) => {
    expect(() => new IncidentSet([], options as never)).toThrow(message);
  });

  it("accepts every documented option, and undefined values as absent", () => {
    expect(
      () =>
        new IncidentSet([{ IncidentId: 1 }], {
          dictionaryFields: ["Type", "Score"],
          hashFields: ["Number"],
          maxDictionary: 0,
          limits: { depth: 8 },
          compile: { codegen: false, cache: true },
          catalog: undefined,
        } as never),
    ).not.toThrow();
  });

  it("raises a RangeError for numbers out of range and a TypeError for the rest", () => {
    expect(() => new IncidentSet([], { maxDictionary: -1 })).toThrow(RangeError);
    expect(() => new IncidentSet([], { hashFields: ["a.b"] })).toThrow(TypeError);
  });
});
