import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { emptyEntryText } from "../../test/support/timeline-entries.js";
import { TIMELINE_SEARCHED_FIELDS, type TimelineEntry } from "./entry.js";
import { createTimelineIndex, queryTimeline, TimelineIndex, type TimelineQuery } from "./query.js";
import { InvalidSortOrderError, type SortOrder, sortTimelineEntries } from "./sort.js";

function entry(TimelineID: number, Time: string, text: Partial<TimelineEntry> = {}): TimelineEntry {
  return { TimelineID, Time, ...emptyEntryText(), ...text };
}

const ENTRIES: readonly TimelineEntry[] = Object.freeze([
  Object.freeze(entry(3, "2024-01-03 00:00:00", { Summary: "Phishing mail" })),
  Object.freeze(entry(1, "2024-01-01 00:00:00", { Note: "a\u0000b" })),
  Object.freeze(entry(2, "bad", { Author: "\uD800 lone" })),
  Object.freeze(entry(4, "2024-01-02 00:00:00", { Tactic: Object.freeze(["Execution"]) })),
]);

describe("the specification's Sort Order tokens on every surface (docs/semantics.md 2)", () => {
  const ASC = [1, 4, 3, 2];
  const DESC = [3, 4, 1, 2];
  it.each([
    ["asc", ASC],
    ["ASC", ASC],
    ["ascending", ASC],
    [" Ascending\t", ASC],
    ["", ASC],
    ["desc", DESC],
    ["DESC", DESC],
    ["descending", DESC],
    ["  DeScEnDiNg ", DESC],
  ] as const)("%j", (token, ids) => {
    const index = createTimelineIndex(ENTRIES);
    expect(queryTimeline(ENTRIES, { sortOrder: token }).map((e) => e.TimelineID)).toEqual(ids);
    expect(index.query({ sortOrder: token }).map((e) => e.TimelineID)).toEqual(ids);
    expect(sortTimelineEntries(ENTRIES, token).map((e) => e.TimelineID)).toEqual(ids);
  });

  it.each(["up", "asc desc", "DES", "ＡＳＣ"])("refuses %j, naming the accepted tokens", (token) => {
    expect(() => queryTimeline(ENTRIES, { sortOrder: token })).toThrow(InvalidSortOrderError);
    expect(() => queryTimeline(ENTRIES, { sortOrder: token })).toThrow("ASC, ascending, DESC or descending");
    expect(() => sortTimelineEntries(ENTRIES, token)).toThrow(InvalidSortOrderError);
  });
});

describe("queryTimeline", () => {
  it("filters then sorts, ascending by default, returning the input's objects in a new array", () => {
    const result = queryTimeline(ENTRIES);
    expect(result.map((e) => e.TimelineID)).toEqual([1, 4, 3, 2]);
    expect(result[0]).toBe(ENTRIES[1]);
    expect(queryTimeline(ENTRIES, { filter: "PHISH", sortOrder: "desc" })).toEqual([ENTRIES[0]]);
    expect(queryTimeline(ENTRIES, { filter: undefined, sortOrder: undefined })).toEqual(result);
  });

  it("never modifies the input (frozen input works, and a copy is returned even when nothing changes)", () => {
    const sorted = [ENTRIES[1]!, ENTRIES[3]!];
    const result = queryTimeline(sorted);
    expect(result).toEqual(sorted);
    expect(result).not.toBe(sorted);
    expect(ENTRIES.map((e) => e.TimelineID)).toEqual([3, 1, 2, 4]);
  });

  it.each([
    ["entries not an array", () => queryTimeline({} as unknown as unknown[]), "Expected an array"],
    ["a non-string filter", () => queryTimeline(ENTRIES, { filter: 5 as unknown as string }), "Filter term"],
    ["a number as sortOrder", () => queryTimeline(ENTRIES, { sortOrder: 1 as unknown as SortOrder }), "ASC"],
  ])("throws a TypeError for %s", (_name, run, message) => {
    expect(run).toThrow(TypeError);
    expect(run).toThrow(message);
  });

  it("handles a large input without deep recursion or quadratic time", () => {
    const many = Array.from({ length: 50_000 }, (_, i) =>
      entry(i, i % 7 === 0 ? "bad" : "2024-01-01 00:00:00"),
    );
    const result = queryTimeline(many, { sortOrder: "desc" });
    expect(result).toHaveLength(50_000);
    expect(result[0]!.TimelineID).toBe(49_999);
    expect(result.at(-1)!.TimelineID).toBe(49_994);
  });
});

describe("TimelineIndex", () => {
  it("answers like queryTimeline, including terms that need the field-by-field path", () => {
    const index = createTimelineIndex(ENTRIES);
    expect(index).toBeInstanceOf(TimelineIndex);
    expect(index.size).toBe(4);
    const queries: TimelineQuery[] = [
      {},
      { sortOrder: "desc" },
      { filter: "mail" },
      { filter: "A\u0000B" },
      { filter: "\uD800" },
      { filter: "\uD800 LONE", sortOrder: "desc" },
      { filter: "b" },
      { filter: "2024-01-0", sortOrder: "desc" },
      { filter: "execution" },
    ];
    for (const query of queries) expect(index.query(query)).toEqual(queryTimeline(ENTRIES, query));
    expect(index.query({ filter: "A\u0000B" })).toEqual([ENTRIES[1]]);
    expect(index.query({ filter: "\uD800" })).toEqual([ENTRIES[2]]);
  });

  it("is a snapshot of the entries' text and of the array", () => {
    const entries = [entry(1, "2024-01-01 00:00:00", { Summary: "old" })];
    const index = createTimelineIndex(entries);
    entries.push(entry(2, "2024-01-01 00:00:00", { Summary: "old" }));
    (entries[0] as { Summary: string }).Summary = "new";
    expect(index.query({ filter: "old" })).toEqual([entries[0]]);
    expect(index.query({ filter: "new" })).toEqual([]);
  });

  it("throws like queryTimeline", () => {
    expect(() => createTimelineIndex("x" as unknown as unknown[])).toThrow(TypeError);
    const index = createTimelineIndex(ENTRIES);
    expect(() => index.query({ sortOrder: "up" })).toThrow(InvalidSortOrderError);
    expect(() => index.query({ sortOrder: 1 as unknown as SortOrder })).toThrow(TypeError);
    expect(() => index.query({ filter: 5 as unknown as string })).toThrow(TypeError);
    // null counts as absent, for the filter as for the sort order (parseSortOrder reads null as ascending).
    const lenient = { filter: null, sortOrder: null } as unknown as TimelineQuery;
    expect(index.query(lenient)).toEqual(queryTimeline(ENTRIES));
    expect(queryTimeline(ENTRIES, lenient)).toEqual(queryTimeline(ENTRIES));
  });

  it("gives exactly the answers of queryTimeline (property)", () => {
    const chars = [
      "a",
      "b",
      "A",
      "B",
      "é",
      "É",
      "\u0301",
      "σ",
      "ς",
      "Σ",
      "\u212A",
      "k",
      " ",
      ".",
      "*",
      "(",
      "\u0000",
    ];
    const text = fc.array(fc.constantFrom(...chars), { maxLength: 6 }).map((c) => c.join(""));
    const time = fc.constantFrom(
      "2024-01-01 00:00:00",
      "2024-01-01 00:00:01",
      "2023-12-31 23:59:59",
      "bad",
      "",
    );
    const anyEntry = fc.record({
      TimelineID: fc.integer({ min: 0, max: 20 }),
      Time: time,
      Summary: text,
      Note: text,
      Tactic: fc.array(text, { maxLength: 2 }),
      Author: fc.oneof(text, fc.constant(7)),
    });
    const query = fc.record({
      filter: fc.option(fc.oneof(text, fc.constantFrom("2024", "  ", "\uD800")), { nil: undefined }),
      sortOrder: fc.option(fc.constantFrom<SortOrder>("asc", "desc"), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(anyEntry, { maxLength: 12 }),
        fc.array(query, { minLength: 1, maxLength: 4 }),
        (es, qs) => {
          const index = createTimelineIndex(es);
          for (const q of qs) expect(index.query(q)).toEqual(queryTimeline(es, q));
        },
      ),
      fcOptions(500),
    );
  });
});

describe("the searched fields: one list (TIMELINE_SEARCHED_FIELDS) for queryTimeline and TimelineIndex", () => {
  // A term only one field holds: both surfaces keep the entry for every searched field, and drop its twin
  // without it. A field added to the list but not to a surface (or searched by one only) fails here.
  const term = "2031-07-09 08:07:06";
  it.each(TIMELINE_SEARCHED_FIELDS.map((field) => [field]))("%s", (field) => {
    const base: TimelineEntry = { TimelineID: 1, Time: "2024-01-01 00:00:00", ...emptyEntryText() };
    const value = field === "Tactic" || field === "Technique" ? ["x", term] : term;
    const holding = { ...base, TimelineID: 2, [field]: value } as TimelineEntry;
    const entries = [base, holding];
    expect(queryTimeline(entries, { filter: term })).toEqual([holding]);
    expect(createTimelineIndex(entries).query({ filter: term })).toEqual([holding]);
    // A shorter term (a prefix) finds the same entry.
    expect(createTimelineIndex(entries).query({ filter: term.slice(0, 4) })).toEqual([holding]);
  });
});
