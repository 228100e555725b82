/**
 * The time budget of IncidentSet searches (docs/semantics.md 1.7): `findFirst`, `findAll` and `count` read the
 * caller's clock at least once every 1,024 records examined, on every access path, and stop with a
 * `SearchTimeoutError` once past `maxTimeMS`. A fake clock counts its reads (and advances by 1 ms per read),
 * so the tests see exactly when the search looks at the time.
 */
import { describe, expect, it } from "vitest";
import { untyped } from "../../test/support/conditions-input.js";
import { IncidentSet, type IncidentSetOptions } from "./incident-set.js";
import { BUDGET_CHECK_INTERVAL, type SearchBudget, SearchTimeoutError } from "./search-budget.js";

type Incident = Record<string, unknown>;

const N = 40_000;
const BASE = Date.parse("2024-01-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();
const SEVERITIES = ["Critical", "High", "Medium", "Low", "Informational"];
const STATUSES = ["Open", "Closed", "In Progress", "On Hold"];

/** A large set with arrays in the hash, dictionary and date columns (so no shortcut answers everything). */
function site(complexDates: boolean): Incident[] {
  return Array.from({ length: N }, (_, i) => ({
    IncidentId: i,
    Number: i % 100 === 0 ? [`N-${i}`, "N-shared"] : `N-${i}`,
    ExternalKey: i % 16 === 0 ? ["EXT-A", "EXT-B"] : `EXT-${i % 50}`,
    Severity: i % 100 === 7 ? ["High", "Low"] : SEVERITIES[i % 5],
    Status: STATUSES[i % 4],
    Type: `t${i % 7}`,
    Category: `c${i % 30}`,
    DataSource: i % 1000 === 0 ? "Rare" : "Common",
    Title: `title ${i}`,
    CreatedUtcTime: complexDates && i % 97 === 0 ? [iso(BASE + i * 60_000)] : iso(BASE + i * 60_000),
  }));
}

const withArrays = site(true);
const clean = site(false);
// Without the text index, so that `Title` patterns (residual conditions here) go through the row paths.
const rowPaths: IncidentSetOptions = { textIndex: false };
const sets = {
  arrays: new IncidentSet(withArrays, rowPaths),
  clean: new IncidentSet(clean, rowPaths),
  text: new IncidentSet(withArrays),
  bigDictionary: new IncidentSet(withArrays, { maxDictionary: 100_000 } satisfies IncidentSetOptions),
};
type SetName = keyof typeof sets;

/** A clock that advances 1 ms per read and counts its reads. */
function fakeClock() {
  let now = 0;
  return {
    clock: () => now++,
    get reads() {
      return now;
    },
  };
}

type Method = "findFirst" | "findAll" | "count";

function run(set: IncidentSet, method: Method, raw: unknown, budget?: SearchBudget): unknown {
  return set[method](untyped(raw), budget);
}

const nothing = { $regex: "^nothing" };
const TEN_CATEGORIES = Array.from({ length: 10 }, (_, k) => `c${k}`);
/** Word-wide bitset passes (32 rows per operation) read the clock once per pass, not per 1,024 rows. */
const ONE_PASS = BUDGET_CHECK_INTERVAL;
const since = { $gte: { $date: iso(BASE) } };

/**
 * [name, set, method, condition, the path explain() must report, records the path must examine (a lower
 * bound: every one of them is a record or a dictionary value looked at)].
 */
const cases: [string, SetName, Method, unknown, RegExp, number][] = [
  ["findFirst scan", "arrays", "findFirst", { Title: nothing }, /^scan$/, N],
  [
    "findFirst date-range",
    "arrays",
    "findFirst",
    { CreatedUtcTime: since, Title: nothing },
    /^date-range CreatedUtcTime$/,
    N,
  ],
  [
    "findFirst postings",
    "arrays",
    "findFirst",
    { Status: "Open", Title: nothing },
    /^postings Status$/,
    N / 4,
  ],
  [
    "findFirst hash",
    "arrays",
    "findFirst",
    { ExternalKey: "EXT-1", DataSource: { $ne: "Common" }, Title: nothing },
    /^hash ExternalKey$/,
    N / 16,
  ],
  [
    "findFirst union",
    "arrays",
    "findFirst",
    [{ Title: nothing }, { Number: "N-none" }],
    /^union\(scan, (scan|hash Number)\)$/,
    N,
  ],
  [
    "count columns: dictionary leaf with unknown rows",
    "arrays",
    "count",
    { Severity: { $ne: "High" } },
    /^columns$/,
    N,
  ],
  [
    "findAll columns: dictionary leaf with unknown rows",
    "arrays",
    "findAll",
    { Severity: { $ne: "High" } },
    /^columns$/,
    N,
  ],
  ["count columns: date leaf", "arrays", "count", { CreatedUtcTime: since }, /^columns$/, N],
  ["count columns: hash leaf", "arrays", "count", { ExternalKey: { $ne: "EXT-1" } }, /^columns$/, ONE_PASS],
  ["count row predicate", "arrays", "count", { Title: { $regex: "^title 1" } }, /^columns$/, N],
  ["findAll row predicate", "arrays", "findAll", { Title: { $regex: "^title 1" } }, /^columns$/, N],
  [
    "count fused code bitsets",
    "arrays",
    "count",
    { Status: "Open", Type: "t1" },
    /^columns: fused code bitsets$/,
    ONE_PASS,
  ],
  [
    "count label bitsets",
    "arrays",
    "count",
    [{ Status: "Open", Type: "t1" }, { DataSource: { $ne: "Common" } }],
    /^columns: label bitsets$/,
    ONE_PASS,
  ],
  [
    "findAll label bitsets",
    "arrays",
    "findAll",
    { $nor: [{ Status: "Open" }, { Type: { $ne: "t1" } }] },
    /^columns: label bitsets$/,
    ONE_PASS,
  ],
  [
    "count fused scan",
    "arrays",
    "count",
    { Status: { $in: ["Open", "Closed"] }, Category: { $in: TEN_CATEGORIES } },
    /^columns: fused scan$/,
    N,
  ],
  [
    "count fused scan with dates",
    "clean",
    "count",
    { Status: { $in: ["Open", "Closed"] }, Category: { $in: TEN_CATEGORIES }, CreatedUtcTime: since },
    /^columns: fused scan with dates$/,
    N,
  ],
  [
    "findAll seeded by a dictionary leaf",
    "arrays",
    "findAll",
    { Category: { $in: ["c0", "c1", "c2"] }, Status: "Open" },
    /^columns: seeded by dictionary Category/,
    N / 10,
  ],
  [
    "count seeded by a hash leaf",
    "arrays",
    "count",
    { ExternalKey: "EXT-1", Status: { $ne: "Open" } },
    /^columns: seeded by hash ExternalKey/,
    N / 16,
  ],
  [
    "count column scans then row mode",
    "arrays",
    "count",
    { CreatedUtcTime: { $lt: { $date: iso(BASE + 1000 * 60_000) } }, Title: nothing },
    /^columns: column scans$/,
    N,
  ],
  [
    "count NOR over an OR",
    "arrays",
    "count",
    { $nor: [{ Severity: "High" }, { Title: { $regex: "^title 1" } }] },
    /^columns$/,
    N,
  ],
  [
    "count dictionary accept table (100,000 values allowed)",
    "bigDictionary",
    "count",
    { Title: nothing },
    /^histogram$/,
    N,
  ],
  [
    "count candidates hash",
    "arrays",
    "count",
    { Number: "N-shared", Title: nothing },
    /^candidates hash Number$/,
    0,
  ],
  [
    "findAll candidates date-range",
    "clean",
    "findAll",
    { CreatedUtcTime: { $lt: { $date: iso(BASE + 500 * 60_000) } }, Title: nothing },
    /^candidates date-range CreatedUtcTime$/,
    0,
  ],
  // The text index: one pattern test per candidate value, one tick per row of the answer.
  [
    "count histogram text-index",
    "text",
    "count",
    { Title: { $regex: "^title 1" } },
    /^histogram text-index$/,
    ONE_PASS,
  ],
  ["findAll text-index", "text", "findAll", { Title: { $regex: "^title 1" } }, /^columns$/, N / 8],
];

describe("IncidentSet time budget (docs/semantics.md 1.7): every access path reads the clock every 1,024 records", () => {
  it.each(cases)("%s", (_name, setName, method, raw, path, examined) => {
    const set = sets[setName];
    const plan = set.explain(untyped(raw));
    expect(method === "findFirst" ? plan.findFirst : method === "count" ? plan.count : plan.findAll).toMatch(
      path,
    );
    const expected = run(set, method, raw);
    // A generous budget: the same answer, and the clock read at least once per 1,024 records examined.
    const counting = fakeClock();
    expect(run(set, method, raw, { maxTimeMS: 1e12, clock: counting.clock })).toEqual(expected);
    expect(counting.reads).toBeGreaterThanOrEqual(Math.floor(examined / BUDGET_CHECK_INTERVAL));
    // A budget that runs out before the last reading: the search stops with the typed error.
    if (counting.reads >= 3) {
      const tight = fakeClock();
      expect(() => run(set, method, raw, { maxTimeMS: counting.reads - 2, clock: tight.clock })).toThrow(
        SearchTimeoutError,
      );
    }
  });

  it("states the exceeded budget in the error", () => {
    const tight = fakeClock();
    expect(() => sets.arrays.count({ Title: nothing }, { maxTimeMS: 3, clock: tight.clock })).toThrow(
      "The Search Conditions took longer than 3 ms to evaluate.",
    );
  });

  it("never reads the clock without maxTimeMS, and validates the budget before searching", () => {
    const counting = fakeClock();
    sets.arrays.findAll({ Title: nothing }, { clock: counting.clock });
    expect(counting.reads).toBe(0);
    for (const method of ["findFirst", "findAll", "count"] as const) {
      expect(() => run(sets.arrays, method, { Title: "x" }, { maxTimeMS: -1, clock: () => 0 })).toThrow(
        TypeError,
      );
      expect(() => run(sets.arrays, method, { Title: "x" }, { maxTimeMS: 5 })).toThrow(/needs a clock/);
    }
  });
});
