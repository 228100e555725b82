import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { SPEC_TIMELINE_ENTRY_ORDER } from "../../test/support/spec-order.js";
import { referenceIsValidTimelineTime } from "../../test/support/timeline-time-reference.js";
import {
  formatTimelineProblems,
  isValidTimelineTime,
  type TimelineEntry,
  type TimelineProblemCode,
  validateTimelineEntries,
} from "./entry.js";

const VALID: TimelineEntry = {
  TimelineID: 7,
  Time: "2024-02-29 23:59:59",
  Summary: "Phishing mail reported",
  Note: "",
  EventType: "Alert",
  Tactic: ["Initial Access"],
  Technique: ["T1566.001", "T1204"],
  RiskLevel: "High",
  Description: "Un événement",
  Author: "José",
};

function without(field: keyof TimelineEntry): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...VALID };
  delete copy[field];
  return copy;
}

describe("isValidTimelineTime (docs/semantics.md 2; held to the date-fns reference)", () => {
  it.each([
    ["2024-02-29 23:59:59", true],
    ["2024-01-01 00:00:00", true],
    ["0001-01-01 00:00:00", true],
    ["9999-12-31 23:59:59", true],
    ["2024-02-30 10:00:00", false],
    ["2023-02-29 10:00:00", false],
    ["1900-02-29 10:00:00", false],
    ["2024-06-31 10:00:00", false],
    ["2024-01-01 24:00:00", false],
    ["2024-01-01 00:60:00", false],
    ["2024-01-01 00:00:60", false],
    ["2024-1-01 10:00:00", false],
    ["2024-01-01 1:00:00", false],
    ["2024-01-01 10:00:00 ", false],
    ["2024-01-01T10:00:00", false],
    ["2024-01-01T10:00:00Z", false],
    ["0000-01-01 00:00:00", false],
    ["+02024-01-01 10:00:00", false],
    ["", false],
    [20240101, false],
    [null, false],
  ])("%j → %s", (text, valid) => {
    expect(isValidTimelineTime(text)).toBe(valid);
    expect(referenceIsValidTimelineTime(text)).toBe(valid);
  });

  it("does not depend on the machine's time zone (a daylight-saving gap elsewhere is a valid wall time)", () => {
    // 02:30 does not exist on 2024-03-10 in New York nor on 2024-03-31 in Paris; in an incident's own zone
    // it may, and the format carries no zone, so it is valid.
    expect(isValidTimelineTime("2024-03-10 02:30:00")).toBe(true);
    expect(isValidTimelineTime("2024-03-31 02:30:00")).toBe(true);
  });
});

describe("validateTimelineEntries (specification 2.2)", () => {
  it("accepts valid entries and returns fresh entries holding exactly the ten fields in order", () => {
    const input = [{ ...VALID, Host: "extra", Tactic: [...VALID.Tactic] }];
    const result = validateTimelineEntries(input);
    expect(result).toEqual({ ok: true, entries: [VALID] });
    if (!result.ok) return;
    const [entry] = result.entries;
    expect(Object.keys(entry!)).toEqual([...SPEC_TIMELINE_ENTRY_ORDER]);
    expect(entry).not.toBe(input[0]);
    expect(entry!.Tactic).not.toBe(input[0]!.Tactic);
    expect(input[0]).toHaveProperty("Host", "extra");
  });

  it("accepts an empty array and empty strings and arrays", () => {
    expect(validateTimelineEntries([])).toEqual({ ok: true, entries: [] });
    const empty = { ...VALID, Summary: "", Tactic: [], Technique: [] };
    expect(validateTimelineEntries([empty])).toEqual({ ok: true, entries: [empty] });
  });

  const cases: readonly [string, unknown, TimelineProblemCode, string, string][] = [
    [
      "TimelineID missing",
      without("TimelineID"),
      "missing_field",
      "TimelineID",
      "Expected the field TimelineID",
    ],
    ["TimelineID a string", { ...VALID, TimelineID: "7" }, "invalid_type", "TimelineID", 'the string "7"'],
    ["TimelineID a fraction", { ...VALID, TimelineID: 1.5 }, "invalid_type", "TimelineID", "the number 1.5"],
    [
      "TimelineID unsafe",
      { ...VALID, TimelineID: 2 ** 53 },
      "invalid_type",
      "TimelineID",
      "Expected an integer",
    ],
    ["Time missing", without("Time"), "missing_field", "Time", "Expected the field Time"],
    ["Time a number", { ...VALID, Time: 1 }, "invalid_type", "Time", "yyyy-MM-dd HH:mm:ss"],
    [
      "Time rolled over",
      { ...VALID, Time: "2024-02-30 10:00:00" },
      "invalid_time",
      "Time",
      "2024-02-30 10:00:00",
    ],
    ["Time ISO", { ...VALID, Time: "2024-01-01T10:00:00Z" }, "invalid_time", "Time", "yyyy-MM-dd HH:mm:ss"],
    ["Summary null", { ...VALID, Summary: null }, "invalid_type", "Summary", "Expected a string, found null"],
    ["Note missing", without("Note"), "missing_field", "Note", "Note"],
    ["EventType a number", { ...VALID, EventType: 3 }, "invalid_type", "EventType", "the number 3"],
    ["RiskLevel an object", { ...VALID, RiskLevel: {} }, "invalid_type", "RiskLevel", "an object"],
    ["Description missing", without("Description"), "missing_field", "Description", "Description"],
    ["Author an array", { ...VALID, Author: ["x"] }, "invalid_type", "Author", "an array"],
    [
      "Tactic a string",
      { ...VALID, Tactic: "Execution" },
      "invalid_type",
      "Tactic",
      "Expected an array of strings",
    ],
    ["Tactic element", { ...VALID, Tactic: ["a", "b", 5] }, "invalid_type", "Tactic[2]", "the number 5"],
    ["Technique missing", without("Technique"), "missing_field", "Technique", "Technique"],
    ["Technique element", { ...VALID, Technique: [null] }, "invalid_type", "Technique[0]", "null"],
  ];

  it.each(cases)("%s", (_name, entry, code, field, message) => {
    const result = validateTimelineEntries([VALID, entry]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ code, index: 1, field });
    expect(result.problems[0].message).toContain(message);
    expect(result.problems[0].message).toMatch(/^Expected .*\.$/);
  });

  it("reads own properties only: an inherited field is missing", () => {
    const inherited = Object.assign(Object.create({ Summary: "from the prototype" }), without("Summary"));
    const result = validateTimelineEntries([inherited]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatchObject({ code: "missing_field", field: "Summary" });
  });

  it("reports every problem of every entry, in input order", () => {
    const result = validateTimelineEntries([
      { ...VALID, TimelineID: "x", Time: "bad", Tactic: [1, 2] },
      VALID,
      null,
      "entry",
      [],
      {},
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => [p.index, p.field, p.code])).toEqual([
      [0, "TimelineID", "invalid_type"],
      [0, "Time", "invalid_time"],
      [0, "Tactic[0]", "invalid_type"],
      [0, "Tactic[1]", "invalid_type"],
      [2, "", "not_object"],
      [3, "", "not_object"],
      [4, "", "not_object"],
      ...SPEC_TIMELINE_ENTRY_ORDER.map((field) => [5, field, "missing_field"]),
    ]);
  });

  it.each([
    [null, "null"],
    [{}, "an object"],
    ["[]", 'the string "[]"'],
    [undefined, "nothing"],
  ])("refuses a non-array input %j", (input, found) => {
    const result = validateTimelineEntries(input);
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          code: "not_array",
          index: -1,
          field: "",
          message: `Expected an array of timeline entries, found ${found}.`,
        },
      ],
    });
  });

  it("does not let a __proto__ key of parsed JSON reach the result or any prototype", () => {
    const input = JSON.parse(`[${JSON.stringify(VALID).replace("{", '{"__proto__": {"polluted": true},')}]`);
    const result = validateTimelineEntries(input);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(Object.hasOwn(result.entries[0]!, "__proto__")).toBe(false);
      expect(Object.getPrototypeOf(result.entries[0])).toBe(Object.prototype);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("counts entries from 1, as a person does, while problem.index stays 0-based", () => {
    const result = validateTimelineEntries([{ ...VALID, TimelineID: "x" }]);
    if (result.ok) throw new Error("expected problems");
    expect(result.problems[0]!.index).toBe(0);
    expect(formatTimelineProblems(result.problems)).toMatch(/^entry 1, TimelineID: /);
  });

  it("formats problems with the entry's 1-based number and the field name", () => {
    const result = validateTimelineEntries([VALID, { ...VALID, Tactic: ["a", 1] }, 3]);
    if (result.ok) throw new Error("expected problems");
    expect(formatTimelineProblems(result.problems)).toBe(
      "entry 2, Tactic[1]: Expected a string, found the number 1.\nentry 3: Expected a timeline entry object, found the number 3.",
    );
    const notArray = validateTimelineEntries(3);
    if (notArray.ok) throw new Error("expected problems");
    expect(formatTimelineProblems(notArray.problems)).toBe(
      "input: Expected an array of timeline entries, found the number 3.",
    );
  });
});

describe("validateTimelineEntries: the fast path and the detailed path agree (property)", () => {
  const FIELDS = SPEC_TIMELINE_ENTRY_ORDER;
  /** An independent statement of the rule of specification 2.2 for one field's value. */
  const validField = (field: (typeof FIELDS)[number], value: unknown): boolean => {
    if (field === "TimelineID") return Number.isSafeInteger(value);
    if (field === "Time") return referenceIsValidTimelineTime(value);
    if (field === "Tactic" || field === "Technique") {
      return Array.isArray(value) && Array.from(value).every((e) => typeof e === "string");
    }
    return typeof value === "string";
  };
  const value = fc.oneof(
    fc.constantFrom<unknown>(
      7,
      -3,
      2 ** 53,
      1.5,
      "2024-02-29 23:59:59",
      "2023-02-29 23:59:59",
      "",
      "text",
      null,
      true,
      [],
      ["a", "b"],
      ["a", 1],
      // biome-ignore lint/suspicious/noSparseArray: a hole is not a string
      ["a", , "b"],
      {},
    ),
    fc.string({ maxLength: 4 }),
  );
  /** Each field: absent, inherited, or own with a value. */
  const slot = fc.oneof(
    fc.constant({ how: "absent" as const }),
    fc.record({ how: fc.constant("inherited" as const), value }),
    fc.record({ how: fc.constant("own" as const), value }),
    fc.record({ how: fc.constant("own" as const), value }),
  );
  const validSlot = (field: (typeof FIELDS)[number]) =>
    fc.constant({ how: "own" as const, value: VALID[field] as unknown });
  const entry = fc
    .tuple(
      ...FIELDS.map((field) =>
        fc.oneof({ weight: 3, arbitrary: validSlot(field) }, { weight: 1, arbitrary: slot }),
      ),
    )
    .map((slots) => {
      const proto: Record<string, unknown> = {};
      const own: Record<string, unknown> = Object.create(proto);
      slots.forEach((s, i) => {
        const field = FIELDS[i]!;
        if (s.how === "own") own[field] = s.value;
        else if (s.how === "inherited") proto[field] = s.value;
      });
      return { own, slots };
    });

  it("accepts exactly the entries whose ten own fields are valid, and copies them", () => {
    fc.assert(
      fc.property(entry, ({ own, slots }) => {
        const expected = slots.every((s, i) => s.how === "own" && validField(FIELDS[i]!, s.value));
        const result = validateTimelineEntries([own]);
        expect(result.ok).toBe(expected);
        if (result.ok) {
          const copy = result.entries[0]!;
          expect(Object.keys(copy)).toEqual([...FIELDS]);
          for (const field of FIELDS) expect(copy[field]).toEqual(own[field]);
          expect(copy.Tactic).not.toBe(own.Tactic);
        } else {
          expect(result.problems.length).toBeGreaterThan(0);
          expect(result.problems.every((p) => p.index === 0)).toBe(true);
        }
      }),
      fcOptions(1000),
    );
  });
});
