/**
 * Runs the timeline conformance table (docs/semantics.md 2) against every implementation: `queryTimeline`, a
 * `TimelineIndex` built over the entries, and `sortTimelineEntries(filterTimelineEntries(…))`. The raw Sort
 * Order goes through `parseSortOrder`, as the command layer does.
 */
import { describe, expect, it } from "vitest";
import { filterTimelineEntries } from "../../src/timeline/filter.js";
import { createTimelineIndex, queryTimeline } from "../../src/timeline/query.js";
import { parseSortOrder, type SortOrder, sortTimelineEntries } from "../../src/timeline/sort.js";
import { TIMELINE_CASES, type TimelineCase } from "./timeline-cases.js";

const IMPLEMENTATIONS: readonly {
  readonly name: string;
  readonly run: (entries: readonly unknown[], filter: string | undefined, order: SortOrder) => unknown[];
}[] = [
  {
    name: "queryTimeline",
    run: (entries, filter, sortOrder) => queryTimeline(entries, { filter, sortOrder }),
  },
  {
    name: "TimelineIndex",
    run: (entries, filter, sortOrder) => createTimelineIndex(entries).query({ filter, sortOrder }),
  },
  {
    name: "filter then sort",
    run: (entries, filter, sortOrder) =>
      sortTimelineEntries(filterTimelineEntries(entries, filter ?? ""), sortOrder),
  },
];

function ids(result: readonly unknown[]): unknown[] {
  return result.map((entry) => (entry as { TimelineID?: unknown }).TimelineID);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe("timeline conformance table", () => {
  it("has at least 60 cases with unique names, each tied to a rule of docs/semantics.md 2", () => {
    expect(TIMELINE_CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(TIMELINE_CASES.map((c) => c.name)).size).toBe(TIMELINE_CASES.length);
    for (const c of TIMELINE_CASES)
      expect(c.rule).toMatch(/^docs\/semantics\.md 2 (filter|sort order|sorting)$/);
  });

  describe.each(IMPLEMENTATIONS)("$name", ({ run }) => {
    it.each(TIMELINE_CASES.map((c) => [c.name, c] as const))("%s", (_name, c: TimelineCase) => {
      const entries = deepFreeze(structuredClone(c.entries));
      const snapshot = structuredClone(entries);
      const answer = (): unknown[] => run(entries, c.filter, parseSortOrder(c.sortOrder));
      if ("error" in c.expected) {
        expect(answer).toThrow(c.expected.error);
        return;
      }
      const result = answer();
      expect(ids(result)).toEqual(c.expected);
      // The answer holds the input's own objects, and the input is untouched (it is frozen, too).
      for (const item of result) expect(entries).toContain(item);
      expect(entries).toEqual(snapshot);
    });
  });
});
