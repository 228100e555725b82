/**
 * The time budget of a search over a collection (docs/semantics.md 1.7, "Time budget"; docs/semantics.md
 * "Limits"). The engine reads no clock of its own: the caller passes `clock`, and the search calls it at
 * least once every {@link BUDGET_CHECK_INTERVAL} records.
 */

import { underWalkBudget } from "../conditions/leaf.js";

/** How often, at most, a budgeted search goes without reading the clock: every 1,024 records. */
export const BUDGET_CHECK_INTERVAL = 1024;

/**
 * A search's time budget: `maxTimeMS` (MongoDB's name) in milliseconds, measured with `clock`.
 * `clock` returns milliseconds from any fixed origin (`() => performance.now()`, or a fake in tests).
 * With no `maxTimeMS` the search is unbounded and `clock` is never called.
 */
export interface SearchBudget {
  /** The budget in milliseconds: a finite number ≥ 0. */
  readonly maxTimeMS?: number | undefined;
  /** Milliseconds from any fixed origin; required when `maxTimeMS` is set. */
  readonly clock?: (() => number) | undefined;
}

/**
 * Thrown by a budgeted search that ran past its `maxTimeMS` (docs/semantics.md 1.7). The command handler
 * answers it as a command failure: `The Search Conditions took longer than 2000 ms to evaluate.`
 */
export class SearchTimeoutError extends Error {
  /** Always `"search_timeout"`. */
  readonly code = "search_timeout" as const;
  /** The budget that was exceeded, in milliseconds. */
  readonly maxTimeMS: number;

  constructor(maxTimeMS: number) {
    super(`The Search Conditions took longer than ${maxTimeMS} ms to evaluate.`);
    this.name = "SearchTimeoutError";
    this.maxTimeMS = maxTimeMS;
  }
}

/**
 * A running budget: `tick()` once per record examined (or `tick(n)` once per block of `n` records, e.g. 32
 * rows of a column pass); it reads the clock each time {@link BUDGET_CHECK_INTERVAL} records have been
 * counted since the last reading, and throws past the deadline.
 */
export interface BudgetTimer {
  /**
   * Counts `records` records (default 1, a positive integer); reads the clock when
   * {@link BUDGET_CHECK_INTERVAL} or more have been counted since it was last read.
   * @throws {SearchTimeoutError} when the clock was read and the deadline has passed
   */
  tick(records?: number): void;
  /** Reads the clock now; throws {@link SearchTimeoutError} when the deadline has passed. */
  check(): void;
}

const UNBOUNDED: BudgetTimer = Object.freeze({ tick() {}, check() {} });

/**
 * Starts a budget. Without `maxTimeMS` the timer does nothing (and never reads a clock).
 * @throws {TypeError} when `maxTimeMS` is not a finite number ≥ 0, or is set without a `clock` function
 */
export function startBudget(budget: SearchBudget | undefined): BudgetTimer {
  if (budget === undefined || budget.maxTimeMS === undefined) return UNBOUNDED;
  const { maxTimeMS, clock } = budget;
  if (typeof maxTimeMS !== "number" || !Number.isFinite(maxTimeMS) || maxTimeMS < 0) {
    throw new TypeError(`maxTimeMS must be a finite number of milliseconds ≥ 0, found ${String(maxTimeMS)}.`);
  }
  if (typeof clock !== "function") {
    throw new TypeError(
      "maxTimeMS needs a clock: pass { maxTimeMS, clock: () => performance.now() } (the engine reads no clock of its own).",
    );
  }
  const deadline = clock() + maxTimeMS;
  let countdown = BUDGET_CHECK_INTERVAL;
  const check = (): void => {
    countdown = BUDGET_CHECK_INTERVAL;
    if (clock() > deadline) throw new SearchTimeoutError(maxTimeMS);
  };
  return {
    tick(records = 1) {
      countdown -= records;
      if (countdown <= 0) check();
    },
    check,
  };
}

/**
 * Wraps a compiled predicate so that a single record's check charges the search's budget
 * (docs/semantics.md 1.7, "Time budget of a search over a collection"): for a search that calls a compiled
 * predicate itself, such as a database backend re-checking the candidates its query returned (the
 * PostgreSQL backend does; `IncidentSet` does the same around its own searches).
 *
 * While the returned predicate runs, every dotted-path walk, every traversal of an array at the end of a
 * path and every element `$elemMatch` tries charges `timer` one record per 256 values examined, so that a
 * record of millions of values can be stopped mid-check. It does not tick once per record: the caller
 * ticks `timer` for each record it examines (`timer.tick()`), as any budgeted search does. Only a predicate
 * from `compile` charges the budget; another function (`evaluate` wrapped in a closure, say) runs
 * unbudgeted and answers alike. Synchronous: the budget is in force only during each call.
 *
 * @param predicate - a compiled predicate (`compile(condition)`): a record (any value) to a boolean
 * @param timer - the search's running budget (`startBudget({ maxTimeMS, clock })`; `maxTimeMS` in
 *   milliseconds, `clock` returning milliseconds from any fixed origin); an unbounded timer never throws
 * @returns a predicate answering exactly as `predicate` does for every record, while the deadline holds
 * @throws never itself; the returned predicate throws {@link SearchTimeoutError} when a walk's charge reads
 *   the clock past the deadline (the record is then neither a match nor a miss: end the search), and
 *   whatever `timer.tick` throws
 * @example
 * ```ts
 * import { budgetedPredicate, compile, parseSearchConditions, startBudget } from "incident-query";
 *
 * // A backend's first-match search over the candidates its database returned (records, in order).
 * function firstMatch(candidates: Iterable<unknown>, raw: unknown): unknown {
 *   const timer = startBudget({ maxTimeMS: 2000, clock: () => performance.now() });
 *   const matches = budgetedPredicate(compile(parseSearchConditions(raw)), timer);
 *   for (const record of candidates) {
 *     timer.tick(); // one record examined
 *     if (matches(record)) return record; // may throw SearchTimeoutError: the search failed
 *   }
 *   return undefined;
 * }
 * ```
 */
export function budgetedPredicate(
  predicate: (record: unknown) => boolean,
  timer: BudgetTimer,
): (record: unknown) => boolean {
  return (record) => underWalkBudget(timer, () => predicate(record));
}
