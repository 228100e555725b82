import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nearDateTimePartsArb, pad } from "../../test/arbitraries/dates.js";
import { fcOptions } from "../../test/support/fc.js";
import { referenceIsValidTimelineTime } from "../../test/support/timeline-time-reference.js";
import {
  InvalidSortOrderError,
  parseSortOrder,
  SORT_ORDER_TOKENS,
  type SortOrder,
  sortTimelineEntries,
  timelineTimeKey,
} from "./sort.js";

describe("parseSortOrder (docs/semantics.md 2)", () => {
  it.each([
    ["ASC", "asc"],
    ["asc", "asc"],
    ["aScEnDiNg", "asc"],
    [" ascending\t", "asc"],
    ["DESC", "desc"],
    ["Desc", "desc"],
    ["DESCENDING", "desc"],
    ["\n descending ", "desc"],
    ["", "asc"],
    ["  ", "asc"],
    [undefined, "asc"],
    [null, "asc"],
  ] as const)("%j → %s", (token, order) => {
    expect(parseSortOrder(token)).toBe(order);
  });

  it.each([["up"], ["asc desc"], ["ASCE"], ["des"], ["a"], ["0"], ["ＡＳＣ"], [1], [true], [{}], [["ASC"]]])(
    "refuses %j with an error naming the accepted tokens",
    (token) => {
      let caught: unknown;
      try {
        parseSortOrder(token);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidSortOrderError);
      const error = caught as InvalidSortOrderError;
      expect(error.token).toBe(token);
      expect(error.message).toMatch(
        /^Invalid Sort Order .+: expected ASC, ascending, DESC or descending \(any case\)\.$/,
      );
      for (const accepted of SORT_ORDER_TOKENS) expect(error.message).toContain(accepted);
    },
  );

  it("quotes the refused token, shortened when long", () => {
    expect(() => parseSortOrder("up")).toThrow('Invalid Sort Order "up":');
    expect(() => parseSortOrder("x".repeat(500))).toThrow(`"${"x".repeat(60)}…"`);
    expect(() => parseSortOrder(3)).toThrow("Invalid Sort Order (number):");
  });

  it("accepts exactly the four tokens in any case, with surrounding white space (property)", () => {
    const caseVariant = fc
      .tuple(fc.constantFrom(...SORT_ORDER_TOKENS), fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }))
      .map(([token, flips]) =>
        [...token].map((c, i) => (flips[i] ? c.toUpperCase() : c.toLowerCase())).join(""),
      );
    const space = fc.stringMatching(/^[ \t\n]{0,3}$/);
    fc.assert(
      fc.property(space, caseVariant, space, (before, token, after) => {
        const order = parseSortOrder(`${before}${token}${after}`);
        expect(order).toBe(token.toLowerCase().startsWith("asc") ? "asc" : "desc");
      }),
      fcOptions(300),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (token) => {
        const known = ["asc", "ascending", "desc", "descending", ""].includes(token.trim().toLowerCase());
        if (known) expect(() => parseSortOrder(token)).not.toThrow();
        else expect(() => parseSortOrder(token)).toThrow(InvalidSortOrderError);
      }),
      fcOptions(500),
    );
  });
});

/** Near-valid times: a valid layout with each part drawn from a range that straddles its limits. */
const nearTime = nearDateTimePartsArb(10_000).map(
  ([y, mo, d, h, mi, s]) => `${pad(y, 4)}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}`,
);

/** Mutations of a valid time: one character replaced, inserted or removed. */
const mutatedTime = fc
  .tuple(
    nearTime,
    fc.nat(20),
    fc.constantFrom("", "0", "9", " ", "-", ":", "T", "Z", "٣", "０", "\u0000"),
    fc.nat(2),
  )
  .map(([time, at, c, how]) =>
    how === 0
      ? time.slice(0, at) + c + time.slice(at + 1)
      : how === 1
        ? time.slice(0, at) + c + time.slice(at)
        : time.slice(0, at) + time.slice(at + 1),
  );

describe("timelineTimeKey", () => {
  it("accepts exactly what the independent date-fns reference accepts (property)", () => {
    fc.assert(
      fc.property(fc.oneof(nearTime, mutatedTime, fc.string({ maxLength: 22 })), (text) => {
        expect(timelineTimeKey(text) !== undefined).toBe(referenceIsValidTimelineTime(text));
      }),
      fcOptions(3000),
    );
  });

  it("orders valid times chronologically (property)", () => {
    const valid = fc
      .date({
        min: new Date("0001-01-01T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59Z"),
        noInvalidDate: true,
      })
      .map(
        (d) =>
          `${String(d.getUTCFullYear()).padStart(4, "0")}-${d.toISOString().slice(5, 10)} ${d.toISOString().slice(11, 19)}`,
      );
    const instant = (t: string): number => {
      const date = new Date(0);
      date.setUTCFullYear(Number(t.slice(0, 4)), Number(t.slice(5, 7)) - 1, Number(t.slice(8, 10)));
      date.setUTCHours(Number(t.slice(11, 13)), Number(t.slice(14, 16)), Number(t.slice(17, 19)));
      return date.getTime();
    };
    fc.assert(
      fc.property(valid, valid, (a, b) => {
        expect(Math.sign(timelineTimeKey(a)! - timelineTimeKey(b)!)).toBe(Math.sign(instant(a) - instant(b)));
      }),
      fcOptions(1000),
    );
  });

  it.each([
    ["2024-02-29 23:59:59", 20240229235959],
    ["0001-01-01 00:00:00", 10101000000],
    ["9999-12-31 23:59:59", 99991231235959],
    ["2024-02-30 00:00:00", undefined],
    ["2024-02-29T23:59:59", undefined],
    [undefined, undefined],
    ["2024-01-01 Z0:00:00", undefined],
    ["2024-01-01 00:/0:00", undefined],
    [{ toString: (): string => "2024-02-29 23:59:59" }, undefined],
  ])("%j → %s", (text, key) => {
    expect(timelineTimeKey(text)).toBe(key);
  });
});

describe("sortTimelineEntries", () => {
  const at = (TimelineID: unknown, Time: unknown) => ({ TimelineID, Time });

  it("accepts entries without fields, non-objects and odd ids, deterministically", () => {
    const entries = [
      at(2, "2024-01-01 00:00:00"),
      null,
      at(undefined, "2024-01-01 00:00:00"),
      at(Number.NEGATIVE_INFINITY, "2024-01-01 00:00:00"),
      "text",
      at(Number.NaN, "bad"),
      at(-5, "bad"),
    ];
    const asc = sortTimelineEntries(entries, "asc");
    // Valid times first (missing and NaN ids count as +Infinity), then invalid times by id ascending, the
    // entries without an id keeping their input order.
    expect(asc).toEqual([entries[3], entries[0], entries[2], entries[6], entries[1], entries[4], entries[5]]);
    const desc = sortTimelineEntries(entries, "desc");
    expect(desc).toEqual([
      entries[2],
      entries[0],
      entries[3],
      entries[6],
      entries[1],
      entries[4],
      entries[5],
    ]);
  });

  it("reads Time and TimelineID as own properties only", () => {
    const inherited = Object.create({ Time: "2000-01-01 00:00:00", TimelineID: 0 });
    const plain = at(1, "2024-01-01 00:00:00");
    expect(sortTimelineEntries([inherited, plain], "asc")).toEqual([plain, inherited]);
  });

  it("keeps the input order of entries equal on time and id, in both orders", () => {
    const a = at(1, "2024-01-01 00:00:00");
    const b = at(1, "2024-01-01 00:00:00");
    const c = at(1, "bad");
    const d = at(1, "bad");
    for (const order of ["asc", "desc"] as const) {
      const result = sortTimelineEntries([a, c, b, d], order);
      expect(result[0]).toBe(a);
      expect(result[1]).toBe(b);
      expect(result[2]).toBe(c);
      expect(result[3]).toBe(d);
    }
  });

  it.each([
    ["not an array", () => sortTimelineEntries("x" as unknown as unknown[], "asc"), "Expected an array"],
    [
      "a number instead of an order",
      () => sortTimelineEntries([], 1 as unknown as SortOrder),
      "found the number 1",
    ],
  ])("throws a TypeError for %s", (_name, run, message) => {
    expect(run).toThrow(TypeError);
    expect(run).toThrow(message);
  });
});
