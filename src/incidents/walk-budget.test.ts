/**
 * The time budget stops a single record's walk (docs/semantics.md 1.7, "Time budget of a search over a
 * collection"): a dotted-path walk ticks the search's timer once per `WALK_STEPS_PER_TICK` values it
 * examines, so a set of one record whose walk is long reads the clock during the walk and stops there.
 * The clock is a fake (the engine reads none of its own) whose time passes only once the walk has read an
 * early element of the record: a search stopped before the walk, or after it, is told apart from one
 * stopped inside it by a late element whose getter is never called.
 */
import { describe, expect, it } from "vitest";
import { switched } from "../../test/support/tiers.js";
import { compile } from "../conditions/compile.js";
import { WALK_STEPS_PER_TICK } from "../conditions/leaf.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { IncidentSet } from "./incident-set.js";
import {
  BUDGET_CHECK_INTERVAL,
  budgetedPredicate,
  SearchTimeoutError,
  startBudget,
} from "./search-budget.js";

/** Elements: enough for the walk of one segment to read the clock once past the early element. */
const ELEMENTS = BUDGET_CHECK_INTERVAL * WALK_STEPS_PER_TICK + 2000;
/** The element whose read starts the clock. */
const EARLY = 1000;

/**
 * A record `{ a: [{ b: { c: 1 } }, …] }` whose element `EARLY` starts the clock (`clock` reads 0 before,
 * 100 after) and whose last element's `b` (holding `{ c: 2 }`) tells whether it was read (`reachedLast`).
 * `rearm` stops the clock and forgets the last read.
 */
function longRecord() {
  let started = false;
  let reached = false;
  const a: object[] = Array.from({ length: ELEMENTS - 1 }, () => ({ b: { c: 1 } }));
  a[EARLY] = {
    get b() {
      started = true;
      return { c: 1 };
    },
  };
  a.push({
    get b() {
      reached = true;
      return { c: 2 };
    },
  });
  let readings = 0;
  return {
    record: { Status: "Open", a } as object,
    clock: () => {
      readings++;
      return started ? 100 : 0;
    },
    readings: () => readings,
    reachedLast: () => reached,
    rearm: () => {
      started = false;
      reached = false;
      readings = 0;
    },
  };
}

const CONDITIONS: readonly [string, unknown][] = [
  ["a dotted path", { "a.b.c": 2 }],
  ["many short walks ($elemMatch on each element)", { a: { $elemMatch: { "b.c": 2 } } }],
];

describe("the search budget stops a single record's walk (docs/semantics.md 1.7)", () => {
  it.each(CONDITIONS)("IncidentSet: findFirst, findAll and count stop inside %s", (_name, input) => {
    const condition = parseSearchConditions(input);
    const long = longRecord();
    const set = new IncidentSet<object>([long.record]);
    for (const search of ["findFirst", "findAll", "count"] as const) {
      long.rearm();
      expect(() => set[search](condition, { maxTimeMS: 5, clock: long.clock }), search).toThrow(
        SearchTimeoutError,
      );
      expect(long.reachedLast(), `${search} stopped before the walk's end`).toBe(false);
    }
    // Without a budget, and with one the walk stays within, the same record matches.
    expect(set.count(condition)).toBe(1);
    long.rearm();
    expect(set.count(condition, { maxTimeMS: 1000, clock: long.clock })).toBe(1);
    expect(long.reachedLast()).toBe(true);
  });

  it.each(CONDITIONS)(
    "budgetedPredicate stops %s in both back ends; the stop ends with its search",
    (_name, input) => {
      const condition = parseSearchConditions(input);
      const long = longRecord();
      for (const predicate of [
        compile(condition, { codegen: false, cache: false }),
        switched(compile(condition, { cache: false })),
      ]) {
        long.rearm();
        const budgeted = budgetedPredicate(predicate, startBudget({ maxTimeMS: 5, clock: long.clock }));
        expect(() => budgeted(long.record), predicate.mode).toThrow(SearchTimeoutError);
        expect(long.reachedLast(), predicate.mode).toBe(false);
        // The same predicate answers in full afterwards, budgeted or not.
        expect(predicate(long.record), predicate.mode).toBe(true);
        expect(budgetedPredicate(predicate, startBudget(undefined))(long.record), predicate.mode).toBe(true);
      }
    },
  );

  it("a walk within the budget reads the clock at least once per 1,024 × 256 values it examines", () => {
    const condition = parseSearchConditions({ "a.b.c": 2 });
    const long = longRecord();
    const set = new IncidentSet<object>([long.record]);
    long.rearm();
    expect(set.count(condition, { maxTimeMS: 1000, clock: long.clock })).toBe(1);
    // The walk examines 2 × ELEMENTS values (each element, then each `b`); the search reads the clock once
    // at its start besides.
    const perReading = BUDGET_CHECK_INTERVAL * WALK_STEPS_PER_TICK;
    expect(long.readings()).toBeGreaterThanOrEqual(1 + Math.floor((2 * ELEMENTS) / perReading));
  });
});
