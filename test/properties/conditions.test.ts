/**
 * Properties of Search Conditions parsing, printing and evaluation (docs/semantics.md section 1), over the
 * arbitraries of test/arbitraries. Every property runs with `fcOptions(n)`: a fixed seed (FC_SEED) that
 * fast-check prints with the shrunk counterexample on failure; replay with
 * `FC_SEED=<seed> npx vitest run test/properties/conditions.test.ts`.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Condition } from "../../src/conditions/ast.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { type Issue, SearchConditionsError } from "../../src/conditions/issues.js";
import { parseSearchConditions, safeParseSearchConditions } from "../../src/conditions/parse.js";
import { explain, toSearchConditions } from "../../src/conditions/print.js";
import {
  conditionObjectArb,
  deeplyNested,
  equalityOperandArb,
  fieldNameArb,
  hostileInputArb,
  operatorObjectArb,
  pipeStringArb,
  profileOf,
  searchConditionsArb,
} from "../arbitraries/conditions.js";
import { hostileRecordArb, incidentArb } from "../arbitraries/incidents.js";
import { ALTERNATIVE_FIELDS } from "../arbitraries/pools.js";
import { FC_SEED, fcOptions } from "../support/fc.js";
import { countingReads } from "../support/read-counter.js";

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** Parses input that the arbitraries promise is valid; fails the property with the issues otherwise. */
function parseValid(input: unknown): Condition {
  const result = safeParseSearchConditions(input);
  if (!result.success) {
    throw new Error(`valid input refused: ${JSON.stringify(input)}\n${JSON.stringify(result.issues)}`);
  }
  return result.condition;
}

/** Records to compare conditions on: 8 realistic-to-odd incidents. */
const recordsArb = fc.array(incidentArb(), { minLength: 8, maxLength: 8 });

/** The records on which two conditions disagree (an empty list means they are equivalent on these). */
function disagreements(a: Condition, b: Condition, records: readonly object[]): object[] {
  return records.filter((record) => evaluate(a, record) !== evaluate(b, record));
}

/** Walks an issue path through the input with own-property reads; returns false when a step is missing. */
function pathLeadsToValue(input: unknown, path: readonly (string | number)[]): boolean {
  let current: unknown = input;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return false;
    if (typeof segment === "number") {
      // An index within an array's length leads to its element (a hole in a sparse array reads `undefined`).
      if (!Array.isArray(current) || !Number.isInteger(segment) || segment < 0 || segment >= current.length) {
        return false;
      }
      current = current[segment];
      continue;
    }
    const descriptor = Object.getOwnPropertyDescriptor(current, segment);
    if (descriptor === undefined) return false;
    current = descriptor.value;
  }
  return true;
}

/** One sentence: no line break, starts with a capital letter, a quote or a field name, ends with `.` or `?`. */
function isOneSentence(message: string): boolean {
  return message.length > 0 && !/[\r\n]/.test(message) && /[.?]$/.test(message) && message.trim() === message;
}

function checkIssue(input: unknown, issue: Issue): void {
  expect(typeof issue.code).toBe("string");
  expect(issue.code.length).toBeGreaterThan(0);
  expect(Array.isArray(issue.path)).toBe(true);
  for (const segment of issue.path) expect(["string", "number"]).toContain(typeof segment);
  if (!pathLeadsToValue(input, issue.path)) {
    throw new Error(`issue path ${JSON.stringify(issue.path)} does not lead to a value (${issue.code})`);
  }
  if (!isOneSentence(issue.message)) throw new Error(`not one sentence: ${JSON.stringify(issue.message)}`);
}

/** Anything: hostile input most of the time, valid Search Conditions some of the time. */
const anyInputArb = fc.oneof(
  { arbitrary: hostileInputArb(), weight: 3 },
  { arbitrary: searchConditionsArb(), weight: 1 },
);

// ---------------------------------------------------------------------------------------------------------
// Prototype pollution watch: every test in this file runs hostile input; none may add to a prototype.

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
let before: string[][] = [];

function prototypeKeys(): string[][] {
  return PROTOTYPES.map((proto) => Reflect.ownKeys(proto).map(String).sort());
}

function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect(prototypeKeys()).toEqual(before);
}

beforeAll(() => {
  before = prototypeKeys();
});
afterAll(() => {
  expectNoPollution();
});

// ---------------------------------------------------------------------------------------------------------

describe("the arbitraries", () => {
  it("generate only valid Search Conditions", () => {
    fc.assert(
      fc.property(searchConditionsArb(), (input) => {
        parseValid(input);
      }),
      fcOptions(400),
    );
  });

  it("match generated incidents neither almost never nor almost always (12%–88% of pairs)", () => {
    const conditions = fc.sample(searchConditionsArb(), { seed: FC_SEED, numRuns: 400 });
    const records = fc.sample(incidentArb(), { seed: FC_SEED + 1, numRuns: 25 });
    let matches = 0;
    let total = 0;
    let alwaysOrNever = 0;
    for (const input of conditions) {
      const condition = parseValid(input);
      let hits = 0;
      for (const record of records) if (evaluate(condition, record)) hits++;
      if (hits === 0 || hits === records.length) alwaysOrNever++;
      matches += hits;
      total += records.length;
    }
    const rate = matches / total;
    expect(rate).toBeGreaterThan(0.12);
    expect(rate).toBeLessThan(0.88);
    // Most conditions must discriminate between records, not be constant on the sample.
    expect(alwaysOrNever / conditions.length).toBeLessThan(0.75);
  });
});

describe("parseSearchConditions on any input (docs/semantics.md 1.7, 1.8)", () => {
  it("throws nothing but SearchConditionsError, with a non-empty issue list", () => {
    fc.assert(
      fc.property(anyInputArb, (input) => {
        try {
          parseSearchConditions(input);
        } catch (error) {
          if (!(error instanceof SearchConditionsError)) throw error;
          expect(error.issues.length).toBeGreaterThan(0);
        }
      }),
      fcOptions(1000),
    );
    expectNoPollution();
  });

  it("agrees with safeParseSearchConditions", () => {
    fc.assert(
      fc.property(anyInputArb, (input) => {
        const safe = safeParseSearchConditions(input);
        let thrown: unknown;
        let parsed: Condition | undefined;
        try {
          parsed = parseSearchConditions(input);
        } catch (error) {
          thrown = error;
        }
        if (safe.success) {
          expect(thrown).toBeUndefined();
          expect(parsed).toEqual(safe.condition);
        } else {
          expect(thrown).toBeInstanceOf(SearchConditionsError);
          expect((thrown as SearchConditionsError).issues).toEqual(safe.issues);
        }
      }),
      fcOptions(500),
    );
  });

  it("reports issues with a code, a path that leads to a value in the input, and a one-sentence message", () => {
    fc.assert(
      fc.property(anyInputArb, (input) => {
        const result = safeParseSearchConditions(input);
        if (!result.success) for (const issue of result.issues) checkIssue(input, issue);
      }),
      fcOptions(1000),
    );
  });

  it("is deterministic and does not modify its input", () => {
    fc.assert(
      fc.property(fc.oneof(searchConditionsArb(), fc.jsonValue({ maxDepth: 4 })), (input) => {
        const copy = structuredClone(input);
        const first = safeParseSearchConditions(input);
        expect(input).toEqual(copy);
        expect(safeParseSearchConditions(copy)).toEqual(first);
      }),
      fcOptions(250),
    );
  });

  /** Oversized or cyclic input: refused quickly, without a stack overflow, with the expected issue code. */
  const oversized: [string, () => unknown, string][] = [
    [
      "a cyclic object",
      () => {
        const o: Record<string, unknown> = { Title: "x" };
        o.$and = [o];
        return o;
      },
      "limit_exceeded",
    ],
    [
      "a cyclic array",
      () => {
        const a: unknown[] = [];
        a.push({ $or: a });
        return a;
      },
      "limit_exceeded",
    ],
    ["100,000 levels of $and", () => deeplyNested(100_000), "limit_exceeded"],
    [
      "100,000 levels alternating $or and $nor",
      () => {
        let v: unknown = { Title: "x" };
        for (let i = 0; i < 100_000; i++) v = { [i % 2 === 0 ? "$or" : "$nor"]: [v] };
        return v;
      },
      "limit_exceeded",
    ],
    [
      "100,000 nested arrays in $in",
      () => {
        let v: unknown = [];
        for (let i = 0; i < 100_000; i++) v = [v];
        return { Tags: { $in: v } };
      },
      "invalid_type",
    ],
    [
      "a 1,000,000-element $in",
      () => ({ Tags: { $in: Array.from({ length: 1_000_000 }, (_, i) => i) } }),
      "limit_exceeded",
    ],
    ["a 1,000,000-character string", () => ({ Title: "x".repeat(1_000_000) }), "limit_exceeded"],
    [
      "a 1,200-branch $or",
      () => ({ $or: Array.from({ length: 1_200 }, (_, i) => ({ Score: i })) }),
      "limit_exceeded",
    ],
    [
      "a 100,000-key object",
      () => Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`F${i}`, i])),
      "limit_exceeded",
    ],
  ];

  it.each(oversized)(
    "refuses %s after a bounded number of reads, without a stack overflow",
    (_name, make, code) => {
      const input = make();
      // "Quickly" as a count, which a busy machine cannot fail: the parser reads at most 10,000 properties
      // of the input (a counting proxy) before refusing it; a 1,000,000-character string is one read.
      const counted = countingReads(input);
      expect(safeParseSearchConditions(counted.proxy).success).toBe(false);
      expect(counted.reads()).toBeLessThanOrEqual(10_000);
      const result = safeParseSearchConditions(input);
      expect(result.success).toBe(false);
      if (!result.success) {
        expect(result.issues.map((issue) => issue.code)).toContain(code);
        for (const issue of result.issues) checkIssue(input, issue);
      }
    },
  );
});

describe("evaluate (docs/semantics.md 1.5)", () => {
  it("never throws for any parsed condition and any record, hostile ones included", () => {
    fc.assert(
      fc.property(
        searchConditionsArb(),
        fc.array(fc.oneof(incidentArb(), hostileRecordArb()), { maxLength: 6 }),
        (input, records) => {
          const condition = parseValid(input);
          for (const record of records) expect(typeof evaluate(condition, record as object)).toBe("boolean");
        },
      ),
      fcOptions(400),
    );
    expectNoPollution();
  });

  it("reads own properties only: inherited and prototype-named keys never match", () => {
    const prototypeRecord = JSON.parse('{"__proto__": {"Title": "x", "Severity": "High"}}') as object;
    for (const input of [{ Title: "x" }, { Severity: "High" }, { Title: { $exists: true } }]) {
      expect(evaluate(parseValid(input), prototypeRecord)).toBe(false);
      expect(evaluate(parseValid(input), Object.create({ Title: "x", Severity: "High" }) as object)).toBe(
        false,
      );
    }
    for (const name of ["toString", "valueOf", "hasOwnProperty"]) {
      expect(evaluate(parseValid({ [name]: { $exists: true } }), {})).toBe(false);
      expect(evaluate(parseValid({ [name]: { $exists: false } }), {})).toBe(true);
    }
  });
});

describe("printing (toSearchConditions, explain)", () => {
  it("round-trips: parse(toSearchConditions(c)) deep-equals c", () => {
    fc.assert(
      fc.property(searchConditionsArb(), (input) => {
        const condition = parseValid(input);
        const printed = toSearchConditions(condition);
        // The printed form is JSON: it survives serialisation unchanged.
        expect(JSON.parse(JSON.stringify(printed))).toEqual(printed);
        expect(parseValid(printed)).toEqual(condition);
      }),
      fcOptions(400),
    );
  });

  it("explains every condition in a non-empty string", () => {
    fc.assert(
      fc.property(searchConditionsArb(), (input) => {
        const text = explain(parseValid(input));
        expect(typeof text).toBe("string");
        expect(text.trim().length).toBeGreaterThan(0);
      }),
      fcOptions(200),
    );
  });
});

describe("equivalences, checked by evaluate on generated incidents (docs/semantics.md 1.1–1.5)", () => {
  const objectArb = conditionObjectArb({ maxDepth: 2 });

  it("$and: [q] ≡ q", () => {
    fc.assert(
      fc.property(objectArb, recordsArb, (q, records) => {
        expect(disagreements(parseValid({ $and: [q] }), parseValid(q), records)).toEqual([]);
      }),
      fcOptions(200),
    );
  });

  it("[q] (a top-level array) ≡ q", () => {
    fc.assert(
      fc.property(objectArb, recordsArb, (q, records) => {
        expect(disagreements(parseValid([q]), parseValid(q), records)).toEqual([]);
      }),
      fcOptions(200),
    );
  });

  it("$or: [a, b] ≡ [a, b], and is the OR of a and b", () => {
    fc.assert(
      fc.property(objectArb, objectArb, recordsArb, (a, b, records) => {
        const or = parseValid({ $or: [a, b] });
        expect(disagreements(or, parseValid([a, b]), records)).toEqual([]);
        const [ca, cb] = [parseValid(a), parseValid(b)];
        for (const r of records) expect(evaluate(or, r)).toBe(evaluate(ca, r) || evaluate(cb, r));
      }),
      fcOptions(200),
    );
  });

  it("an object is the AND of its entries", () => {
    fc.assert(
      fc.property(objectArb, recordsArb, (q, records) => {
        const whole = parseValid(q);
        const parts = Object.entries(q).map(([k, v]) => parseValid({ [k]: v }));
        for (const r of records) expect(evaluate(whole, r)).toBe(parts.every((p) => evaluate(p, r)));
      }),
      fcOptions(200),
    );
  });

  it("De Morgan through $nor: $nor: [a, b] ≡ $and: [{$nor: [a]}, {$nor: [b]}] ≡ not $or: [a, b]", () => {
    fc.assert(
      fc.property(objectArb, objectArb, recordsArb, (a, b, records) => {
        const nor = parseValid({ $nor: [a, b] });
        expect(disagreements(nor, parseValid({ $and: [{ $nor: [a] }, { $nor: [b] }] }), records)).toEqual([]);
        const or = parseValid({ $or: [a, b] });
        for (const r of records) expect(evaluate(nor, r)).toBe(!evaluate(or, r));
      }),
      fcOptions(200),
    );
  });

  it("$not on a field is the negation: {f: {$not: X}} matches exactly when {f: X} does not", () => {
    const arb = fieldNameArb().chain((field) =>
      fc.tuple(fc.constant(field), operatorObjectArb(profileOf(field), 1)),
    );
    fc.assert(
      fc.property(arb, recordsArb, ([field, ops], records) => {
        const negated = parseValid({ [field]: { $not: ops } });
        const plain = parseValid({ [field]: ops });
        for (const r of records) expect(evaluate(negated, r)).toBe(!evaluate(plain, r));
      }),
      fcOptions(400),
    );
  });

  it("pipe alternatives ≡ $in of the trimmed parts, on alternative fields (docs/semantics.md 1.2)", () => {
    const arb = fc
      .constantFrom(...ALTERNATIVE_FIELDS)
      .chain((field) => fc.tuple(fc.constant(field), pipeStringArb(field)));
    fc.assert(
      fc.property(arb, recordsArb, ([field, pipe], records) => {
        const parts = pipe.split("|").map((part) => part.trim());
        const fromPipe = parseValid({ [field]: pipe });
        const fromIn = parseValid({ [field]: { $in: parts } });
        expect(disagreements(fromPipe, fromIn, records)).toEqual([]);
        // Same AST but for the printing hint.
        expect({ ...fromPipe, fromPipe: false }).toEqual({ ...fromIn, fromPipe: false });
      }),
      fcOptions(200),
    );
  });

  it("$nin: S ≡ $nor of the equalities {f: {$eq: s}}; $nin: [] matches everything", () => {
    const arb = fieldNameArb().chain((field) =>
      fc.tuple(
        fc.constant(field),
        fc.array(equalityOperandArb(profileOf(field)), { minLength: 1, maxLength: 4 }),
      ),
    );
    fc.assert(
      fc.property(arb, recordsArb, ([field, set], records) => {
        const nin = parseValid({ [field]: { $nin: set } });
        const nor = parseValid({ $nor: set.map((s) => ({ [field]: { $eq: s } })) });
        expect(disagreements(nin, nor, records)).toEqual([]);
        const empty = parseValid({ [field]: { $nin: [] } });
        for (const r of records) expect(evaluate(empty, r)).toBe(true);
      }),
      fcOptions(300),
    );
  });

  it("$in: S ≡ $or of the equalities; $ne: v ≡ $nor of the equality", () => {
    const arb = fieldNameArb().chain((field) =>
      fc.tuple(
        fc.constant(field),
        fc.array(equalityOperandArb(profileOf(field)), { minLength: 1, maxLength: 4 }),
      ),
    );
    fc.assert(
      fc.property(arb, recordsArb, ([field, set], records) => {
        const inNode = parseValid({ [field]: { $in: set } });
        const or = parseValid({ $or: set.map((s) => ({ [field]: { $eq: s } })) });
        expect(disagreements(inNode, or, records)).toEqual([]);
        const ne = parseValid({ [field]: { $ne: set[0] } });
        const norEq = parseValid({ $nor: [{ [field]: { $eq: set[0] } }] });
        expect(disagreements(ne, norEq, records)).toEqual([]);
      }),
      fcOptions(200),
    );
  });
});

describe("no input pollutes a prototype (docs/semantics.md 1.1)", () => {
  it("after parsing, printing and evaluating hostile input, Object.prototype has no new keys", () => {
    fc.assert(
      fc.property(hostileInputArb(), fc.array(hostileRecordArb(), { maxLength: 4 }), (input, records) => {
        const result = safeParseSearchConditions(input);
        if (result.success) {
          toSearchConditions(result.condition);
          explain(result.condition);
          for (const record of records) evaluate(result.condition, record as object);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      fcOptions(600),
    );
    expectNoPollution();
  });
});
