import { describe, expect, it } from "vitest";
import { BUDGET_CHECK_INTERVAL, SearchTimeoutError, startBudget } from "./search-budget.js";

describe("startBudget", () => {
  it("never reads the clock without maxTimeMS", () => {
    let reads = 0;
    const timer = startBudget({
      clock: () => {
        reads++;
        return 0;
      },
    });
    for (let i = 0; i < 10 * BUDGET_CHECK_INTERVAL; i++) timer.tick();
    timer.check();
    expect(reads).toBe(0);
  });

  it("reads the clock once every BUDGET_CHECK_INTERVAL ticks and throws past the deadline", () => {
    let now = 0;
    let reads = 0;
    const timer = startBudget({
      maxTimeMS: 5,
      clock: () => {
        reads++;
        return now;
      },
    });
    expect(reads).toBe(1);
    for (let i = 0; i < BUDGET_CHECK_INTERVAL - 1; i++) timer.tick();
    expect(reads).toBe(1);
    timer.tick();
    expect(reads).toBe(2);
    now = 5;
    timer.check(); // at the deadline: still within budget
    now = 5.001;
    expect(() => timer.check()).toThrow(SearchTimeoutError);
    expect(() => timer.check()).toThrow("The Search Conditions took longer than 5 ms to evaluate.");
  });

  it("counts blocks of records with tick(n), and a check() restarts the count", () => {
    let reads = 0;
    const timer = startBudget({
      maxTimeMS: 5,
      clock: () => {
        reads++;
        return 0;
      },
    });
    for (let i = 0; i < BUDGET_CHECK_INTERVAL / 32 - 1; i++) timer.tick(32);
    expect(reads).toBe(1);
    timer.tick(32);
    expect(reads).toBe(2);
    timer.tick(10 * BUDGET_CHECK_INTERVAL);
    expect(reads).toBe(3);
    for (let i = 0; i < BUDGET_CHECK_INTERVAL - 1; i++) timer.tick();
    timer.check();
    expect(reads).toBe(4);
    for (let i = 0; i < BUDGET_CHECK_INTERVAL - 1; i++) timer.tick();
    expect(reads).toBe(4);
  });

  it("refuses a budget it cannot keep", () => {
    expect(() => startBudget({ maxTimeMS: 10 })).toThrow(TypeError);
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, "10" as unknown as number]) {
      expect(() => startBudget({ maxTimeMS: bad, clock: () => 0 })).toThrow(TypeError);
    }
  });

  it("carries the code and the budget on the error", () => {
    const error = new SearchTimeoutError(2000);
    expect(error.code).toBe("search_timeout");
    expect(error.maxTimeMS).toBe(2000);
    expect(error.message).toBe("The Search Conditions took longer than 2000 ms to evaluate.");
  });
});
