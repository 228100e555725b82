import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { compileIn, switched } from "../../test/support/tiers.js";
import type { Condition } from "./ast.js";
import { DEFAULT_CATALOG, extendCatalog } from "./catalog.js";
import { foldingLiteralSource } from "./codegen.js";
import { CODEGEN_AFTER_CALLS, clearCompileCache, compile, generatedSource } from "./compile.js";
import { evaluate } from "./evaluate.js";
import { SearchConditionsError } from "./issues.js";
import { parseSearchConditions } from "./parse.js";
import { compileRegex } from "./regex/matcher.js";

const MODES = [
  ["codegen", true],
  ["closure", false],
] as const;

describe.each(MODES)("compile (%s): edge cases against evaluate", (_mode, codegen) => {
  const cases: { name: string; conditions: unknown; records: unknown[] }[] = [
    {
      name: "$in with more than six operands (Set) and null",
      conditions: { Score: { $in: [1, 2, 3, 4, 5, 6, 7, "8", null] } },
      records: [
        { Score: 7 },
        { Score: "8" },
        { Score: 8 },
        {},
        { Score: null },
        { Score: [0, 5] },
        { Score: [[7]] },
      ],
    },
    {
      name: "two date leaves on one field (date read cached once per record)",
      conditions: [
        { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } },
        { CreatedUtcTime: { $lt: { $date: "2023-01-01T00:00:00Z" } } },
      ],
      records: [
        { CreatedUtcTime: "2024-06-01T00:00:00Z" },
        { CreatedUtcTime: "2022-06-01T00:00:00Z" },
        { CreatedUtcTime: "2023-06-01T00:00:00Z" },
        { CreatedUtcTime: new Date("2022-01-01T00:00:00Z") },
        { CreatedUtcTime: ["2022-06-01T00:00:00Z"] },
        { CreatedUtcTime: "2024-13-01T00:00:00Z" },
      ],
    },
    {
      name: "case-insensitive literal regex: ASCII folding, Kelvin sign through RE2",
      conditions: { Title: { $regex: "kit", $options: "i" } },
      records: [
        { Title: "Phishing KIT" },
        { Title: "\u212Ait" },
        { Title: "k\u0130t" },
        { Title: "ki" },
        { Title: ["x", "KiT"] },
      ],
    },
    {
      name: "anchored literal regexes",
      conditions: {
        $or: [
          { Title: { $regex: "^Phish" } },
          { Stage: { $regex: "ment$" } },
          { Type: { $regex: "^Malware$" } },
        ],
      },
      records: [
        { Title: "Phishing" },
        { Title: "phishing" },
        { Stage: "Containment" },
        { Type: "Malware" },
        { Type: "Malware\n" },
      ],
    },
    {
      name: "$ne and $nin on missing, null and arrays",
      conditions: { Severity: { $ne: "High" }, Status: { $nin: ["Closed", null] } },
      records: [
        {},
        { Severity: "High" },
        { Status: null },
        { Status: ["Open", "Closed"] },
        { Status: "Open", Severity: ["Low"] },
      ],
    },
    {
      // The generated code answers an equality to one string with one `typeof` branch: a string by `===`,
      // anything else by the array traversal alone (codegen.ts, `equality`).
      name: "equality to one string, and its negation, on every kind of value",
      conditions: { $or: [{ Status: "Open" }, { Severity: { $ne: "Low" }, Stage: "x" }] },
      records: [
        {},
        { Status: "Open" },
        { Status: "Closed" },
        { Status: ["Closed", "Open"] },
        { Status: [["Open"]] },
        { Status: [] },
        { Status: null },
        { Status: 7 },
        { Status: new String("Open") },
        { Status: { 0: "Open", length: 1 } },
        { Stage: "x" },
        { Stage: "x", Severity: "Low" },
        { Stage: "x", Severity: ["Low"] },
        { Stage: "x", Severity: ["High"] },
        { Stage: ["y", "x"], Severity: 1 },
        { Stage: "x", Severity: new String("Low") },
      ],
    },
    {
      name: "$not of $exists and of a regex",
      conditions: { Title: { $not: { $regex: "^x" } }, Extra: { $not: { $exists: true } } },
      records: [{}, { Title: "xy" }, { Title: "yx" }, { Extra: 1 }, { Title: 5 }],
    },
    {
      name: "$nor with a negated leaf",
      conditions: { $nor: [{ Severity: { $ne: "Low" } }, { Tags: { $size: 2 } }] },
      records: [{ Severity: "Low" }, { Severity: "High" }, {}, { Severity: "Low", Tags: [1, 2] }],
    },
    {
      name: "nested paths through arrays",
      conditions: { "Custom.Owner": "alice", "Tags.0": "vip" },
      records: [
        { Custom: { Owner: "alice" }, Tags: ["vip"] },
        { Custom: [{ Owner: "bob" }, { Owner: "alice" }], Tags: ["vip", "x"] },
        { Custom: { Owner: "alice" }, Tags: ["x", "vip"] },
      ],
    },
    {
      name: "prototype-named fields are own properties only",
      conditions: { toString: { $exists: true }, valueOf: { $ne: 1 } },
      records: [
        {},
        JSON.parse('{"toString": "x"}'),
        JSON.parse('{"toString": "x", "valueOf": 1}'),
        Object.create(null),
      ],
    },
  ];

  it.each(cases)("$name", ({ conditions, records }) => {
    const condition = parseSearchConditions(conditions);
    const predicate = compileIn(condition, { codegen, cache: false });
    for (const record of records)
      expect(predicate(record), JSON.stringify(record)).toBe(evaluate(condition, record as object));
  });

  it("reads an own accessor like a data property (docs/semantics.md 1.1)", () => {
    const condition = parseSearchConditions({ Severity: "High" });
    const predicate = compileIn(condition, { codegen, cache: false });
    const record = Object.defineProperty({}, "Severity", { get: () => "High", enumerable: true });
    expect(evaluate(condition, record)).toBe(true);
    expect(predicate(record)).toBe(true);
  });

  it("counts a field whose getter throws as missing", () => {
    const condition = parseSearchConditions({ Severity: { $ne: "High" } });
    const predicate = compileIn(condition, { codegen, cache: false });
    const record = Object.defineProperty({}, "Severity", {
      get: () => {
        throw new Error("boom");
      },
    });
    expect(predicate(record)).toBe(true);
    expect(compileIn(parseSearchConditions({ Severity: null }), { codegen, cache: false })(record)).toBe(
      true,
    );
  });

  it("reads anything but a non-array object as an empty record", () => {
    const matchesEmpty = compileIn(parseSearchConditions({ Severity: { $exists: false } }), { codegen });
    const needsValue = compileIn(parseSearchConditions({ Severity: "High" }), { codegen });
    for (const value of [null, undefined, 0, "Severity", ["High"], () => 1]) {
      expect(matchesEmpty(value)).toBe(true);
      expect(needsValue(value)).toBe(false);
    }
  });

  it("reads an array as an empty record even when it holds the field as an own property", () => {
    const array = Object.assign(["High"], { Severity: "High", Status: "Open" });
    const conditions = [
      { Severity: "High" },
      { Severity: "High", Status: "Open" },
      { Severity: { $exists: false } },
      { Severity: { $ne: "High" } },
    ];
    for (const json of conditions) {
      const condition = parseSearchConditions(json);
      expect(compileIn(condition, { codegen, cache: false })(array)).toBe(evaluate(condition, array));
    }
  });

  it("answers a non-record as an empty record whatever it holds, also after running hot (the test follows the reads)", () => {
    const fn = Object.assign(() => 1, { Severity: "High", Status: "Open" });
    const array = Object.assign(["a", "b", "c"], { Severity: "High", Status: "Open" });
    const nonRecords: unknown[] = [
      null,
      undefined,
      0,
      3,
      "abc",
      "",
      true,
      10n,
      Symbol("s"),
      fn,
      array,
      [],
      [["High"]],
    ];
    const conditions = [
      { length: 3 },
      { length: { $ne: 3 } },
      { length: { $gte: 0 } },
      { "0": "a" },
      { "0": { $exists: false } },
      { Severity: "High" },
      { Severity: { $ne: "High" } },
      { Severity: { $in: ["High", "Low"] }, Status: { $nin: ["Closed"] } },
      [{ Severity: "High", Status: "Open" }, { length: 0 }],
      { name: { $exists: true } },
    ];
    const plain = Array.from({ length: 2000 }, (_, i) => ({
      Severity: i % 2 ? "High" : "Low",
      Status: "Open",
    }));
    for (const json of conditions) {
      const condition = parseSearchConditions(json);
      const predicate = compileIn(condition, { codegen, cache: false });
      for (let round = 0; round < 20; round++) for (const r of plain) predicate(r);
      for (const value of nonRecords)
        expect(predicate(value), `${JSON.stringify(json)} on ${String(value)}`).toBe(evaluate(condition, {}));
      expect(predicate(new String("abc")), JSON.stringify(json)).toBe(evaluate(condition, new String("abc")));
    }
  });

  it("reads every field exactly once, throwing getters, inherited values, arrays, nulls and numbers in any field", () => {
    const queries = [
      [
        { Severity: "Critical", Status: "Open" },
        { IngestionType: "Manual Escalation", Category: "Fraud" },
      ],
      { Type: { $in: ["Phishing", "Malware", "Ransomware"] } },
      { Number: "INC-7" },
      { Score: 7 },
      { Status: { $ne: "Closed" }, DataSource: { $nin: ["Splunk", "QRadar"] }, Stage: "Triage" },
      { Status: "Open", Level: { $in: ["High", 3] }, Score: { $ne: "7" } },
    ];
    const fields = [
      "Severity",
      "Status",
      "IngestionType",
      "Category",
      "Type",
      "Number",
      "DataSource",
      "Stage",
      "Score",
      "Level",
    ];
    const values: unknown[] = [
      "Critical",
      "Open",
      "Manual Escalation",
      "Fraud",
      "Phishing",
      "INC-7",
      "7",
      7,
      3,
      "3",
      "Closed",
      "Splunk",
      "Triage",
      "High",
      null,
      undefined,
      ["Critical", "x"],
      [7],
      [["Open"]],
      [null],
      {},
      { Open: 1 },
    ];
    const KINDS = ["data", "getter", "throwing", "inherited", "absent"] as const;
    const make = (assign: Record<string, [(typeof KINDS)[number], unknown]>, reads: Map<string, number>) => {
      const proto: Record<string, unknown> = {};
      const record = Object.create(proto) as Record<string, unknown>;
      for (const [field, [kind, value]] of Object.entries(assign)) {
        if (kind === "data") record[field] = value;
        else if (kind === "inherited") proto[field] = value;
        else if (kind === "getter" || kind === "throwing")
          Object.defineProperty(record, field, {
            enumerable: true,
            get: () => {
              reads.set(field, (reads.get(field) ?? 0) + 1);
              if (kind === "throwing") throw new Error("boom");
              return value;
            },
          });
      }
      return record;
    };
    const arbitraryRecord = fc.dictionary(
      fc.constantFrom(...fields),
      fc.tuple(fc.constantFrom(...KINDS), fc.constantFrom(...values)),
    );
    for (const json of queries) {
      const condition = parseSearchConditions(json);
      const predicate = compileIn(condition, { codegen, cache: false });
      const plain = Array.from({ length: 500 }, (_, i) =>
        Object.fromEntries(fields.map((f, j) => [f, values[(i + j) % values.length]])),
      );
      for (let round = 0; round < 20; round++) for (const r of plain) predicate(r);
      fc.assert(
        fc.property(arbitraryRecord, (assign) => {
          const reads = new Map<string, number>();
          const expected = evaluate(condition, make(assign, new Map()));
          expect(predicate(make(assign, reads))).toBe(expected);
          for (const [field, n] of reads) expect(n, field).toBe(1);
        }),
        fcOptions(300),
      );
      const proto = JSON.parse('{"__proto__": {"Status": "Open"}, "Severity": "Critical"}');
      expect(predicate(proto)).toBe(evaluate(condition, proto));
    }
  });

  it("stays exact when a prototype is polluted after the predicate ran hot on plain records", () => {
    const records = Array.from({ length: 2000 }, (_, i) => ({
      IncidentId: i,
      Status: i % 2 === 0 ? "Open" : "Closed",
      ...(i % 3 === 0 ? { Owner: "alice" } : {}),
    }));
    const predicate = compileIn(
      parseSearchConditions({ Owner: "alice", Status: { $in: ["Open", "Closed"] } }),
      {
        codegen,
        cache: false,
      },
    );
    let hot = 0;
    for (let round = 0; round < 50; round++) for (const r of records) if (predicate(r)) hot++;
    expect(hot).toBe(50 * records.filter((r) => "Owner" in r).length);
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.Owner = "alice";
      expect(records.filter((r) => predicate(r)).length).toBe(
        records.filter((r) => Object.hasOwn(r, "Owner")).length,
      );
      expect(predicate({ IncidentId: -1, Status: "Open" })).toBe(false);
      expect(predicate({ IncidentId: -1, Status: "Open", Owner: "alice" })).toBe(true);
    } finally {
      delete proto.Owner;
    }
    expect(predicate({ IncidentId: -1, Status: "Open", Owner: "alice" })).toBe(true);
    expect(predicate({ IncidentId: -1, Status: "Open" })).toBe(false);
  });

  it("never meets NaN or Infinity operands: the parser refuses them, compile refuses hand-built nodes", () => {
    for (const value of [Number.NaN, Infinity, -Infinity]) {
      expect(() => parseSearchConditions({ Score: value })).toThrow(SearchConditionsError);
      expect(() => parseSearchConditions({ Score: { $in: [value] } })).toThrow(SearchConditionsError);
      const forged: Condition = {
        kind: "eq",
        path: ["Score"],
        fieldKind: "open",
        operand: { type: "number", value },
      };
      expect(() => compileIn(forged, { codegen })).toThrow(/call parseSearchConditions/);
    }
  });
});

describe("compile: generated code", () => {
  it("never embeds operand text: operands are constants, field names JSON string literals", () => {
    const operand = '"); globalThis.__pwnedByOperand = true; ("';
    const key = 'x"] || (__pwnedByKey = true) || r["x';
    const condition = parseSearchConditions({
      Title: operand,
      Type: { $in: [operand, "x"] },
      Category: { $regex: "pwnedByOperand" },
      [key]: "y",
    });
    const source = generatedSource(condition);
    expect(source).not.toContain("pwnedByOperand");
    expect(source).toContain(`r[${JSON.stringify(key)}]`);
    const predicate = switched(compile(condition, { cache: false }));
    expect(predicate({ Title: operand, Type: "x", Category: "pwnedByOperand", [key]: "y" })).toBe(true);
    expect(predicate({ Title: operand, Type: "x", Category: "pwnedByOperand" })).toBe(false);
    expect((globalThis as Record<string, unknown>).__pwnedByOperand).toBeUndefined();
    expect((globalThis as Record<string, unknown>).__pwnedByKey).toBeUndefined();
  });

  it("orders conjuncts cheapest first, regular expressions last", () => {
    const source = generatedSource(
      parseSearchConditions({
        Title: { $regex: "a.c" },
        CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } },
        Severity: "High",
      }),
    );
    const severity = source.indexOf('r["Severity"]');
    const created = source.indexOf('r["CreatedUtcTime"]');
    const title = source.indexOf('r["Title"]');
    expect(severity).toBeGreaterThan(-1);
    expect(severity).toBeLessThan(created);
    expect(created).toBeLessThan(title);
  });
});

describe("compile: cache", () => {
  it("returns the same predicate for the same condition, a fresh one carrying each equal condition", () => {
    clearCompileCache();
    const a = parseSearchConditions({ Severity: { $in: ["High", "Critical"] } });
    const b = parseSearchConditions({ Severity: { $in: ["High", "Critical"] } });
    const first = compile(a);
    expect(compile(a)).toBe(first);
    const second = compile(b);
    expect(second).not.toBe(first);
    expect(second.condition).toBe(b);
    expect(first.condition).toBe(a);
    expect(second({ Severity: "Critical" })).toBe(true);
  });

  it("keys by field kind too: the same JSON under another catalogue is another predicate", () => {
    const json = { Seen: { $date: "2024-01-01T00:00:00Z" } };
    const catalog = extendCatalog(DEFAULT_CATALOG, { fields: { Seen: { kind: "date" } } });
    const asDate = compile(parseSearchConditions(json, { catalog }));
    const asOpen = compile(parseSearchConditions(json));
    expect(asDate({ Seen: "2024-01-01T00:00:00Z" })).toBe(true);
    expect(asOpen({ Seen: "2024-01-01T00:00:00Z" })).toBe(false);
  });

  it("keeps codegen and closure predicates apart", () => {
    const condition = parseSearchConditions({ Status: "Open" });
    const tiered = switched(compile(condition, { codegen: true }));
    expect(compile(condition, { codegen: true })).toBe(tiered);
    const closures = compile(condition, { codegen: false });
    expect(closures).not.toBe(tiered);
    expect(closures.mode).toBe("closure");
  });
});

describe("case-insensitive ASCII literals as one native search", () => {
  it("RE2 folds exactly two non-ASCII code points to ASCII letters: U+017F and U+212A", () => {
    const letter = compileRegex("[a-z]", "i");
    const folded: number[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      if (letter.test(String.fromCodePoint(c))) folded.push(c);
    }
    expect(folded).toEqual([0x17f, 0x212a]);
  });

  it("the native regex matches exactly what RE2 matches", () => {
    const alphabet = fc.constantFrom(..."aKks SxyZ.-$^\u017f\u212a\u0130\u0131\u00df\u00e9\ud83d\ude00");
    const text = (max: number) => fc.array(alphabet, { maxLength: max }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(..."aKks SxyZ.-"), { minLength: 0, maxLength: 4 }).map((cs) => cs.join("")),
        fc.boolean(),
        fc.boolean(),
        fc.array(text(12), { minLength: 1, maxLength: 10 }),
        (literal, start, end, values) => {
          const escaped = literal.replace(/[.$^-]/g, (ch) => `\\${ch}`);
          const source = `${start ? "^" : ""}${escaped}${end ? "$" : ""}`;
          const reference = compileRegex(source, "i");
          const native = new RegExp(
            `${start ? "^" : ""}${foldingLiteralSource(literal)}${end ? "$" : ""}`,
            "i",
          );
          for (const value of values)
            expect(native.test(value), JSON.stringify([source, value])).toBe(reference.test(value));
        },
      ),
      fcOptions(3000),
    );
  });
});

describe("date ranges on ISO strings (string comparison before the full read)", () => {
  const anyMs = fc.integer({ min: Date.UTC(2023, 11, 31, 23, 59, 50), max: Date.UTC(2024, 0, 1, 0, 0, 10) });
  /** Instants in a 20-second window, whole seconds half of the time (the boundaries of the string forms). */
  const instant = fc.oneof(
    anyMs,
    anyMs.map((ms) => Math.floor(ms / 1000) * 1000),
  );
  const value = fc.oneof(
    instant.map((ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z")),
    instant.map((ms) => new Date(ms).toISOString()),
    instant.map((ms) => new Date(ms)),
    fc.constantFrom(
      "2024-01-01T00:00:0aZ",
      "2024-01-01T00:00:60Z",
      "2023-12-31T23:59:59z",
      "9999-99-99T99:99:99Z",
    ),
  );
  const bound = fc.record({ ms: instant, inclusive: fc.boolean() });

  it.each(MODES)("agrees with evaluate around whole-second boundaries (%s)", (_mode, codegen) => {
    fc.assert(
      fc.property(
        fc.option(bound, { nil: undefined }),
        fc.option(bound, { nil: undefined }),
        fc.array(value, { maxLength: 8 }),
        (lower, upper, values) => {
          if (lower === undefined && upper === undefined) return;
          const $date = (ms: number) => ({ $date: { $numberLong: String(ms) } });
          const condition = parseSearchConditions({
            CreatedUtcTime: {
              ...(lower === undefined ? {} : { [lower.inclusive ? "$gte" : "$gt"]: $date(lower.ms) }),
              ...(upper === undefined ? {} : { [upper.inclusive ? "$lte" : "$lt"]: $date(upper.ms) }),
            },
          });
          const predicate = compileIn(condition, { codegen, cache: false });
          for (const v of values) {
            const record = { CreatedUtcTime: v };
            expect(predicate(record), JSON.stringify([lower, upper, v])).toBe(evaluate(condition, record));
          }
        },
      ),
      fcOptions(2000),
    );
  });
});

describe("compile: tiers (closures first, generated code after CODEGEN_AFTER_CALLS calls)", () => {
  /** Records that attack the reading rules (docs/semantics.md 1.1), and non-records. */
  function hostileRecords(): unknown[] {
    const throwing = Object.defineProperty({ Severity: "High" }, "Status", {
      enumerable: true,
      get: () => {
        throw new Error("getter");
      },
    });
    const inherited = Object.create({ Status: "Open", Severity: "High" }) as object;
    const nullProto = Object.assign(Object.create(null) as object, { Status: "Open", Severity: "High" });
    class WithAccessor {
      get Status(): string {
        return "Open";
      }
    }
    const shadowing = Object.assign(Object.create({ Status: "Closed" }) as object, { Status: "Open" });
    const throwingProxy = new Proxy(
      {},
      {
        get: () => {
          throw new Error("trap");
        },
        has: () => {
          throw new Error("trap");
        },
        getOwnPropertyDescriptor: () => {
          throw new Error("trap");
        },
      },
    );
    return [
      { Status: "Open", Severity: "High", Tags: ["a", "b"], Score: 7 },
      { Status: ["Open"], Severity: ["Low", "High"], Score: [7] },
      { Status: null, Severity: null },
      {},
      throwing,
      inherited,
      nullProto,
      new WithAccessor(),
      shadowing,
      JSON.parse('{"__proto__": {"Status": "Open"}, "Severity": "Critical"}'),
      new Date(0),
      ["Open"],
      Object.assign(["Open"], { Status: "Open" }),
      null,
      undefined,
      "Open",
      7,
      throwingProxy,
    ];
  }

  const conditions = [
    { Status: "Open" },
    { Status: { $ne: "Open" } },
    { Status: { $in: ["Open", null] }, Severity: { $nin: ["Low"] } },
    { $or: [{ Status: "Open" }, { Severity: { $exists: false } }] },
    { $nor: [{ Status: "Closed" }, { Score: { $gt: 5 } }] },
    { Tags: { $size: 2 }, Title: { $not: { $regex: "^x" } } },
    { "Status.length": 4 },
  ];

  it.each(conditions.map((c) => [JSON.stringify(c), c] as const))(
    "answers hostile records the same before and after the switch: %s",
    (_name, json) => {
      const condition = parseSearchConditions(json);
      const predicate = compile(condition, { cache: false });
      expect(predicate.mode).toBe("closure");
      expect(predicate.condition).toBe(condition);
      // The last record, a Proxy whose traps throw, is outside the guarantee: the tiers must agree on it with
      // each other (with the closure back end alone), not with evaluate.
      const closures = compile(condition, { codegen: false, cache: false });
      const expected = hostileRecords().map((record, i, all) =>
        i === all.length - 1 ? closures(record) : evaluate(condition, record as object),
      );
      const before = hostileRecords().map((record) => predicate(record));
      expect(predicate.mode).toBe("closure");
      // Switch in the middle of a stream of hostile records: every answer stays the reference's.
      const disagreements: string[] = [];
      for (let i = 0; i < CODEGEN_AFTER_CALLS + 40; i++) {
        const records = hostileRecords();
        const index = i % records.length;
        if (predicate(records[index]) !== expected[index]) disagreements.push(`call ${i}, record #${index}`);
      }
      expect(disagreements).toEqual([]);
      expect(predicate.mode).toBe("codegen");
      expect(predicate.condition).toBe(condition);
      const after = hostileRecords().map((record) => predicate(record));
      expect(before).toEqual(expected);
      expect(after).toEqual(before);
    },
  );

  it("reads each field once per evaluation in both tiers", () => {
    const predicate = compile(
      parseSearchConditions({ Status: { $in: ["Open", "Closed"] }, Owner: { $ne: "x" } }),
      {
        cache: false,
      },
    );
    const readsOf = () => {
      let reads = 0;
      const record = Object.defineProperty({ Owner: "y" }, "Status", {
        enumerable: true,
        get: () => {
          reads++;
          return "Open";
        },
      });
      expect(predicate(record)).toBe(true);
      return reads;
    };
    expect(predicate.mode).toBe("closure");
    expect(readsOf()).toBe(1);
    switched(predicate);
    expect(readsOf()).toBe(1);
  });

  it("keeps one function object, its condition, and a truthful mode", () => {
    const condition = parseSearchConditions({ Severity: "High" });
    const predicate = compile(condition, { cache: false });
    expect(Object.keys(predicate)).toEqual(["condition", "mode"]);
    expect(predicate.mode).toBe("closure");
    for (let i = 1; i < CODEGEN_AFTER_CALLS; i++) predicate({ Severity: "High" });
    expect(predicate.mode).toBe("closure");
    expect(predicate({ Severity: "Low" })).toBe(false);
    expect(predicate.mode).toBe("codegen");
    expect(predicate.condition).toBe(condition);
    expect(Object.keys(predicate)).toEqual(["condition", "mode"]);
    expect(predicate({ Severity: "High" })).toBe(true);
  });

  it("counts calls per canonical form; once generated, an equal condition compiles to the code", () => {
    clearCompileCache();
    const json = { Category: { $in: ["Phishing", "Malware"] }, Owner: { $exists: true } };
    const a = compile(parseSearchConditions(json));
    const b = compile(parseSearchConditions(json));
    expect(b).not.toBe(a);
    const half = Math.ceil(CODEGEN_AFTER_CALLS / 2);
    for (let i = 0; i < half; i++) a({ Category: "Phishing", Owner: "x" });
    for (let i = 0; i < half; i++) b({ Category: "Malware" });
    expect(b.mode).toBe("codegen");
    // `a` switches on its next call (the code is already generated).
    expect(a.mode).toBe("closure");
    expect(a({ Category: "Phishing", Owner: "x" })).toBe(true);
    expect(a.mode).toBe("codegen");
    const c = compile(parseSearchConditions(json));
    expect(c.mode).toBe("codegen");
    expect(c({ Category: "Malware", Owner: null })).toBe(true);
    expect(c({ Category: "Malware" })).toBe(false);
  });

  it("compiles its wrapper from a source that holds no text of the condition", () => {
    const field = "pwnedByWrapper";
    const predicate = compile(parseSearchConditions({ [field]: "x", Status: "Open" }), { cache: false });
    expect(String(predicate)).not.toContain(field);
    expect(String(predicate)).not.toContain("Open");
    expect(predicate({ [field]: "x", Status: "Open" })).toBe(true);
    switched(predicate);
    expect(predicate({ [field]: "x", Status: "Open" })).toBe(true);
    expect(predicate({ [field]: "y", Status: "Open" })).toBe(false);
  });

  it("keeps a frozen predicate on closures", () => {
    const predicate = Object.freeze(compile(parseSearchConditions({ Status: "Open" }), { cache: false }));
    for (let i = 0; i < 2 * CODEGEN_AFTER_CALLS; i++) expect(predicate({ Status: "Open" })).toBe(true);
    expect(predicate.mode).toBe("closure");
    expect(predicate({ Status: "Closed" })).toBe(false);
  });

  it("never switches with codegen: false", () => {
    const predicate = compile(parseSearchConditions({ Status: "Open" }), { codegen: false, cache: false });
    for (let i = 0; i < 2 * CODEGEN_AFTER_CALLS; i++) predicate({ Status: "Open" });
    expect(predicate.mode).toBe("closure");
    expect(predicate({ Status: "Open" })).toBe(true);
  });
});

describe("compile where code generation is forbidden (a Content-Security-Policy without unsafe-eval)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  /** A `Function` constructor that refuses, as a CSP does. */
  class ForbiddenFunction {
    constructor() {
      throw new EvalError("Code generation from strings disallowed for this context");
    }
  }

  it("compiles to closures that never try to switch", async () => {
    vi.resetModules();
    const fresh = await import("./compile.js");
    const { parseSearchConditions: parse } = await import("./parse.js");
    vi.stubGlobal("Function", ForbiddenFunction);
    const predicate = fresh.compile(parse({ Status: "Open" }), { cache: false });
    expect(predicate.mode).toBe("closure");
    for (let i = 0; i < 2 * fresh.CODEGEN_AFTER_CALLS; i++) expect(predicate({ Status: "Open" })).toBe(true);
    expect(predicate.mode).toBe("closure");
    expect(predicate({ Status: "Closed" })).toBe(false);
  });

  it("keeps a tiered predicate on closures when generating its code is refused", async () => {
    vi.resetModules();
    const fresh = await import("./compile.js");
    const { parseSearchConditions: parse } = await import("./parse.js");
    const predicate = fresh.compile(parse({ Status: "Open" }), { cache: false });
    expect(predicate.mode).toBe("closure");
    vi.stubGlobal("Function", ForbiddenFunction);
    for (let i = 0; i < 2 * fresh.CODEGEN_AFTER_CALLS; i++) expect(predicate({ Status: "Open" })).toBe(true);
    expect(predicate.mode).toBe("closure");
    expect(predicate([])).toBe(false);
    expect(fresh.compile(parse({ Severity: "High" }), { cache: false }).mode).toBe("closure");
  });
});

describe("compile: a Proxy whose trap throws (as the doc comment of Predicate says)", () => {
  const record = (trap: string) =>
    new Proxy(
      { Status: "Closed" },
      {
        [trap]: () => {
          throw new Error("trap");
        },
      },
    );
  const queries = [{ Status: { $ne: "Open" } }, { Status: "Closed" }, { Status: { $exists: false } }];
  const backEnds = (raw: unknown) => {
    const condition = parseSearchConditions(raw);
    const generated = switched(compile(condition, { cache: false }));
    return [compile(condition, { codegen: false, cache: false }), generated];
  };

  it("a throwing get trap reads as a missing field, in both back ends", () => {
    const answers = queries.map((raw) => backEnds(raw).map((predicate) => predicate(record("get"))));
    expect(answers).toEqual([
      [true, true],
      [false, false],
      [true, true],
    ]);
  });

  it.each(["getOwnPropertyDescriptor", "has", "getPrototypeOf", "ownKeys"])(
    "a throwing %s trap (outside the guarantee) never makes a predicate throw",
    (trap) => {
      for (const raw of queries) {
        for (const predicate of backEnds(raw)) expect(typeof predicate(record(trap))).toBe("boolean");
      }
    },
  );
});
