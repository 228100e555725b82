/**
 * GetIncidentTimelineEntries' engine (docs/semantics.md 2): filter, then sort. `queryTimeline` answers one query
 * from scratch; `TimelineIndex` prepares a set of entries once (folded text, both sort orders) and then
 * answers each query with one `indexOf` per entry and no sorting — for callers that query the same entries
 * many times. Both give exactly the same answers (a property test holds them together).
 */

import { TIMELINE_SEARCHED_FIELDS } from "./entry.js";
import { containsFolded, createTimelineFilter, foldTimelineText } from "./filter.js";
import { assertEntriesArray, readSortOrder, type SortOrderInput, sortedTimelineOrder } from "./sort.js";

/** A timeline query: the Filter term and the parsed Sort Order (both optional). */
export interface TimelineQuery {
  /** Raw Filter term: trimmed; empty, white space only or absent (`undefined` or `null`) keeps every entry. */
  readonly filter?: string | undefined;
  /**
   * Sort Order: `"asc"`, `"desc"`, or a token as the specification writes it (`ASC`, `ascending`, `DESC`,
   * `descending`, any case, surrounding white space ignored; docs/semantics.md 2). Absent (`undefined` or
   * `null`) or `""` means ascending.
   */
  readonly sortOrder?: SortOrderInput | undefined;
}

/**
 * Filters and sorts timeline entries (docs/semantics.md 2): keeps the entries where the term occurs, ignoring
 * case, as a literal substring of a searched field (`createTimelineFilter` gives the exact rule), then
 * sorts them by `Time`, ties by `TimelineID` (see `sortedTimelineOrder`); entries whose `Time` is missing
 * or invalid come last. The input array and its entries are never modified.
 * @param entries - the entries, validated or not (entries with missing or ill-typed fields are accepted)
 * @param query - `{ filter?, sortOrder? }`
 * @returns a new array of the kept entries (the same objects, not copies) in sort order
 * @throws {TypeError} when `entries` is not an array, `filter` is not a string, or `sortOrder` is not a
 *   string
 * @throws {InvalidSortOrderError} when `sortOrder` is a string outside the Sort Order tokens
 * @example queryTimeline(entries, { filter: "phish", sortOrder: "DESC" }).map((e) => e.TimelineID)
 *   //=> [12, 9, 3]
 */
export function queryTimeline<T>(entries: readonly T[], query: TimelineQuery = {}): T[] {
  assertEntriesArray(entries);
  const order = readSortOrder(query.sortOrder);
  const filter = createTimelineFilter(query.filter ?? "");
  let kept: readonly T[] = entries;
  if (!filter.keepsAll) {
    const out: T[] = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as T;
      if (filter.matches(entry)) out.push(entry);
    }
    kept = out;
  }
  const positions = sortedTimelineOrder(kept, order);
  const result = new Array<T>(positions.length);
  for (let i = 0; i < positions.length; i++) result[i] = kept[positions[i]!] as T;
  return result;
}

/** Separates the folded fields of one entry: a term holding it is matched field by field instead. */
const SEPARATOR = "\u0000";

/**
 * Timeline entries prepared for many queries: the searched fields of each entry folded once
 * (`foldTimelineText`) into one text, and both sort orders computed once. A query then costs one
 * `indexOf` per entry and no sorting. The index is a snapshot: it holds the entries' text as it was when
 * the index was built (build a new index after changing entries), and returns the entry objects themselves.
 * Answers are exactly those of `queryTimeline` on the same entries.
 *
 * Building costs more than one `queryTimeline` call (see bench/timeline.ts); it pays off from the second
 * query on the same entries.
 */
export class TimelineIndex<T> {
  readonly #entries: readonly T[];
  readonly #texts: readonly string[];
  readonly #asc: readonly number[];
  readonly #desc: readonly number[];

  /**
   * Builds the index.
   * @param entries - the entries, validated or not (as for `queryTimeline`); the array is copied
   * @throws {TypeError} when `entries` is not an array
   */
  constructor(entries: readonly T[]) {
    assertEntriesArray(entries);
    this.#entries = entries.slice();
    this.#texts = this.#entries.map(searchText);
    this.#asc = sortedTimelineOrder(this.#entries, "asc");
    this.#desc = sortedTimelineOrder(this.#entries, "desc");
  }

  /** The number of entries. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Answers a query, exactly as `queryTimeline(entries, query)` would on the entries the index was built
   * from.
   * @returns a new array of the kept entries in sort order
   * @throws {TypeError} when `filter` is not a string or `sortOrder` is not a string
   * @throws {InvalidSortOrderError} when `sortOrder` is a string outside the Sort Order tokens
   */
  query(query: TimelineQuery = {}): T[] {
    const order = readSortOrder(query.sortOrder);
    const filter = createTimelineFilter(query.filter ?? "");
    const positions = order === "asc" ? this.#asc : this.#desc;
    const entries = this.#entries;
    const out: T[] = [];
    if (filter.keepsAll) {
      for (const i of positions) out.push(entries[i] as T);
      return out;
    }
    const folded = foldTimelineText(filter.term);
    if (folded.includes(SEPARATOR)) {
      // A term holding the separator could straddle two fields: match field by field.
      for (const i of positions) if (filter.matches(entries[i])) out.push(entries[i] as T);
      return out;
    }
    // Scan the texts in memory order (much faster than in sort order), then walk the sort order.
    const texts = this.#texts;
    const hits = new Uint8Array(texts.length);
    let count = 0;
    for (let i = 0; i < texts.length; i++) {
      if (containsFolded(texts[i]!, folded)) {
        hits[i] = 1;
        count++;
      }
    }
    for (let k = 0; k < positions.length && out.length < count; k++) {
      const i = positions[k]!;
      if (hits[i] === 1) out.push(entries[i] as T);
    }
    return out;
  }
}

/**
 * Builds a `TimelineIndex` over `entries` (see there).
 * @throws {TypeError} when `entries` is not an array
 */
export function createTimelineIndex<T>(entries: readonly T[]): TimelineIndex<T> {
  return new TimelineIndex(entries);
}

/** The searched fields that hold a list of strings, each element searched (the others hold one string). */
const LIST_FIELDS: ReadonlySet<string> = new Set([
  "Tactic",
  "Technique",
] satisfies (typeof TIMELINE_SEARCHED_FIELDS)[number][]);

/**
 * The folded searched fields of one entry, joined by SEPARATOR (own properties, string values only). The
 * fields are joined first and folded once: NUL never composes under NFC, so folding the joined text equals
 * joining the folded fields.
 */
function searchText(entry: unknown): string {
  if (typeof entry !== "object" || entry === null) return "";
  const record = entry as Record<string, unknown>;
  const parts: string[] = [];
  const text = (value: unknown): void => {
    if (typeof value === "string") parts.push(value);
  };
  // The fields of docs/semantics.md 2, in their order (`TIMELINE_SEARCHED_FIELDS`, the one list).
  for (const name of TIMELINE_SEARCHED_FIELDS) {
    if (!Object.hasOwn(record, name)) continue;
    const value = record[name];
    if (!LIST_FIELDS.has(name)) text(value);
    else if (Array.isArray(value)) {
      const array: readonly unknown[] = value;
      for (let i = 0; i < array.length; i++) if (Object.hasOwn(array, i)) text(array[i]);
    }
  }
  return foldTimelineText(parts.join(SEPARATOR));
}
