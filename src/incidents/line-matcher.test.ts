/**
 * The byte reader (`LineMatcher`) held to `JSON.parse` + `evaluate` (docs/semantics.md 1): a byte prefilter
 * may only reject a line that the predicate rejects, and an answer taken from the bytes is the predicate's.
 *
 * - A table of the reader's past wrong answers, each with its expected count.
 * - A table with cases for every node kind of the AST and every row of the operator table, each sent over
 *   a pool of lines that vary one field through hostile values (escaped and non-ASCII strings, dates in
 *   and out of the ISO-8601 UTC form, numbers, arrays, objects, `null`, missing, repeated and escaped
 *   keys). The kinds are derived from the operator table (`OPERATORS`), so an operator or kind added
 *   without a case fails here (and the table's type fails the compiler).
 * - A property (fast-check, fixed seed, the seed printed on failure): over generated conditions and
 *   incidents, the prefilter never rejects a line `evaluate` accepts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { conditionObjectArb, searchConditionsArb } from "../../test/arbitraries/conditions.js";
import { incidentArb } from "../../test/arbitraries/incidents.js";
import { DATE_POOL } from "../../test/arbitraries/pools.js";
import type { Condition, ConditionKind } from "../conditions/ast.js";
import { evaluate } from "../conditions/evaluate.js";
import { OPERATORS } from "../conditions/operators.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { LINE_EXACT, LINE_MATCH, LINE_NO_MATCH, LineMatcher } from "./line-matcher.js";

const encoder = new TextEncoder();

/**
 * The byte reader's verdict on each line, as a reader of blocks takes it: `test`, and for `LINE_EXACT`
 * the exact path (`JSON.parse`, then the compiled predicate). The lines sit one after another in one
 * buffer, read twice, so that the second pass meets keys the scanner has seen.
 */
function byteVerdicts(condition: Condition, lines: readonly string[]): { matched: boolean[]; bytes: number } {
  const matcher = new LineMatcher(condition, ["CreatedUtcTime", "IncidentId"]);
  const buffer = encoder.encode(lines.join("\n"));
  let matched: boolean[] = [];
  let bytes = 0;
  for (let pass = 0; pass < 2; pass++) {
    matched = [];
    let at = 0;
    for (const line of lines) {
      const end = at + encoder.encode(line).length;
      const answer = matcher.test(buffer, at, end);
      if (answer === LINE_EXACT) matched.push(matcher.predicate(JSON.parse(line)));
      else {
        expect([LINE_MATCH, LINE_NO_MATCH]).toContain(answer);
        matched.push(answer === LINE_MATCH);
        bytes++;
      }
      at = end + 1;
    }
  }
  return { matched, bytes };
}

/** What `evaluate` says of each line parsed by `JSON.parse`. */
function reference(condition: Condition, lines: readonly string[]): boolean[] {
  return lines.map((line) => evaluate(condition, JSON.parse(line)));
}

const DAY1 = "2024-01-01T00:00:00Z";
const line = (created: string, id: number) => JSON.stringify({ IncidentId: id, CreatedUtcTime: created });

describe("regressions: a prefilter rejected lines the predicate accepts", () => {
  const threeOnDay1 = [line(DAY1, 1), line(DAY1, 2), line(DAY1, 3)];
  const table: { name: string; conditions: unknown; lines: string[]; count: number }[] = [
    {
      name: "$in of two $date operands over three lines of the first date",
      conditions: { CreatedUtcTime: { $in: [{ $date: DAY1 }, { $date: "2024-01-02T00:00:00Z" }] } },
      lines: threeOnDay1,
      count: 3,
    },
    {
      name: "$in of one $date operand",
      conditions: { CreatedUtcTime: { $in: [{ $date: DAY1 }] } },
      lines: threeOnDay1,
      count: 3,
    },
    {
      name: "$in of a $date operand and null",
      conditions: { CreatedUtcTime: { $in: [{ $date: DAY1 }, null] } },
      lines: [...threeOnDay1, JSON.stringify({ IncidentId: 4 }), line("2024-01-03T00:00:00Z", 5)],
      count: 4,
    },
    {
      name: "$in of a $date operand, the value with milliseconds",
      conditions: { CreatedUtcTime: { $in: [{ $date: DAY1 }, { $date: "2024-01-01T00:00:00.500Z" }] } },
      lines: [line("2024-01-01T00:00:00.000Z", 1), line(DAY1, 2), line("x", 3), line("2024-01-01", 4)],
      count: 2,
    },
    {
      name: "$in of a $date operand and another condition",
      conditions: { Severity: "High", CreatedUtcTime: { $in: [{ $date: DAY1 }] } },
      lines: [1, 2, 3].map((id) =>
        JSON.stringify({ IncidentId: id, Severity: "High", CreatedUtcTime: DAY1 }),
      ),
      count: 3,
    },
  ];
  it.each(table)("$name", ({ conditions, lines, count }) => {
    const condition = parseSearchConditions(conditions);
    const { matched } = byteVerdicts(condition, lines);
    expect(matched).toEqual(reference(condition, lines));
    expect(matched.filter(Boolean).length).toBe(count);
  });
});

/**
 * Cases for every node kind (the compiler wants one list per kind of `ConditionKind`); the test below
 * wants every operator of the operator table written in some case of its kind.
 */
const KIND_CASES: { readonly [K in ConditionKind]: readonly unknown[] } = {
  and: [
    {},
    { $and: [{ Severity: "High" }, { Title: { $regex: "phish" } }] },
    { Severity: "High", CreatedUtcTime: { $gte: { $date: DAY1 } } },
  ],
  or: [{ $or: [{ Severity: "High" }, { CreatedUtcTime: { $date: DAY1 } }] }, [{ Score: 5 }, { Title: "x" }]],
  nor: [{ $nor: [{ Severity: "High" }, { Score: { $gt: 1 } }] }],
  not: [
    { Severity: { $not: { $eq: "High" } } },
    { CreatedUtcTime: { $not: { $in: [{ $date: DAY1 }] } } },
    { Title: { $not: { $regex: "^phish", $options: "i" } } },
  ],
  eq: [
    { Severity: "High" },
    { Severity: { $eq: "Critical" } },
    { Severity: null },
    { CreatedUtcTime: { $date: DAY1 } },
    { CreatedUtcTime: { $eq: { $date: "2024-01-01T00:00:00.500Z" } } },
    { Score: 5 },
    { Score: "5" },
    { Extra: true },
    { "Custom.Owner": "alice" },
    { Title: "Hïgh" },
  ],
  ne: [{ Severity: { $ne: "High" } }, { CreatedUtcTime: { $ne: { $date: DAY1 } } }, { Score: { $ne: null } }],
  range: [
    { CreatedUtcTime: { $gt: { $date: DAY1 } } },
    { CreatedUtcTime: { $gte: { $date: DAY1 }, $lt: { $date: "2024-01-02T00:00:00Z" } } },
    { CreatedUtcTime: { $lte: { $date: "2024-01-01T00:00:00.500Z" } } },
    { Score: { $gt: 1, $lte: 7.5 } },
    { Title: { $gte: "a" } },
    { Extra: { $lt: "m" } },
  ],
  in: [
    { Severity: { $in: ["High", "Low"] } },
    { Status: "Open|Closed" },
    { Severity: { $in: [] } },
    { Severity: { $in: ["High", null] } },
    { CreatedUtcTime: { $in: [{ $date: DAY1 }, { $date: "2024-01-02T00:00:00Z" }] } },
    { CreatedUtcTime: { $in: [{ $date: DAY1 }, null] } },
    { Score: { $in: [5, "5", true] } },
    { Tags: { $in: ["a", 5, null] } },
  ],
  nin: [{ Severity: { $nin: ["High", "Low"] } }, { CreatedUtcTime: { $nin: [{ $date: DAY1 }] } }],
  all: [{ Tags: { $all: ["a", "b"] } }, { Severity: { $all: ["High"] } }],
  regex: [
    { Title: { $regex: "phish" } },
    { Title: { $regex: "PHISH", $options: "i" } },
    { Title: { $regex: "^Phish" } },
    { Title: { $regex: "mail$" } },
    { Title: { $regex: "ph.sh" } },
    { Severity: { $regex: "ig" } },
    { Extra: { $regex: "^m$" } },
  ],
  exists: [
    { Severity: { $exists: true } },
    { CreatedUtcTime: { $exists: false } },
    { Score: { $exists: 1 } },
  ],
  size: [{ Tags: { $size: 2 } }, { Tags: { $size: 0 } }],
  type: [
    { CreatedUtcTime: { $type: "date" } },
    { Score: { $type: ["number", "string"] } },
    { Tags: { $type: "array" } },
  ],
  mod: [{ Score: { $mod: [2, 1] } }, { Score: { $mod: [5, 0] } }],
  bits: [
    { Score: { $bitsAllSet: [0, 2] } },
    { Score: { $bitsAnySet: 5 } },
    { Score: { $bitsAllClear: [1] } },
    { Score: { $bitsAnyClear: 7 } },
  ],
  elemMatch: [
    { Tags: { $elemMatch: { $eq: "a" } } },
    { Custom: { $elemMatch: { Owner: "alice" } } },
    { Score: { $elemMatch: { $gte: 1, $lt: 6 } } },
  ],
};

/** JSON texts of hostile values, each put in every field of `FIELDS` in turn. */
const VALUES: readonly string[] = [
  '"High"',
  '"high"',
  '"Critical"',
  '"Hi\\u0067h"',
  '"H\\u00efgh"',
  '"Hïgh"',
  '""',
  '"phishing mail"',
  '"Phishing Mail"',
  '"ph\\u0069sh"',
  '"a"',
  '"alice"',
  '"5"',
  `"${DAY1}"`,
  '"2024-01-01T00:00:00.000Z"',
  '"2024-01-01T00:00:00.500Z"',
  '"2024-01-02T00:00:00Z"',
  '"2024-02-30T00:00:00Z"',
  '"2024-01-01"',
  '"2024-01-01T00:00:00+00:00"',
  "1704067200000",
  "5",
  "5.0",
  "5e0",
  "-1",
  "7.5",
  "0",
  "-0",
  "true",
  "false",
  "null",
  "[]",
  '["High"]',
  '["a","b"]',
  '[["a","b"]]',
  `["${DAY1}"]`,
  "[5,1]",
  "{}",
  '{"Owner":"alice"}',
  '[{"Owner":"alice","Priority":5}]',
  `{"$date":"${DAY1}"}`,
];

const FIELDS = ["Severity", "Status", "Title", "CreatedUtcTime", "Score", "Tags", "Custom", "Extra"] as const;

/** The pool of lines: a base record with one field replaced by each value, or missing; odd lines too. */
const LINES: readonly string[] = (() => {
  const base: Record<string, string> = {
    Severity: '"High"',
    Status: '"Open"',
    Title: '"Phishing mail"',
    CreatedUtcTime: `"${DAY1}"`,
    Score: "5",
    Tags: '["a","b"]',
    Custom: '{"Owner":"alice","Priority":5}',
    Extra: '"m"',
  };
  const out: string[] = [];
  let id = 0;
  const write = (fields: Record<string, string>) =>
    `{"IncidentId":${++id},${Object.entries(fields)
      .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
      .join(",")}}`;
  for (const field of FIELDS) {
    for (const value of VALUES) out.push(write({ ...base, [field]: value }));
    const without = { ...base };
    delete without[field];
    out.push(write(without));
  }
  out.push(
    `{"IncidentId":${++id},"Sev\\u0065rity":"Low","CreatedUtcTime":"${DAY1}"}`,
    `{"IncidentId":${++id},"Severity":"High","Severity":"Low"}`,
    `  {"IncidentId":${++id} , "Severity" : "High" , "CreatedUtcTime" : "${DAY1}" }  `,
    `{"IncidentId":${++id},"Nested":{"Severity":"High","CreatedUtcTime":"${DAY1}"},"Title":"\\"Severity\\":\\"High\\""}`,
    `{"IncidentId":${++id},"Severity":"High\\u0000","Title":"\\ud83d\\ude00"}`,
  );
  return out;
})();

describe("every operator and node kind through the byte reader, against JSON.parse + evaluate", () => {
  it("has cases for every node kind the operator table produces and every operator it lists", () => {
    const kinds = new Set<string>(Object.values(OPERATORS).map((row) => row.node));
    expect(new Set(Object.keys(KIND_CASES))).toEqual(kinds);
    for (const row of Object.values(OPERATORS)) {
      const written = KIND_CASES[row.node].some((raw) => JSON.stringify(raw).includes(`"${row.name}"`));
      // `$eq` and `$and` are also written implicitly; every operator must still appear by name.
      expect(written, `a case writes ${row.name}`).toBe(true);
    }
  });

  const cases = Object.entries(KIND_CASES).flatMap(([kind, list]) =>
    list.map((raw) => ({ kind, raw, name: `${kind}: ${JSON.stringify(raw)}` })),
  );
  it.each(cases)("$name", ({ kind, raw }) => {
    const condition = parseSearchConditions(raw);
    expect(kindsOf(condition), "the case holds a node of its kind").toContain(kind);
    const { matched, bytes } = byteVerdicts(condition, LINES);
    expect(matched).toEqual(reference(condition, LINES));
    // Most lines are read from their bytes (else this would test the exact path only).
    expect(bytes).toBeGreaterThan(LINES.length);
  });
});

/** Every node kind in a condition. */
function kindsOf(condition: Condition): string[] {
  const out: string[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.kind === "string") out.push(record.kind);
    for (const value of Object.values(record)) visit(value);
  };
  visit(condition);
  return out;
}

describe("property: the prefilter never rejects a line evaluate accepts", () => {
  /** Conditions that lean on equality and `$in` of dates, strings and null beside the general ones. */
  const dateOperand = fc.constantFrom(...DATE_POOL).map((iso) => ({ $date: iso }));
  const equalityArb = fc.record({
    CreatedUtcTime: fc.oneof(
      dateOperand,
      fc.record({
        $in: fc.array(fc.oneof(dateOperand, fc.constant(null)), {
          maxLength: 3,
        }),
      }),
    ),
  });
  const conditionsArb = fc.oneof(
    searchConditionsArb({ arrayOperators: true }),
    fc.tuple(equalityArb, conditionObjectArb({ maxDepth: 1 })).map(([a, b]) => ({ ...b, ...a })),
  );
  it("answers as evaluate on every line it judges from its bytes (seed 37037)", () => {
    fc.assert(
      fc.property(
        conditionsArb,
        fc.array(incidentArb(), { minLength: 1, maxLength: 12 }),
        (raw, incidents) => {
          const condition = parseSearchConditions(raw);
          const lines = incidents.map((incident) => JSON.stringify(incident));
          const { matched } = byteVerdicts(condition, lines);
          expect(matched).toEqual(reference(condition, lines));
        },
      ),
      { seed: 37037, numRuns: 400 },
    );
  });
});

describe("property: a `$regex` literal found in the bytes as evaluate finds it", () => {
  /**
   * Titles and literals over a few letters in both cases (so that a literal occurs often, overlapping
   * itself, at a title's start and end, and a search that moves too far misses it), with and without `i`.
   */
  const letters = fc.constantFrom("a", "b", "A", "B", "ab", "aab", "é", " ");
  const text = (maxLength: number) => fc.array(letters, { maxLength }).map((parts) => parts.join(""));
  const literal = fc
    .array(fc.constantFrom("a", "b", "A", "B", "é"), { minLength: 1, maxLength: 6 })
    .map((parts) => parts.join(""));
  it("answers as evaluate on titles of a few letters (seed 4242)", () => {
    fc.assert(
      fc.property(
        literal,
        fc.boolean(),
        fc.array(text(24), { minLength: 1, maxLength: 12 }),
        (source, fold, titles) => {
          const condition = parseSearchConditions({
            Title: fold ? { $regex: source, $options: "i" } : { $regex: source },
          });
          const lines = titles.map((title, i) => JSON.stringify({ IncidentId: i, Title: title }));
          expect(byteVerdicts(condition, lines).matched).toEqual(reference(condition, lines));
        },
      ),
      { seed: 4242, numRuns: 2000 },
    );
  });
});
