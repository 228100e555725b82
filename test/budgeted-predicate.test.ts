/**
 * `budgetedPredicate` from the package root, as a third-party database backend uses it
 * (docs/semantics.md 1.7, "Time budget of a search over a collection"): a compiled predicate that a single
 * long record's walk can stop, answering as the predicate does otherwise.
 */
import { describe, expect, it } from "vitest";
import {
  BUDGET_CHECK_INTERVAL,
  budgetedPredicate,
  compile,
  parseSearchConditions,
  SearchTimeoutError,
  startBudget,
} from "../src/index.js";

/** Elements enough for one walk to charge the budget past its check interval (256 values a tick). */
const ELEMENTS = BUDGET_CHECK_INTERVAL * 256 + 2000;

/** `{ a: [{ b: 1 }, …, { b: 2 }] }`: only the last element matches `{"a.b": 2}`; `lastRead` tells if it was reached. */
function longRecord() {
  let lastRead = false;
  const a: object[] = Array.from({ length: ELEMENTS - 1 }, () => ({ b: 1 }));
  a.push({
    get b() {
      lastRead = true;
      return 2;
    },
  });
  return { record: { a }, lastRead: () => lastRead };
}

/** A fake clock: 0 at the search's start, 100 ms at every later reading; counts its readings. */
function steppingClock() {
  let readings = 0;
  return { clock: () => (readings++ === 0 ? 0 : 100), readings: () => readings };
}

describe("budgetedPredicate, public (docs/semantics.md 1.7)", () => {
  const condition = parseSearchConditions({ "a.b": 2 });

  it("stops a single record's walk past the deadline, before the walk's end", () => {
    const long = longRecord();
    const { clock, readings } = steppingClock();
    const matches = budgetedPredicate(compile(condition), startBudget({ maxTimeMS: 5, clock }));
    expect(() => matches(long.record)).toThrow(SearchTimeoutError);
    expect(long.lastRead()).toBe(false);
    expect(readings()).toBe(2); // the start, then the walk's first check
  });

  it("answers as the compiled predicate does when unbounded or within the budget", () => {
    const predicate = compile(condition);
    const records = [longRecord().record, { a: [{ b: 1 }] }, { a: { b: 2 } }, {}, { a: null }];
    const unbounded = budgetedPredicate(predicate, startBudget(undefined));
    const { clock } = steppingClock();
    const loose = budgetedPredicate(predicate, startBudget({ maxTimeMS: 1000, clock }));
    const expected = [true, false, true, false, false];
    expect(records.map((record) => predicate(record))).toEqual(expected);
    expect(records.map((record) => unbounded(record))).toEqual(expected);
    expect(records.map((record) => loose(record))).toEqual(expected);
  });

  it("the example of its doc comment: a first-match loop that ticks once per record", () => {
    const { clock } = steppingClock();
    const timer = startBudget({ maxTimeMS: 1000, clock });
    const matches = budgetedPredicate(compile(condition), timer);
    const candidates = [{ a: [{ b: 1 }] }, { a: [{ b: 3 }, { b: 2 }] }, { a: { b: 2 } }];
    let found: unknown;
    for (const record of candidates) {
      timer.tick();
      if (matches(record)) {
        found = record;
        break;
      }
    }
    expect(found).toBe(candidates[1]);
  });
});
