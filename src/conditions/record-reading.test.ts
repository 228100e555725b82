/**
 * How records are read (docs/semantics.md 1.1, SECURITY.md "How records are read"), attacked in every matcher:
 * `evaluate`, `compile` with both back ends, and `IncidentSet` (columns and row predicate). A field is an
 * own property, data or accessor, read at most once per field per evaluation; a read that throws counts as
 * missing; inherited properties never count (a polluted prototype can never make a record match); a forged
 * `Date` is no date and never throws.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compileIn } from "../../test/support/tiers.js";
import { IncidentSet } from "../incidents/incident-set.js";
import { compile } from "./compile.js";
import { evaluate } from "./evaluate.js";
import { parseSearchConditions } from "./parse.js";

type Matcher = (conditions: unknown, record: object) => boolean;

/** Every matcher, each answering one record at a time (a fresh IncidentSet per record). */
const matchers: [string, Matcher][] = [
  ["evaluate", (c, r) => evaluate(parseSearchConditions(c), r)],
  ["compile (codegen)", (c, r) => compileIn(parseSearchConditions(c), { codegen: true, cache: false })(r)],
  ["compile (closure)", (c, r) => compile(parseSearchConditions(c), { codegen: false, cache: false })(r)],
  ["IncidentSet", (c, r) => new IncidentSet([r]).count(parseSearchConditions(c)) === 1],
  [
    "IncidentSet (no columns)",
    (c, r) =>
      new IncidentSet([r], { dictionaryFields: [], hashFields: [] }).count(parseSearchConditions(c)) === 1,
  ],
];

/** A record whose `key` is an accessor returning `value`, counting its reads. */
function counting(key: string, value: unknown, base: object = {}): { record: object; reads: () => number } {
  let reads = 0;
  const record = Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get: () => {
      reads++;
      return value;
    },
  });
  return { record, reads: () => reads };
}

function throwing(key: string, base: object = {}): object {
  return Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get: () => {
      throw new Error(`reading ${key}`);
    },
  });
}

describe.each(matchers)("%s: how records are read (docs/semantics.md 1.1)", (_name, matches) => {
  afterEach(() => {
    // Undo any pollution a failed test left behind.
    for (const key of ["Severity", "Owner", "Polluted"])
      delete (Object.prototype as Record<string, unknown>)[key];
    delete (Array.prototype as unknown as Record<string, unknown>)["0"];
  });

  it("reads an own accessor like a data property", () => {
    const { record } = counting("Severity", "High", { IncidentId: 1 });
    expect(matches({ Severity: "High" }, record)).toBe(true);
    expect(matches({ Severity: { $ne: "High" } }, record)).toBe(false);
    expect(matches({ Severity: { $exists: false } }, record)).toBe(false);
    const nested = { IncidentId: 1, Custom: counting("Owner", "alice").record };
    expect(matches({ "Custom.Owner": "alice" }, nested)).toBe(true);
    expect(matches({ "Custom.Owner": null }, nested)).toBe(false);
  });

  it("counts a field whose read throws as missing, and never throws", () => {
    const record = throwing("Severity", { IncidentId: 1 });
    expect(matches({ Severity: null }, record)).toBe(true);
    expect(matches({ Severity: { $exists: false } }, record)).toBe(true);
    expect(matches({ Severity: { $ne: "High" } }, record)).toBe(true);
    expect(matches({ Severity: "High" }, record)).toBe(false);
    expect(matches({ $or: [{ Severity: "High" }, { Severity: { $exists: true } }] }, record)).toBe(false);
    const nested = { IncidentId: 1, Custom: throwing("Owner") };
    expect(matches({ "Custom.Owner": null }, nested)).toBe(true);
    expect(matches({ "Custom.Owner": { $exists: true } }, nested)).toBe(false);
    const element = Object.defineProperty([1], "1", {
      enumerable: true,
      get: () => {
        throw new Error("element");
      },
    });
    expect(matches({ Tags: 1 }, { IncidentId: 1, Tags: element })).toBe(true);
    expect(matches({ Tags: 2 }, { IncidentId: 1, Tags: element })).toBe(false);
  });

  it("reads a field at most once per evaluation, however many leaves use it", () => {
    const conditions = {
      $or: [
        { Severity: "Low" },
        { Severity: { $in: ["Critical", "Medium"] } },
        { Severity: { $regex: "^Hi" } },
      ],
      $nor: [{ Severity: "Informational" }],
      Status: { $ne: "Closed" },
    };
    const { record, reads } = counting("Severity", "High", { IncidentId: 1, Status: "Open" });
    expect(matches(conditions, record)).toBe(true);
    // The IncidentSet reads the record once when it is added, then once more to decide the row.
    expect(reads()).toBeLessThanOrEqual(_name.startsWith("IncidentSet") ? 2 : 1);
    const custom = counting("Owner", "alice");
    const nested = { IncidentId: 1, Custom: custom.record };
    expect(matches({ $or: [{ "Custom.Owner": "bob" }, { "Custom.Owner": { $ne: "carol" } }] }, nested)).toBe(
      true,
    );
    expect(custom.reads()).toBe(1);
  });

  it("never lets a polluted Object.prototype make a record match", () => {
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.Severity = "High";
      proto.Owner = "alice";
      expect(matches({ Severity: "High" }, { IncidentId: 1 })).toBe(false);
      expect(matches({ Severity: { $exists: true } }, { IncidentId: 1 })).toBe(false);
      expect(matches({ Severity: null }, { IncidentId: 1 })).toBe(true);
      expect(matches({ Severity: { $in: ["High", "Low"] } }, { IncidentId: 1 })).toBe(false);
      expect(matches({ "Custom.Owner": "alice" }, { IncidentId: 1, Custom: {} })).toBe(false);
      expect(matches({ "Custom.Owner": "alice" }, { IncidentId: 1, Custom: [{}] })).toBe(false);
      expect(matches({ Severity: "High" }, { IncidentId: 1, Severity: "High" })).toBe(true);
    } finally {
      delete proto.Severity;
      delete proto.Owner;
    }
    let invoked = 0;
    try {
      Object.defineProperty(Object.prototype, "Polluted", {
        configurable: true,
        get: () => {
          invoked++;
          return "x";
        },
      });
      expect(matches({ Polluted: "x" }, { IncidentId: 1 })).toBe(false);
      expect(matches({ Polluted: { $exists: false } }, { IncidentId: 1 })).toBe(true);
    } finally {
      delete proto.Polluted;
    }
    // An inherited getter may be run by the optimistic read of generated code, but never counts.
    expect(invoked).toBeLessThanOrEqual(2);
  });

  it("never counts a field inherited from any prototype: a class, a plain object, a chain", () => {
    class WithGetters {
      IncidentId = 1;
      get Severity(): string {
        return "High";
      }
    }
    const fromClass = new WithGetters();
    expect(matches({ Severity: "High" }, fromClass)).toBe(false);
    expect(matches({ Severity: { $in: ["High", "Low"] } }, fromClass)).toBe(false);
    expect(matches({ Severity: { $exists: false } }, fromClass)).toBe(true);
    expect(matches({ Severity: { $ne: "High" } }, fromClass)).toBe(true);
    expect(matches({ IncidentId: 1 }, fromClass)).toBe(true);
    const parent = { Severity: "High", Status: "Open" };
    const child = Object.assign(Object.create(parent) as object, { IncidentId: 2, Status: "Closed" });
    const grandchild = Object.assign(Object.create(child) as object, { IncidentId: 3 });
    for (const record of [child, grandchild]) {
      expect(matches({ Severity: "High" }, record)).toBe(false);
      expect(matches({ Severity: null }, record)).toBe(true);
    }
    // An own value shadowing an inherited one counts; the inherited one never does.
    expect(matches({ Status: "Closed" }, child)).toBe(true);
    expect(matches({ Status: "Open" }, child)).toBe(false);
    expect(matches({ Status: "Closed", Severity: "High" }, child)).toBe(false);
    expect(matches({ $or: [{ Severity: "High" }, { Status: "Open" }] }, child)).toBe(false);
    expect(matches({ Status: "Closed" }, grandchild)).toBe(false);
  });

  it("reads a record without a prototype like any other", () => {
    const bare = Object.assign(Object.create(null) as object, { IncidentId: 1, Severity: "High" });
    expect(matches({ Severity: "High" }, bare)).toBe(true);
    expect(matches({ Severity: { $ne: "High" } }, bare)).toBe(false);
    expect(matches({ Status: { $exists: false }, Severity: { $in: ["High"] } }, bare)).toBe(true);
  });

  it("never lets a polluted Array.prototype fill a hole", () => {
    const arrayProto = Array.prototype as unknown as Record<string, unknown>;
    try {
      arrayProto["0"] = "vip";
      // biome-ignore lint/suspicious/noSparseArray: a hole is the point of the test
      const holes = [, "other"];
      expect(matches({ Tags: "vip" }, { IncidentId: 1, Tags: holes })).toBe(false);
      expect(matches({ Tags: { $ne: "vip" } }, { IncidentId: 1, Tags: holes })).toBe(true);
      expect(matches({ "Tags.0": "vip" }, { IncidentId: 1, Tags: holes })).toBe(false);
    } finally {
      delete arrayProto["0"];
    }
  });

  it("treats a forged Date as no date, and never throws", () => {
    const forged = Object.create(Date.prototype) as object;
    const dated = { $date: "2024-01-01T00:00:00Z" };
    for (const record of [
      { IncidentId: 1, CreatedUtcTime: forged },
      { IncidentId: 1, CreatedUtcTime: [forged] },
      { IncidentId: 1, SeenAt: forged },
    ]) {
      const field = "CreatedUtcTime" in record ? "CreatedUtcTime" : "SeenAt";
      expect(matches({ [field]: dated }, record)).toBe(false);
      expect(matches({ [field]: { $gte: dated } }, record)).toBe(false);
      expect(matches({ [field]: { $lt: dated } }, record)).toBe(false);
      expect(matches({ [field]: { $ne: dated } }, record)).toBe(true);
      expect(matches({ [field]: { $nin: [dated] } }, record)).toBe(true);
      expect(matches({ [field]: { $exists: true } }, record)).toBe(true);
    }
    // A real Date whose getTime is overridden is read through the intrinsic method: still that date.
    const date = new Date("2024-01-01T00:00:00Z");
    Object.defineProperty(date, "getTime", {
      value: () => {
        throw new Error("getTime");
      },
    });
    expect(matches({ CreatedUtcTime: dated }, { IncidentId: 1, CreatedUtcTime: date })).toBe(true);
  });
});
