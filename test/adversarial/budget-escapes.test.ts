/**
 * Can a single record's check still escape the search's time budget (docs/semantics.md 1.7, "Time budget
 * of a search over a collection")? The dotted-path walk charges the budget; these cases do their work
 * elsewhere: in the array traversal at the END of a path (equality, `$in`, `$regex`, `$all`, `$or` over one
 * array), in `$elemMatch`'s loop over the elements, with no walk of a dotted path at all or a walk of one
 * value. Each record holds one array of `ELEMENTS` values, more than the budget lets pass without reading
 * the clock (1,024 × 256 values).
 *
 * The clock is a fake whose time passes only once the check has read an early element (an accessor), so a
 * clock read before the check does not count; a late element (an accessor) counts how often the check
 * reaches the end of the array, so a search stopped inside the check is told apart from one stopped after
 * it. Counts, never time.
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/conditions/compile.js";
import { WALK_STEPS_PER_TICK } from "../../src/conditions/leaf.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import {
  BUDGET_CHECK_INTERVAL,
  budgetedPredicate,
  SearchTimeoutError,
  startBudget,
} from "../../src/incidents/search-budget.js";
import { switched } from "../support/tiers.js";

/** More values than a search examines without reading its clock. */
const ELEMENTS = BUDGET_CHECK_INTERVAL * WALK_STEPS_PER_TICK + 2000;
const EARLY = 1000;

/** One array of `ELEMENTS` values (`fill(i)`), whose element `EARLY` starts the clock and whose last one counts. */
function armed(fill: (i: number) => unknown, last: unknown) {
  let started = false;
  let lateReads = 0;
  let readings = 0;
  const array: unknown[] = Array.from({ length: ELEMENTS }, (_, i) => fill(i));
  const early = array[EARLY];
  Object.defineProperty(array, EARLY, {
    get() {
      started = true;
      return early;
    },
    enumerable: true,
  });
  Object.defineProperty(array, ELEMENTS - 1, {
    get() {
      lateReads++;
      return last;
    },
    enumerable: true,
  });
  return {
    array,
    clock: () => {
      readings++;
      return started ? 100 : 0;
    },
    lateReads: () => lateReads,
    readings: () => readings,
    rearm: () => {
      started = false;
      lateReads = 0;
      readings = 0;
    },
  };
}

interface Escape {
  readonly name: string;
  readonly condition: unknown;
  /** The record around the armed array. */
  readonly record: (array: unknown[]) => object;
  readonly fill: (i: number) => unknown;
  readonly last: unknown;
}

const ESCAPES: readonly Escape[] = [
  {
    name: "equality on a one-segment field holding a long array",
    condition: { a: 7 },
    record: (a) => ({ a }),
    fill: () => 0,
    last: 7,
  },
  {
    name: "$in on a dotted path that reaches one long array",
    condition: { "a.b": { $in: [7, 8, 9] } },
    record: (b) => ({ a: { b } }),
    fill: () => 0,
    last: 7,
  },
  {
    name: "$all of several values over a long array (each value traverses it)",
    condition: { a: { $all: [7, 8] } },
    record: (a) => ({ a }),
    fill: (i) => (i === 0 ? 8 : 0),
    last: 7,
  },
  {
    name: "$regex over a long array of strings",
    condition: { a: { $regex: "^z" } },
    record: (a) => ({ a }),
    fill: () => "abc",
    last: "zzz",
  },
  {
    name: "$or of equalities over the same long array",
    condition: { $or: [{ a: 5 }, { a: 6 }, { a: 7 }] },
    record: (a) => ({ a }),
    fill: () => 0,
    last: 7,
  },
  {
    name: "$elemMatch (query form, one-segment field) over a long array of objects",
    condition: { a: { $elemMatch: { b: 7 } } },
    record: (a) => ({ a }),
    fill: () => ({ b: 0 }),
    last: { b: 7 },
  },
  {
    name: "$elemMatch (operator form) over a long array",
    condition: { a: { $elemMatch: { $gte: 7 } } },
    record: (a) => ({ a }),
    fill: () => 0,
    last: 7,
  },
];

describe("a single record's check cannot escape the search's budget (docs/semantics.md 1.7)", () => {
  it.each(ESCAPES)("IncidentSet findFirst/findAll/count stop inside: $name", (shape) => {
    const condition = parseSearchConditions(shape.condition);
    const armedArray = armed(shape.fill, shape.last);
    const record = shape.record(armedArray.array);
    const set = new IncidentSet<object>([record]);
    // Without a budget the record matches, reaching the late element this many times.
    armedArray.rearm();
    expect(set.count(condition)).toBe(1);
    const full = armedArray.lateReads();
    expect(full).toBeGreaterThan(0);
    for (const search of ["findFirst", "findAll", "count"] as const) {
      armedArray.rearm();
      expect(() => set[search](condition, { maxTimeMS: 5, clock: armedArray.clock }), search).toThrow(
        SearchTimeoutError,
      );
      expect(armedArray.lateReads(), `${search} stopped inside the check`).toBeLessThan(full);
    }
  });

  it.each(ESCAPES)("budgetedPredicate stops inside, both back ends: $name", (shape) => {
    const condition = parseSearchConditions(shape.condition);
    const armedArray = armed(shape.fill, shape.last);
    const record = shape.record(armedArray.array);
    for (const predicate of [
      compile(condition, { codegen: false, cache: false }),
      switched(compile(condition, { cache: false })),
    ]) {
      armedArray.rearm();
      expect(predicate(record), predicate.mode).toBe(true);
      const full = armedArray.lateReads();
      armedArray.rearm();
      const budgeted = budgetedPredicate(predicate, startBudget({ maxTimeMS: 5, clock: armedArray.clock }));
      expect(() => budgeted(record), predicate.mode).toThrow(SearchTimeoutError);
      expect(armedArray.lateReads(), predicate.mode).toBeLessThan(full);
      // Within the budget: the same answer, the clock read at least once per 1,024 × 256 values examined.
      armedArray.rearm();
      const within = budgetedPredicate(predicate, startBudget({ maxTimeMS: 1000, clock: armedArray.clock }));
      expect(within(record), predicate.mode).toBe(true);
      expect(armedArray.readings(), predicate.mode).toBeGreaterThanOrEqual(
        1 + Math.floor(ELEMENTS / (BUDGET_CHECK_INTERVAL * WALK_STEPS_PER_TICK)),
      );
    }
  });
});
