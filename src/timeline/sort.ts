/**
 * Sort Order and the sorting of timeline entries (docs/semantics.md 2): by `Time`, ties by `TimelineID`
 * (ascending under ASC, descending under DESC, so that DESC of entries with valid times is exactly the
 * reverse of ASC); entries whose `Time` is missing or invalid come last in both orders, by `TimelineID`
 * ascending.
 *
 * Each `Time` is read once, by `timelineTimeKey` (the one reader of the `Time` rule, in time.ts), into the
 * number `yyyyMMddHHmmss`, which orders valid times chronologically (a fixed-width wall-clock time in one
 * time zone). Sorting then compares numbers, never parses dates.
 */

import { describeValue } from "../conditions/issues.js";
import { timelineTimeKey } from "./time.js";

export { timelineTimeKey } from "./time.js";

/** A parsed Sort Order. */
export type SortOrder = "asc" | "desc";

/**
 * A sort order as the timeline functions take it: a parsed `SortOrder` or a Sort Order token (`ASC`,
 * `ascending`, `DESC`, `descending`, any case, surrounding white space ignored; docs/semantics.md 2).
 */
export type SortOrderInput = SortOrder | (typeof SORT_ORDER_TOKENS)[number] | (string & Record<never, never>);

/** The tokens Sort Order accepts (docs/semantics.md 2), matched case-insensitively after trimming. */
export const SORT_ORDER_TOKENS = ["ASC", "ascending", "DESC", "descending"] as const;

const TOKENS: ReadonlyMap<string, SortOrder> = new Map([
  ["asc", "asc"],
  ["ascending", "asc"],
  ["desc", "desc"],
  ["descending", "desc"],
]);

/**
 * Thrown by `parseSortOrder` for a token outside `SORT_ORDER_TOKENS`. The message names the accepted
 * tokens: `Invalid Sort Order "up": expected ASC, ascending, DESC or descending (any case).`
 */
export class InvalidSortOrderError extends Error {
  override readonly name = "InvalidSortOrderError";
  /** The refused token, as given. */
  readonly token: unknown;

  constructor(token: unknown) {
    super(
      `Invalid Sort Order ${typeof token === "string" ? JSON.stringify(token.length > 60 ? `${token.slice(0, 60)}…` : token) : `(${token === null ? "null" : typeof token})`}: expected ASC, ascending, DESC or descending (any case).`,
    );
    this.token = token;
  }
}

/**
 * Parses a Sort Order token (docs/semantics.md 2).
 * @param token - `ASC`, `ascending`, `DESC` or `descending` in any case, surrounding white space ignored;
 *   `undefined`, `null`, `""` or white space only mean ascending (the vendor's default)
 * @returns `"asc"` or `"desc"`
 * @throws {InvalidSortOrderError} for any other string or a non-string token; the message names the
 *   accepted tokens
 * @example parseSortOrder(" Descending ") //=> "desc"
 */
export function parseSortOrder(token: unknown): SortOrder {
  if (token === undefined || token === null) return "asc";
  if (typeof token !== "string") throw new InvalidSortOrderError(token);
  const trimmed = token.trim();
  if (trimmed === "") return "asc";
  const order = TOKENS.get(trimmed.toLowerCase());
  if (order === undefined) throw new InvalidSortOrderError(token);
  return order;
}

/**
 * The order of `entries` under a Sort Order, as indexes into `entries` (docs/semantics.md 2): valid times first,
 * by time then `TimelineID` (both ascending under `"asc"`, both descending under `"desc"`), then the entries
 * whose `Time` is missing or invalid, by `TimelineID` ascending. Entries equal on both keys keep their
 * input order (in both orders). `Time` and `TimelineID` are read as own properties; an entry whose
 * `TimelineID` is not a number (or is NaN) counts as having the id +Infinity, after every numeric id.
 * O(n log n); reads each entry's keys once.
 * @param entries - any values (non-objects count as entries without fields)
 * @param order - `"asc"` or `"desc"`
 */
export function sortedTimelineOrder(entries: readonly unknown[], order: SortOrder): number[] {
  const n = entries.length;
  const times = new Float64Array(n);
  const ids = new Float64Array(n);
  const valid: number[] = [];
  const invalid: number[] = [];
  for (let i = 0; i < n; i++) {
    const entry = entries[i];
    let time: number | undefined;
    let id: unknown;
    if (typeof entry === "object" && entry !== null) {
      const record = entry as { readonly Time?: unknown; readonly TimelineID?: unknown };
      time = timelineTimeKey(record.Time);
      if (time !== undefined && !Object.hasOwn(record, "Time")) time = undefined;
      id = record.TimelineID;
      if (id !== undefined && !Object.hasOwn(record, "TimelineID")) id = undefined;
    }
    ids[i] = typeof id === "number" && !Number.isNaN(id) ? id : Number.POSITIVE_INFINITY;
    if (time === undefined) {
      times[i] = Number.NaN;
      invalid.push(i);
    } else {
      times[i] = time;
      valid.push(i);
    }
  }
  const byIdAsc = (a: number, b: number): number => compareNumbers(ids[a]!, ids[b]!) || a - b;
  if (order === "asc") {
    valid.sort((a, b) => times[a]! - times[b]! || compareNumbers(ids[a]!, ids[b]!) || a - b);
  } else {
    valid.sort((a, b) => times[b]! - times[a]! || compareNumbers(ids[b]!, ids[a]!) || a - b);
  }
  invalid.sort(byIdAsc);
  for (const i of invalid) valid.push(i);
  return valid;
}

/** Compares two numbers that are never NaN (ids may be ±Infinity, where subtraction would give NaN). */
function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sorts timeline entries by `Time` under a Sort Order (docs/semantics.md 2; see `sortedTimelineOrder` for the
 * exact order). Never modifies `entries` or its elements.
 * @param entries - the entries; entries with a missing or invalid `Time` are accepted and come last
 * @param order - `"asc"`, `"desc"` or a Sort Order token (`"DESC"`, `" ascending "`; see `readSortOrder`)
 * @returns a new array holding the same elements
 * @throws {TypeError} when `entries` is not an array or `order` is not a string
 * @throws {InvalidSortOrderError} when `order` is a string outside the Sort Order tokens
 * @example sortTimelineEntries(entries, "desc").map((e) => e.TimelineID) //=> [7, 3, 5, 2]
 */
export function sortTimelineEntries<T>(entries: readonly T[], order: SortOrderInput): T[] {
  assertEntriesArray(entries);
  const parsed = readSortOrder(order);
  return sortedTimelineOrder(entries, parsed).map((i) => entries[i] as T);
}

/** @throws {TypeError} when `entries` is not an array */
export function assertEntriesArray(entries: unknown): asserts entries is readonly unknown[] {
  if (!Array.isArray(entries)) throw new TypeError("Expected an array of timeline entries.");
}

/**
 * Reads the `order` argument of the timeline functions (`queryTimeline`, `TimelineIndex.query`,
 * `sortTimelineEntries`): `"asc"`, `"desc"`, or any Sort Order token that `parseSortOrder` accepts
 * (`ASC`, `ascending`, `DESC`, `descending`, any case, surrounding white space ignored; `""` means
 * ascending), so that every surface reads the specification's tokens (docs/semantics.md 2).
 * @param order - the argument; `undefined` and `null` mean ascending
 * @returns `"asc"` or `"desc"`
 * @throws {InvalidSortOrderError} for a string outside the tokens (the message names them)
 * @throws {TypeError} for a value that is not a string
 */
export function readSortOrder(order: unknown): SortOrder {
  if (order === "asc" || order === "desc") return order;
  if (order === undefined || order === null) return "asc";
  if (typeof order !== "string") {
    throw new TypeError(
      `Expected the sort order "asc", "desc" or a Sort Order token (ASC, ascending, DESC, descending), found ${describeValue(order)}.`,
    );
  }
  return parseSortOrder(order);
}
