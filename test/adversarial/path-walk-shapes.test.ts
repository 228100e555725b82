/**
 * Other shapes against the linear walk of a dotted path (docs/semantics.md 1.7, "The walk of a dotted
 * path"; "Time budget of a search over a collection"): wide fan-out, `$elemMatch` inside dotted paths, `$or`
 * of many dotted paths over the same deep record, long paths of field names, numeric segments over wide
 * records. Each costs at most (values in the record) × (size of the condition): counted as reads of the
 * record through counting Proxies, by `compile` (closures and generated code) and by `IncidentSet`, and as
 * the values `evaluate`'s walk examines. Never a time.
 *
 * And records that are not data: a getter that builds a fresh object at each read makes a record without
 * end (each `a` holds two new records), whose walk under `a.a.a…` doubles every segment however it is
 * walked; an object shared by many places of a record (a DAG) under nested `$elemMatch` is tried once per
 * place. No walk can be linear in such records; the search's budget must still stop them.
 */
import { describe, expect, it } from "vitest";
import type { Condition } from "../../src/conditions/ast.js";
import { compile } from "../../src/conditions/compile.js";
import { evaluate, walkSteps } from "../../src/conditions/evaluate.js";
import { WALK_STEPS_PER_TICK } from "../../src/conditions/leaf.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { BUDGET_CHECK_INTERVAL, SearchTimeoutError } from "../../src/incidents/search-budget.js";
import { countingRecord, type ReadCounter, valueCount } from "../support/counting-proxy.js";
import { switched } from "../support/tiers.js";

/** Reads of `record` by each engine's check of it (`findAll`, then `count`, of a set holding it). */
function readsByEngine(record: object, condition: Condition) {
  const expected = evaluate(condition, record);
  const out: Record<string, number> = {};
  const engines: [string, () => (r: object) => boolean][] = [
    ["closures", () => compile(condition, { codegen: false, cache: false })],
    ["codegen", () => switched(compile(condition, { cache: false }))],
  ];
  for (const [name, make] of engines) {
    const predicate = make();
    const counter: ReadCounter = { reads: 0 };
    const counted = countingRecord(record, counter);
    expect(predicate(counted), name).toBe(expected);
    out[name] = counter.reads;
  }
  const counter: ReadCounter = { reads: 0 };
  const counted = countingRecord(record, counter);
  const filler = { a: 1 };
  const set = new IncidentSet<object>([filler, counted]);
  counter.reads = 0;
  expect(set.findAll(condition).includes(counted), "IncidentSet").toBe(expected);
  out.findAll = counter.reads;
  counter.reads = 0;
  expect(set.count(condition), "IncidentSet").toBe(Number(expected) + Number(evaluate(condition, filler)));
  out.count = counter.reads;
  return out;
}

/** The number of field nodes and path segments of a condition's input (its size, as the rule counts it). */
function conditionSize(input: unknown): number {
  if (typeof input !== "object" || input === null) return 1;
  let size = 0;
  for (const [key, value] of Object.entries(input)) size += key.split(".").length + conditionSize(value);
  return size;
}

const wideObjects = () => ({
  a: Array.from({ length: 10_000 }, (_, i) => ({
    b: [{ c: [{ d: i }, { d: -i }] }, { c: { d: 0 } }, 7],
  })),
});

/** `{a: [{0: [{0: …}]}, …]}`: `width` objects, each `{0: …}` around `depth` levels of `[{0: …}]` around 2. */
const wideZeros = (width: number, depth: number) => ({
  a: Array.from({ length: width }, () => ({
    0: JSON.parse(`${'[{"0":'.repeat(depth)}2${"}]".repeat(depth)}`),
  })),
});

/** `{a: {a: {a: … 1 …}}}` of `depth` levels, as text (built without recursion). */
const deepFields = (depth: number) => JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);

interface Shape {
  readonly name: string;
  readonly record: () => object;
  readonly condition: unknown;
  /** The bound as a multiple of (values in the record) × (size of the condition). */
  readonly factor: number;
}

const SHAPES: readonly Shape[] = [
  {
    name: "wide fan-out: 10,000 objects each with arrays of objects under a.b.c.d",
    record: wideObjects,
    condition: { "a.b.c.d": -9_999 },
    factor: 2,
  },
  {
    name: "$elemMatch inside a dotted path, with a dotted path and $elemMatch of its own",
    record: wideObjects,
    condition: {
      "a.b": { $elemMatch: { "c.d": { $gte: 9_999 }, c: { $elemMatch: { d: { $lt: -9_998 } } } } },
    },
    factor: 2,
  },
  {
    name: "$or of 40 dotted paths over the same wide record",
    record: wideObjects,
    condition: {
      $or: Array.from({ length: 40 }, (_, i) => ({ [`a.b.c.${i % 2 === 0 ? "d" : "e"}`]: -20_000 - i })),
    },
    factor: 2,
  },
  {
    name: "a long path of field names: 600 segments over 600 levels",
    record: () => deepFields(600),
    condition: { [Array.from({ length: 601 }, () => "a").join(".")]: { $exists: false } },
    factor: 2,
  },
  {
    name: "numeric segments over a wide record: 200 copies of 14 levels of [{0: …}] under 29 zeros",
    record: () => wideZeros(200, 14),
    condition: { [`a.${Array.from({ length: 29 }, () => "0").join(".")}`]: 2 },
    factor: 2,
  },
];

describe("other shapes cost at most the record times the condition (docs/semantics.md 1.7)", () => {
  it.each(SHAPES)("$name", (shape) => {
    const record = shape.record();
    const condition = parseSearchConditions(shape.condition);
    const bound = shape.factor * valueCount(record) * conditionSize(shape.condition);
    const reads = readsByEngine(record, condition);
    console.info(`${shape.name}: ${JSON.stringify(reads)}, bound ${bound}`);
    for (const [engine, count] of Object.entries(reads)) expect(count, engine).toBeLessThanOrEqual(bound);
  });

  it("evaluate's walk examines each value about once per segment on the wide records", () => {
    const record = wideZeros(200, 14);
    const path = ["a", ...Array.from({ length: 29 }, () => "0")];
    expect(walkSteps(record, path)).toBeLessThanOrEqual(2 * valueCount(record) * path.length);
    const wide = wideObjects();
    expect(walkSteps(wide, ["a", "b", "c", "d"])).toBeLessThanOrEqual(2 * valueCount(wide));
  });
});

/** One budget's worth of values: what a search examines between two readings of its clock. */
const PER_READING = BUDGET_CHECK_INTERVAL * WALK_STEPS_PER_TICK;

describe("records without end or with shared parts are stopped by the budget (docs/semantics.md 1.7)", () => {
  it("a getter building two fresh records at each read: the walk of a.a.a… (60 segments) is stopped", () => {
    let reads = 0;
    const endless = (): object => ({
      get a() {
        reads++;
        return [endless(), endless()];
      },
    });
    const record = { Status: "Open", a: [endless()] };
    const condition = parseSearchConditions({ [Array.from({ length: 60 }, () => "a").join(".")]: 1 });
    const set = new IncidentSet<object>([record]);
    // Time passes once the walk has begun (the first getter read).
    const clock = () => (reads === 0 ? 0 : 100);
    expect(() => set.count(condition, { maxTimeMS: 5, clock })).toThrow(SearchTimeoutError);
    // Stopped at the first reading of the clock inside the walk: a few budgets' worth of getters at most
    // (2^60 without the budget).
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(4 * PER_READING);
  });

  it("one object shared by every place of a record under nested $elemMatch is stopped", () => {
    let reads = 0;
    // 3 levels of 1,000 places each holding the same array: one million million tries by route.
    const leaf = { d: 0 };
    const level2 = Array.from({ length: 1_000 }, () => leaf);
    const level1 = Array.from({ length: 1_000 }, () => ({
      get c() {
        reads++;
        return level2;
      },
    }));
    const shared = { b: level1 };
    const record = { a: Array.from({ length: 1_000 }, () => shared) };
    const condition = parseSearchConditions({
      a: { $elemMatch: { b: { $elemMatch: { c: { $elemMatch: { d: 1 } } } } } },
    });
    const set = new IncidentSet<object>([record]);
    // Time passes once the check has begun (the first getter read).
    const clock = () => (reads === 0 ? 0 : 100);
    expect(() => set.count(condition, { maxTimeMS: 5, clock })).toThrow(SearchTimeoutError);
    // Each getter read tries 1,000 elements: stopped within a few budgets' worth of elements (10^9 reads of
    // the getter without the budget).
    expect(reads).toBeGreaterThan(0);
    expect(reads * 1_000).toBeLessThanOrEqual(4 * PER_READING);
  });
});
