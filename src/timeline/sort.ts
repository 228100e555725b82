/**
 * Sort Order and the sorting of timeline entries (DECISIONS.md 2): by `Time`, ties by `TimelineID`
 * (ascending under ASC, descending under DESC, so that DESC of entries with valid times is exactly the
 * reverse of ASC); entries whose `Time` is missing or invalid come last in both orders, by `TimelineID`
 * ascending.
 *
 * Each `Time` is read once, by a hand-written check that accepts exactly what `isValidTimelineTime`
 * (date-fns) accepts — a property test holds the two together — and turns it into the number
 * `yyyyMMddHHmmss`, which orders valid times chronologically (a fixed-width wall-clock time in one time
 * zone). Sorting then compares numbers, never parses dates.
 */

import { describeValue } from "../conditions/issues.js";

/** A parsed Sort Order. */
export type SortOrder = "asc" | "desc";

/** The tokens Sort Order accepts (DECISIONS.md 2), matched case-insensitively after trimming. */
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
 * Parses a Sort Order token (DECISIONS.md 2).
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
 * Reads a `Time` as the number `yyyyMMddHHmmss` (e.g. `20240229235959`), or `undefined` when it is not a
 * valid `yyyy-MM-dd HH:mm:ss` time: the same rule as `isValidTimelineTime` (years 0001–9999, real calendar
 * dates, hours 00–23, minutes and seconds 00–59), written by hand because it runs once per entry on every
 * sort. Numbers of valid times order exactly as the times do.
 * @param text - any value; never throws
 */
export function timelineTimeKey(text: unknown): number | undefined {
  if (typeof text !== "string" || text.length !== 19) return undefined;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  return ((((year * 100 + month) * 100 + day) * 100 + hour) * 100 + minute) * 100 + second;
}

/** The decimal value of `length` ASCII digits at `start`, or -1 when one of them is not a digit. */
function digits(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * The order of `entries` under a Sort Order, as indexes into `entries` (DECISIONS.md 2): valid times first,
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
 * Sorts timeline entries by `Time` under a Sort Order (DECISIONS.md 2; see `sortedTimelineOrder` for the
 * exact order). Never modifies `entries` or its elements.
 * @param entries - the entries; entries with a missing or invalid `Time` are accepted and come last
 * @param order - `"asc"` or `"desc"`
 * @returns a new array holding the same elements
 * @throws {TypeError} when `entries` is not an array or `order` is neither `"asc"` nor `"desc"`
 * @example sortTimelineEntries(entries, "desc").map((e) => e.TimelineID) //=> [7, 3, 5, 2]
 */
export function sortTimelineEntries<T>(entries: readonly T[], order: SortOrder): T[] {
  assertEntriesArray(entries);
  assertSortOrder(order);
  return sortedTimelineOrder(entries, order).map((i) => entries[i] as T);
}

/** @throws {TypeError} when `entries` is not an array */
export function assertEntriesArray(entries: unknown): asserts entries is readonly unknown[] {
  if (!Array.isArray(entries)) throw new TypeError("Expected an array of timeline entries.");
}

/** @throws {TypeError} when `order` is neither `"asc"` nor `"desc"` (use `parseSortOrder` for tokens) */
export function assertSortOrder(order: unknown): asserts order is SortOrder {
  if (order !== "asc" && order !== "desc") {
    throw new TypeError(
      `Expected the sort order "asc" or "desc" (see parseSortOrder), found ${describeValue(order)}.`,
    );
  }
}
