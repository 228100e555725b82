/**
 * Properties of the timeline engine (docs/semantics.md 2), over generated entries with unique `TimelineID`s,
 * many tied times, invalid and missing times, and text in several scripts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isValidTimelineTime,
  TIMELINE_SEARCHED_FIELDS,
  type TimelineEntry,
} from "../../src/timeline/entry.js";
import { filterTimelineEntries } from "../../src/timeline/filter.js";
import { createTimelineIndex, queryTimeline } from "../../src/timeline/query.js";
import { type SortOrder, sortTimelineEntries } from "../../src/timeline/sort.js";
import { fcOptions } from "../support/fc.js";

type LooseEntry = Omit<TimelineEntry, "Time"> & { readonly Time?: string };

const WORDS = [
  "Phishing",
  "mail",
  "PowerShell",
  "Événement",
  "straße",
  "ΟΔΟΣ",
  "привет",
  "李雷",
  "🔥",
  "(admin",
  "a.b*",
];
const word = fc.oneof(fc.constantFrom(...WORDS), fc.string({ unit: "grapheme-ascii", maxLength: 6 }));
const text = fc.array(word, { maxLength: 4 }).map((words) => words.join(" "));

/** A few shared times (ties), arbitrary valid times, and invalid or missing ones. */
const time = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom("2024-01-01 10:00:00", "2024-01-01 10:00:01", "2023-12-31 23:59:59"),
  },
  {
    weight: 3,
    arbitrary: fc
      .date({
        min: new Date("2000-01-01T00:00:00Z"),
        max: new Date("2030-12-31T23:59:59Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 19).replace("T", " ")),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "bad", "2024-02-30 10:00:00", "2024-01-01T10:00:00Z", undefined),
  },
);

const entries: fc.Arbitrary<LooseEntry[]> = fc
  .uniqueArray(fc.integer({ min: -1000, max: 1000 }), { maxLength: 25 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((TimelineID) =>
        fc
          .record({
            Time: time,
            Summary: text,
            Note: text,
            EventType: text,
            Tactic: fc.array(text, { maxLength: 2 }),
            Technique: fc.array(text, { maxLength: 2 }),
            RiskLevel: text,
            Description: text,
            Author: text,
          })
          .map(
            ({ Time, ...rest }): LooseEntry => ({
              TimelineID,
              ...rest,
              ...(Time === undefined ? {} : { Time }),
            }),
          ),
      ),
    ),
  );

const order = fc.constantFrom<SortOrder>("asc", "desc");
const term = fc.oneof(word, fc.constantFrom("", "  ", "2024-01-01", "MAIL", "événement"));

/** The order of docs/semantics.md 2, written independently: valid times compare as fixed-width strings. */
function inOrder(a: LooseEntry, b: LooseEntry, sortOrder: SortOrder): boolean {
  const va = isValidTimelineTime(a.Time);
  const vb = isValidTimelineTime(b.Time);
  if (va !== vb) return va;
  if (!va) return a.TimelineID < b.TimelineID;
  const ta = a.Time as string;
  const tb = b.Time as string;
  if (ta !== tb) return sortOrder === "asc" ? ta < tb : ta > tb;
  return sortOrder === "asc" ? a.TimelineID < b.TimelineID : a.TimelineID > b.TimelineID;
}

describe("timeline properties (docs/semantics.md 2)", () => {
  it("the result is a subset of the input, in sort order", () => {
    fc.assert(
      fc.property(entries, term, order, (es, filter, sortOrder) => {
        const result = queryTimeline(es, { filter, sortOrder });
        expect(new Set(result).size).toBe(result.length);
        for (const e of result) expect(es).toContain(e);
        for (let i = 1; i < result.length; i++)
          expect(inOrder(result[i - 1]!, result[i]!, sortOrder)).toBe(true);
      }),
      fcOptions(400),
    );
  });

  it("ASC and DESC of entries with valid times are exact reverses", () => {
    fc.assert(
      fc.property(entries, (es) => {
        const valid = es.filter((e) => isValidTimelineTime(e.Time));
        const asc = queryTimeline(valid, { sortOrder: "asc" });
        expect(queryTimeline(valid, { sortOrder: "desc" })).toEqual(asc.reverse());
      }),
      fcOptions(400),
    );
  });

  it("entries with invalid or missing times come last, by TimelineID ascending, in both orders", () => {
    fc.assert(
      fc.property(entries, order, (es, sortOrder) => {
        const result = queryTimeline(es, { sortOrder });
        const firstInvalid = result.findIndex((e) => !isValidTimelineTime(e.Time));
        if (firstInvalid === -1) return;
        const tail = result.slice(firstInvalid);
        expect(tail.every((e) => !isValidTimelineTime(e.Time))).toBe(true);
        expect(tail.map((e) => e.TimelineID)).toEqual(tail.map((e) => e.TimelineID).sort((a, b) => a - b));
      }),
      fcOptions(300),
    );
  });

  it("sorting is idempotent and does not depend on the input order", () => {
    fc.assert(
      fc.property(entries, order, fc.integer(), (es, sortOrder, seed) => {
        const sorted = sortTimelineEntries(es, sortOrder);
        expect(sortTimelineEntries(sorted, sortOrder)).toEqual(sorted);
        const shuffled = fc.sample(fc.shuffledSubarray(es, { minLength: es.length, maxLength: es.length }), {
          seed,
          numRuns: 1,
        })[0]!;
        expect(sortTimelineEntries(shuffled, sortOrder)).toEqual(sorted);
      }),
      fcOptions(300),
    );
  });

  it("filtering with the empty (or blank) term is the identity", () => {
    fc.assert(
      fc.property(entries, fc.constantFrom("", " ", "\t\n ", "\u00a0"), (es, blank) => {
        const result = filterTimelineEntries(es, blank);
        expect(result).toEqual(es);
        expect(result).not.toBe(es);
      }),
      fcOptions(200),
    );
  });

  it("filtering commutes with sorting", () => {
    fc.assert(
      fc.property(entries, term, order, (es, filter, sortOrder) => {
        expect(filterTimelineEntries(sortTimelineEntries(es, sortOrder), filter)).toEqual(
          sortTimelineEntries(filterTimelineEntries(es, filter), sortOrder),
        );
      }),
      fcOptions(300),
    );
  });

  it("a term taken from any searched field of an entry, in any case, keeps that entry", () => {
    const sameClass = (a: string, b: string): boolean =>
      new RegExp(`^${a.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")}$`, "iu").test(b);
    const recase = (chars: readonly string[], flips: readonly number[]): string =>
      chars
        .map((c, i) => {
          const variant = [c, c.toUpperCase(), c.toLowerCase()][(flips[i] ?? 0) % 3]!;
          return [...variant].length === 1 && sameClass(variant, c) ? variant : c;
        })
        .join("");
    const pick = entries
      .filter((es) => es.length > 0)
      .chain((es) =>
        fc.tuple(
          fc.constant(es),
          fc.nat(es.length - 1),
          fc.constantFrom(...TIMELINE_SEARCHED_FIELDS),
          fc.nat(),
          fc.nat(),
          fc.nat(),
          fc.array(fc.nat(), { maxLength: 40 }),
          order,
        ),
      );
    fc.assert(
      fc.property(pick, ([es, at, field, element, from, length, flips, sortOrder]) => {
        const target = es[at]!;
        const value = target[field];
        const source = Array.isArray(value) ? value[element % Math.max(1, value.length)] : value;
        fc.pre(typeof source === "string" && source.length > 0);
        const chars = [...(source as string)];
        const start = from % chars.length;
        const filter = recase(chars.slice(start, start + 1 + (length % (chars.length - start))), flips);
        expect(queryTimeline(es, { filter, sortOrder })).toContain(target);
        expect(createTimelineIndex(es).query({ filter, sortOrder })).toContain(target);
      }),
      fcOptions(500),
    );
  });
});
