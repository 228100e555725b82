/**
 * An attack on `IncidentSet.count` when its plan is a creation-order segment scan that tallies rows
 * (`AndPlan.tallyBySegment`, `RowTally`, `resolveTally`): for generated records holding arrays, nulls,
 * objects, numbers, booleans and missing values in every indexed field, and conditions that put a
 * `CreatedUtcTime` interval in a top-level AND beside labels, `$regex`, `$or`/`$nor`/`$not`, `$exists`,
 * hash fields and open fields, `count` must equal the number of records `evaluate` accepts and
 * `findAll(c).length`, on sets built by the constructor and by `fromNdjson`, at sizes around word and
 * block boundaries, and after `add()`. The share of queries whose count plan is the segment scan is
 * asserted (and printed), so that the property keeps attacking what it is meant to.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { untyped } from "../support/conditions-input.js";

type Incident = Record<string, unknown>;

/** The fixed seed (FC_SEED replays another; FC_RUNS_SCALE scales the runs, as test/support/fc.ts). */
const SEED = process.env.FC_SEED === undefined ? 20261204 : Number(process.env.FC_SEED);
const SCALE = process.env.FC_RUNS_SCALE === undefined ? 1 : Number(process.env.FC_RUNS_SCALE);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));
const DAY = 86_400_000;
const BASE = Date.UTC(2024, 0, 1);
/** Days the dated records spread over. */
const DAYS = 40;

const stats = { queries: 0, segment: 0, segmentWithUnknownRows: 0, plans: new Map<string, number>() };

afterAll(() => {
  const top = [...stats.plans.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(
    `count-tally attack: ${stats.queries} queries, ${stats.segment} on a segment plan ` +
      `(${stats.segmentWithUnknownRows} of them on sets with unknown rows)\n` +
      top.map(([name, n]) => `  ${n}× ${name}`).join("\n"),
  );
});

// ---------------------------------------------------------------------------------------------------------
// Records

const iso20 = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const iso24 = (ms: number) => new Date(ms).toISOString();

/** Which oddities a set's records may hold (per field), so that some sets leave every label decided. */
interface Profile {
  readonly complexLabels: boolean;
  readonly scalarLabels: boolean;
  readonly dateArrays: boolean;
  readonly oddDates: boolean;
  readonly oddTitles: boolean;
  readonly dateObjects: boolean;
  /** Labels outside the catalogue's, many of them (dictionaries past the 24 codes of per-code bitsets). */
  readonly manyLabels: boolean;
}

const profileArb: fc.Arbitrary<Profile> = fc.record({
  complexLabels: fc.boolean(),
  scalarLabels: fc.boolean(),
  dateArrays: fc.constantFrom(false, false, false, false, true),
  oddDates: fc.boolean(),
  oddTitles: fc.boolean(),
  dateObjects: fc.boolean(),
  manyLabels: fc.constantFrom(false, false, true),
});

function label(values: readonly string[], profile: Profile): fc.Arbitrary<unknown> {
  const arbs: { weight: number; arbitrary: fc.Arbitrary<unknown> }[] = [
    { weight: 20, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constant(null) },
  ];
  if (profile.scalarLabels)
    arbs.push({
      weight: 2,
      arbitrary: fc.constantFrom("open", "Open|Closed", "", 3, 0, true, false, `${values[0]} `),
    });
  if (profile.manyLabels)
    arbs.push({ weight: 4, arbitrary: fc.nat(40).map((n) => `${values[n % values.length]} ${n}`) });
  if (profile.complexLabels)
    arbs.push({
      weight: 2,
      arbitrary: fc.constantFrom<unknown>(
        [],
        [values[0]],
        [values[0], values[1]],
        [null],
        [[values[0]]],
        { [values[0]!]: 1 },
        {},
      ),
    });
  return fc.oneof(...arbs);
}

const WORDS = [
  "phish",
  "Phishing",
  "login",
  "VPN",
  "dns",
  "mail",
  "k",
  "K",
  "scan",
  "é",
  "\n",
  "\u212A",
  "ſ",
  "İ",
  "ß",
  "Σ",
  'a"b',
];

function titleArb(profile: Profile): fc.Arbitrary<unknown> {
  const plain = fc
    .tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), fc.nat(99_999))
    .map(([w, n]) => `${w.join(" ")} ${n}`);
  if (!profile.oddTitles) return plain;
  return fc.oneof(
    { weight: 12, arbitrary: plain },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(
        null,
        7,
        true,
        "",
        "phish",
        ["phish 1"],
        ["login", "Phishing 2"],
        [],
        { phish: 1 },
        [["phish"]],
      ),
    },
  );
}

function dateArb(profile: Profile): fc.Arbitrary<unknown> {
  const good = fc
    .tuple(fc.integer({ min: 0, max: DAYS - 1 }), fc.constantFrom(0, 6, 12, 23), fc.boolean(), fc.boolean())
    .map(([d, h, withMs, half]) => {
      const ms = BASE + d * DAY + h * 3_600_000 + (half ? 500 : 0);
      return withMs || half ? iso24(ms) : iso20(ms);
    });
  const arbs: { weight: number; arbitrary: fc.Arbitrary<unknown> }[] = [{ weight: 24, arbitrary: good }];
  if (profile.oddDates)
    arbs.push({
      weight: 3,
      arbitrary: fc.constantFrom<unknown>(
        null,
        "not a date",
        "2024-02-30T00:00:00Z",
        "2024-01-05T00:00:00",
        "2024-01-05T24:00:00Z",
        "2024-01-05 00:00:00Z",
        "2024-01-05T00:00:00.5Z",
        5,
        0,
        true,
        "",
        { $date: "2024-01-05T00:00:00Z" },
        { $date: { $numberLong: String(BASE + 4 * DAY) } },
        {},
        "1969-12-31T23:59:59Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999Z",
      ),
    });
  if (profile.dateObjects)
    arbs.push({
      weight: 3,
      arbitrary: fc
        .integer({ min: 0, max: DAYS - 1 })
        .map((d) => new Date(BASE + d * DAY + 3_600_000) as unknown),
    });
  if (profile.dateArrays)
    arbs.push({
      weight: 1,
      arbitrary: fc.constantFrom<unknown>([iso20(BASE + 3 * DAY)], [], [iso20(BASE), iso20(BASE + 30 * DAY)]),
    });
  return fc.oneof(...arbs);
}

function recordArb(profile: Profile): fc.Arbitrary<Incident> {
  return fc
    .record(
      {
        IncidentId: fc.oneof(
          { weight: 20, arbitrary: fc.integer({ min: 1, max: 400 }) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "7", [1, 2], 1.5, -3, 50) },
        ),
        Number: fc.oneof(
          { weight: 5, arbitrary: fc.nat(50).map((n) => `N-${n}`) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(null, ["N-1"], 3) },
        ),
        Title: titleArb(profile),
        Status: label(["Open", "Closed", "In Progress", "On Hold"], profile),
        Severity: label(["Critical", "High", "Medium", "Low", "Informational"], profile),
        IngestionType: label(["Webhook", "Schedule Job", "File", "Manual Creation"], profile),
        Type: label(["Phishing", "Malware", "DDoS"], profile),
        CreatedUtcTime: dateArb(profile),
        Custom: fc.constantFrom<unknown>(
          { Owner: "alice" },
          { Owner: "bob" },
          [{ Owner: "alice" }, {}],
          null,
          4,
        ),
        x: fc.constantFrom<unknown>(1, 2, 3, "3", true, null, [1, "a"], { y: 1 }),
      },
      {
        requiredKeys: profile.oddDates
          ? []
          : ["CreatedUtcTime", "Title", "Status", "Severity", "IngestionType", "Type"],
      },
    )
    .map((r) => r as Incident);
}

// ---------------------------------------------------------------------------------------------------------
// Conditions

const dateOperand = (ms: number, form: number): unknown =>
  form === 0
    ? { $date: iso20(ms) }
    : form === 1
      ? { $date: iso24(ms + 500) }
      : { $date: { $numberLong: String(ms) } };

/** A `CreatedUtcTime` interval (a positive range or `$eq` date): a segment of the creation order. */
const intervalArb: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.integer({ min: -2, max: DAYS + 1 }),
    fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 9, max: 19 }) }, fc.integer({ min: 0, max: DAYS })),
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom("gt-lt", "gte-lte", "gte-lt") },
      fc.constantFrom("gt", "gte", "lt", "lte", "eq", "eq-op", "empty", "all"),
    ),
    fc.integer({ min: 0, max: 2 }),
    fc.constantFrom(0, 6, 12, 23),
  )
  .map(([a, span, kind, form, hour]) => {
    const lo = BASE + Math.min(a, DAYS - span) * DAY;
    const hi = lo + span * DAY;
    const d = (ms: number) => dateOperand(ms, form);
    switch (kind) {
      case "gt-lt":
        return { $gt: d(lo), $lt: d(hi) };
      case "gte-lte":
        return { $gte: d(lo), $lte: d(hi) };
      case "gte-lt":
        return { $gte: d(lo), $lt: d(hi) };
      case "gt":
        return { $gt: d(lo) };
      case "gte":
        return { $gte: d(lo) };
      case "lt":
        return { $lt: d(hi) };
      case "lte":
        return { $lte: d(hi) };
      case "eq":
        return dateOperand(lo + hour * 3_600_000, 0);
      case "eq-op":
        return { $eq: dateOperand(lo + hour * 3_600_000, 2) };
      case "empty":
        return { $gt: d(hi), $lt: d(lo) };
      default:
        return { $gte: { $date: "0000-01-01T00:00:00Z" }, $lte: { $date: "9999-12-31T23:59:59.999Z" } };
    }
  });

const regexArb = fc.constantFrom<unknown>(
  { $regex: "phish" },
  { $regex: "phish", $options: "i" },
  { $regex: "^Ph" },
  { $regex: "1$" },
  { $regex: "^k", $options: "i" },
  { $regex: "(VPN|dns) \\d" },
  { $regex: "\\d$", $options: "m" },
  { $regex: "." },
  { $regex: "" },
  { $regex: "é" },
  { $regex: "^login 2" },
  { $regex: "n.s", $options: "s" },
  { $regex: "s", $options: "i" },
  { $regex: "k 1", $options: "i" },
  { $regex: "phis", $options: "i" },
  { $regex: "vpn", $options: "i" },
  { $regex: "^\\d" },
  { $regex: 'a"b' },
);

const statusArb = fc.constantFrom<unknown>(
  "Open",
  "Open|Closed",
  "In Progress|On Hold",
  { $in: ["Open", "Closed"] },
  { $in: ["Open", null] },
  { $nin: ["Open"] },
  { $nin: ["Open", null] },
  { $ne: "Closed" },
  { $ne: null },
  null,
  { $exists: true },
  { $exists: false },
  { $not: { $in: ["Open"] } },
  { $all: ["Open"] },
  { $size: 1 },
  { $type: "array" },
  { $elemMatch: { $eq: "Open" } },
  { $in: [] },
  { $nin: [] },
  { $regex: "^O" },
  { $regex: "open", $options: "i" },
);

const severityArb = fc.constantFrom<unknown>(
  "High",
  { $in: ["High", "Critical"] },
  { $nin: ["Low", "Medium"] },
  { $ne: "Low" },
  { $gte: "High" },
  { $lt: "Low" },
  { $exists: true },
  null,
  { $not: { $eq: "High" } },
  { $regex: "^H" },
);

const ingestionArb = fc.constantFrom<unknown>(
  "Webhook",
  "Webhook|Schedule Job",
  "File| Manual Creation",
  { $in: ["File", "Webhook"] },
  { $nin: ["Webhook"] },
  { $ne: "File" },
);

const partArb: fc.Arbitrary<[string, unknown]> = fc.oneof(
  { weight: 10, arbitrary: regexArb.map((r) => ["Title", r] as [string, unknown]) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(
        { $exists: true },
        null,
        { $ne: "phish" },
        { $in: ["phish", "k 1"] },
        { $not: { $regex: "a" } },
        { $type: "string" },
      )
      .map((v) => ["Title", v] as [string, unknown]),
  },
  { weight: 3, arbitrary: statusArb.map((v) => ["Status", v] as [string, unknown]) },
  { weight: 3, arbitrary: severityArb.map((v) => ["Severity", v] as [string, unknown]) },
  { weight: 2, arbitrary: ingestionArb.map((v) => ["IngestionType", v] as [string, unknown]) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>("Phishing", { $in: ["Malware", "DDoS"] }, { $regex: "a" }, { $ne: "DDoS" })
      .map((v) => ["Type", v] as [string, unknown]),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(
        { $in: [1, 2, 3, 50, 7] },
        { $nin: [1, 2] },
        { $gt: 200 },
        7,
        { $ne: 7 },
        { $in: ["7", 1.5] },
      )
      .map((v) => ["IncidentId", v] as [string, unknown]),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>("N-3", { $in: ["N-1", "N-2"] }, { $ne: "N-1" })
      .map((v) => ["Number", v] as [string, unknown]),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<[string, unknown]>(
      ["Custom.Owner", "alice"],
      ["Custom.Owner", null],
      ["x", { $gte: 2 }],
      ["x", { $type: "string" }],
      ["x", { $exists: false }],
      ["x", { $mod: [2, 1] }],
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(regexArb, severityArb, statusArb)
      .chain(([r, s, st]) =>
        fc.constantFrom<[string, unknown]>(
          ["$or", [{ Title: r }, { Severity: s }]],
          ["$or", [{ Status: st }, { IngestionType: "Webhook" }]],
          ["$nor", [{ Title: r }, { Status: st }]],
          ["$nor", [{ Severity: s }]],
          ["$and", [{ Status: st }, { Title: r }]],
          ["$or", [{ $nor: [{ Title: r }] }, { CreatedUtcTime: { $exists: false } }]],
        ),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(
        { $ne: { $date: iso20(BASE + 3 * DAY) } },
        { $exists: true },
        { $in: [{ $date: iso20(BASE + 2 * DAY) }, null] },
        { $nin: [{ $date: iso20(BASE + 2 * DAY) }] },
        { $lt: { $date: iso20(BASE + 20 * DAY) } },
        { $not: { $gt: { $date: iso20(BASE + 10 * DAY) } } },
        { $type: "date" },
      )
      .map((v) => ["CreatedUtcTime", v] as [string, unknown]),
  },
);

/** A top-level AND holding a `CreatedUtcTime` interval and 1–4 other parts, as an object or an `$and`. */
const queryArb: fc.Arbitrary<unknown> = fc
  .tuple(intervalArb, fc.array(partArb, { minLength: 1, maxLength: 4 }), fc.nat(3), fc.boolean())
  .map(([interval, parts, at, asAnd]) => {
    const all: [string, unknown][] = [...parts];
    all.splice(at % (all.length + 1), 0, ["CreatedUtcTime", interval]);
    const keys = all.map(([k]) => k);
    const unique = new Set(keys).size === keys.length;
    if (unique && !asAnd) return Object.fromEntries(all);
    return { $and: all.map(([k, v]) => ({ [k]: v })) };
  });

// ---------------------------------------------------------------------------------------------------------
// The check

const layouts: [string, IncidentSetOptions][] = [
  ["per-row titles", { maxDictionary: 16, textIndex: { maxBytes: 0 } }],
  ["default", {}],
  ["small dictionaries", { maxDictionary: 2, textIndex: { maxBytes: 0 } }],
  ["text index", { maxDictionary: 16 }],
];

const parsed = new Map<string, ReturnType<typeof parseSearchConditions>>();
function parse(raw: unknown) {
  const key = JSON.stringify(raw);
  let condition = parsed.get(key);
  if (condition === undefined) {
    condition = parseSearchConditions(raw);
    parsed.set(key, condition);
  }
  return condition;
}

/** The records as the set sees them: their JSON form for a compact set. */
const jsonForm = (records: readonly Incident[]) =>
  records.map((r) => JSON.parse(JSON.stringify(r)) as Incident);

function checkQueries(set: IncidentSet, records: readonly Incident[], queries: readonly unknown[]): void {
  const unknownRows = records.some((r) =>
    ["Title", "Status", "Severity", "IngestionType", "Type"].some((k) => {
      const v = r[k];
      return typeof v === "object" && v !== null;
    }),
  );
  for (const raw of queries) {
    const condition = parse(raw);
    let expected = 0;
    for (const record of records) if (evaluate(condition, record)) expected++;
    const plan = set.explain(untyped(raw)).count;
    stats.queries++;
    stats.plans.set(plan.replace(/\d+/g, "#"), (stats.plans.get(plan.replace(/\d+/g, "#")) ?? 0) + 1);
    if (plan.startsWith("columns: segment")) {
      stats.segment++;
      if (unknownRows) stats.segmentWithUnknownRows++;
    }
    const counted = set.count(untyped(raw));
    if (counted !== expected) {
      throw new Error(
        `count ${counted} != reference ${expected} (plan: ${plan}; size ${records.length}) for ${JSON.stringify(raw)}`,
      );
    }
    // Twice: a second count reuses what the first kept (memos, permuted copies, accept tables).
    expect(set.count(condition)).toBe(expected);
    expect(set.findAll(untyped(raw)).length).toBe(expected);
  }
}

/**
 * A record's NDJSON line, JSON that `JSON.parse` reads as `JSON.stringify`'s: with `odd`, some characters of
 * strings (keys included) written as `\uXXXX` escapes and blanks between tokens, so that the line scanner
 * leaves its ASCII fast path.
 */
function line(record: Incident, odd: number): string {
  if (odd === 0) return JSON.stringify(record);
  let k = odd;
  const next = () => {
    k = (k * 1103515245 + 12345) & 0x7fffffff;
    return k;
  };
  const str = (text: string) => {
    let out = '"';
    for (const ch of text) {
      const code = ch.codePointAt(0)!;
      if (ch === '"' || ch === "\\" || code < 0x20 || next() % 7 === 0) {
        for (const unit of ch.split("")) out += `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
      } else out += ch;
    }
    return `${out}"`;
  };
  const blank = () => [" ", "", "", "\t"][next() % 4]!;
  const write = (value: unknown): string => {
    if (typeof value === "string") return str(value);
    if (Array.isArray(value)) return `[${blank()}${value.map(write).join(`,${blank()}`)}${blank()}]`;
    if (value !== null && typeof value === "object") {
      const plain = JSON.parse(JSON.stringify(value)) as unknown;
      if (typeof plain === "string") return str(plain);
      return `{${blank()}${Object.entries(plain as Record<string, unknown>)
        .map(([key, v]) => `${str(key)}${blank()}:${blank()}${write(v)}`)
        .join(`,${blank()}`)}${blank()}}`;
    }
    return JSON.stringify(value);
  };
  return write(record);
}

/**
 * Builds the set of the first `split` records (objects or NDJSON), checks, adds the rest in two batches of
 * `add()`, checking after each.
 */
async function attack(
  records: readonly Incident[],
  queries: readonly unknown[],
  split: number,
  options: IncidentSetOptions,
  ndjson: boolean,
  odd = 0,
): Promise<void> {
  const cut = split % (records.length + 1);
  const first = records.slice(0, cut);
  const set = ndjson
    ? await IncidentSet.fromNdjson([first.map((r, i) => `${line(r, odd && odd + i)}\n`).join("")], options)
    : new IncidentSet(first, options);
  const seen = ndjson ? jsonForm(records) : records;
  if (ndjson && odd !== 0)
    first.forEach((r, i) => {
      expect(JSON.parse(line(r, odd + i))).toEqual(seen[i]);
    });
  checkQueries(set, seen.slice(0, cut), queries);
  if (cut === records.length) return;
  const middle = cut + Math.ceil((records.length - cut) / 2);
  for (const record of records.slice(cut, middle)) set.add(record as Incident);
  checkQueries(set, seen.slice(0, middle), queries);
  for (const record of records.slice(middle)) set.add(record as Incident);
  checkQueries(set, seen, queries);
}

const SIZES_SMALL = [31, 32, 33, 255, 256, 257, 300, 400, 511, 512, 513, 700, 1000];

describe.each(layouts)("count over a segment scan equals the reference (%s)", (_name, options) => {
  it("objects and NDJSON, small sets around word boundaries, with adds", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Shrinking hundreds of records is slow: bounded, so that a failure is reported in about a minute.
        fc.limitShrink(
          profileArb.chain((profile) =>
            fc
              .constantFrom(...SIZES_SMALL)
              .chain((n) => fc.array(recordArb(profile), { minLength: n, maxLength: n })),
          ),
          60,
        ),
        fc.array(queryArb, { minLength: 3, maxLength: 6 }),
        fc.nat(),
        fc.boolean(),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1 << 20 })),
        async (records, queries, split, ndjson, odd) => {
          // Most runs build the whole set first (the adds follow for a fraction of it).
          const cut = split % 3 === 0 ? records.length : records.length - (split % 97);
          await attack(records, queries, Math.max(0, cut), options, ndjson, odd);
        },
      ),
      { seed: SEED, numRuns: runs(80) },
    );
  });
});

describe("count over a segment scan on sets around block boundaries", () => {
  it.each([
    [1023, "per-row titles"],
    [1024, "text index"],
    [1025, "default"],
    [8191, "per-row titles"],
    [8192, "default"],
    [8193, "text index"],
  ] as const)("%i rows (%s)", async (n, layout) => {
    const options = layouts.find(([name]) => name === layout)![1];
    await fc.assert(
      fc.asyncProperty(
        profileArb,
        fc.integer(),
        fc.array(queryArb, { minLength: 8, maxLength: 14 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1 << 20 })),
        async (profile, sampleSeed, queries, tail, ndjson, odd) => {
          const records = fc.sample(recordArb(profile), { seed: sampleSeed, numRuns: n });
          await attack(records, queries, n - tail, options, ndjson, odd);
        },
      ),
      { seed: SEED, numRuns: runs(n > 2000 ? 4 : 8) },
    );
  });
});

describe("the attack reaches the segment plan", () => {
  it("a good share of the queries are counted by a segment scan", () => {
    // Runs after the properties above (vitest runs a file's tests in order).
    expect(stats.queries).toBeGreaterThan(1000);
    expect(stats.segment / stats.queries).toBeGreaterThan(0.15);
    expect(stats.segmentWithUnknownRows).toBeGreaterThan(50);
  });
});
