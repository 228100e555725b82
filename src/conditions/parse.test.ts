import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { countingReads } from "../../test/support/read-counter.js";
import type { Condition, FieldKind } from "./ast.js";
import { DEFAULT_CATALOG, extendCatalog } from "./catalog.js";
import { type Issue, SearchConditionsError } from "./issues.js";
import { OPERATORS, type OperandRule, type OperatorPlace, REFUSED_OPERATORS } from "./operators.js";
import type { ParseOptions } from "./options.js";
import {
  parseSearchConditions,
  type SafeParseResult,
  safeParseSearchConditions,
  suggestLabel,
} from "./parse.js";

const s = (value: string) => ({ type: "string", value }) as const;
const n = (value: number) => ({ type: "number", value }) as const;
const d = (iso: string) => ({ type: "date", value: Date.parse(iso) }) as const;
const at = (field: string, fieldKind: FieldKind) => ({ path: field.split("."), fieldKind });

const custom = extendCatalog(DEFAULT_CATALOG, {
  fields: {
    "Custom.Owner": { kind: "text" },
    Seen: { kind: "date" },
    Tier: { kind: "enum", labels: ["Gold", "Silver"] },
  },
  alternativeFields: ["Tier", "Custom.Owner"],
});

function issuesOf(input: unknown, options?: ParseOptions): readonly Issue[] {
  const result = safeParseSearchConditions(input, options);
  return result.success ? [] : result.issues;
}

describe("parseSearchConditions: shapes (docs/semantics.md 1.1)", () => {
  const cases: readonly (readonly [string, unknown, Condition, ParseOptions?])[] = [
    ["{} matches every incident", {}, { kind: "and", children: [] }],
    [
      "one entry is that node itself",
      { Title: "a" },
      { kind: "eq", ...at("Title", "text"), operand: s("a") },
    ],
    [
      "several entries are an and, in key order",
      { Title: "a", Count: 2 },
      {
        kind: "and",
        children: [
          { kind: "eq", ...at("Title", "text"), operand: s("a") },
          { kind: "eq", ...at("Count", "open"), operand: n(2) },
        ],
      },
    ],
    [
      "an array of objects is an or, even of one",
      [{ Title: "a" }],
      { kind: "or", children: [{ kind: "eq", ...at("Title", "text"), operand: s("a") }] },
    ],
    [
      "an array may hold {}",
      [{}, { Count: 1 }],
      {
        kind: "or",
        children: [
          { kind: "and", children: [] },
          { kind: "eq", ...at("Count", "open"), operand: n(1) },
        ],
      },
    ],
    [
      "$and of one stays an and",
      { $and: [{ Count: 1 }] },
      { kind: "and", children: [{ kind: "eq", ...at("Count", "open"), operand: n(1) }] },
    ],
    [
      "$or and $nor beside a field",
      { $or: [{ Count: 1 }, { Count: 2 }], $nor: [{ Title: "x" }], Status: "Open" },
      {
        kind: "and",
        children: [
          {
            kind: "or",
            children: [
              { kind: "eq", ...at("Count", "open"), operand: n(1) },
              { kind: "eq", ...at("Count", "open"), operand: n(2) },
            ],
          },
          { kind: "nor", children: [{ kind: "eq", ...at("Title", "text"), operand: s("x") }] },
          { kind: "eq", ...at("Status", "enum"), operand: s("Open") },
        ],
      },
    ],
    [
      "dotted field paths",
      { "Custom.Owner": "alice" },
      { kind: "eq", ...at("Custom.Owner", "open"), operand: s("alice") },
    ],
    [
      "a dotted path declared in the catalogue",
      { "Custom.Owner": "alice" },
      { kind: "eq", ...at("Custom.Owner", "text"), operand: s("alice") },
      { catalog: custom },
    ],
    [
      "names of Object.prototype are open fields",
      { toString: "x", hasOwnProperty: 1 },
      {
        kind: "and",
        children: [
          { kind: "eq", ...at("toString", "open"), operand: s("x") },
          { kind: "eq", ...at("hasOwnProperty", "open"), operand: n(1) },
        ],
      },
    ],
  ];
  it.each(cases)("%s", (_name, input, expected, options) => {
    expect(parseSearchConditions(input, options as ParseOptions | undefined)).toEqual(expected);
  });
});

describe("parseSearchConditions: values and operands (docs/semantics.md 1.2, 1.4)", () => {
  const cases: readonly (readonly [string, unknown, Condition, ParseOptions?])[] = [
    ["a number", { Count: 3 }, { kind: "eq", ...at("Count", "open"), operand: n(3) }],
    ["-0 is read as 0", { Count: -0 }, { kind: "eq", ...at("Count", "open"), operand: n(0) }],
    [
      "a boolean",
      { Flag: false },
      { kind: "eq", ...at("Flag", "open"), operand: { type: "boolean", value: false } },
    ],
    [
      "null on a text field",
      { Title: null },
      { kind: "eq", ...at("Title", "text"), operand: { type: "null" } },
    ],
    [
      "null on a date field",
      { CreatedUtcTime: null },
      { kind: "eq", ...at("CreatedUtcTime", "date"), operand: { type: "null" } },
    ],
    [
      "a $date direct value",
      { CreatedUtcTime: { $date: "2024-03-01T12:00:00.250Z" } },
      { kind: "eq", ...at("CreatedUtcTime", "date"), operand: d("2024-03-01T12:00:00.250Z") },
    ],
    [
      "a $numberLong date",
      { CreatedUtcTime: { $ne: { $date: { $numberLong: "1704067200000" } } } },
      { kind: "ne", ...at("CreatedUtcTime", "date"), operand: d("2024-01-01T00:00:00Z") },
    ],
    [
      "a negative $numberLong date (before 1970)",
      { When: { $date: { $numberLong: "-86400000" } } },
      { kind: "eq", ...at("When", "open"), operand: d("1969-12-31T00:00:00Z") },
    ],
    [
      "the first instant of year 0000",
      { When: { $date: "0000-01-01T00:00:00Z" } },
      { kind: "eq", ...at("When", "open"), operand: { type: "date", value: -62167219200000 } },
    ],
    [
      "pipe alternatives, trimmed, in order",
      { IngestionType: " Webhook | Schedule Job|File " },
      {
        kind: "in",
        ...at("IngestionType", "enum"),
        operands: [s("Webhook"), s("Schedule Job"), s("File")],
        fromPipe: true,
      },
    ],
    [
      "pipe alternatives are de-duplicated",
      { Status: "Open|Open|Closed" },
      { kind: "in", ...at("Status", "enum"), operands: [s("Open"), s("Closed")], fromPipe: true },
    ],
    [
      "a pipe is an ordinary character on a text field",
      { Title: "a|b" },
      { kind: "eq", ...at("Title", "text"), operand: s("a|b") },
    ],
    [
      "a pipe is an ordinary character in $eq on an alternative field",
      { Custom: { $eq: "a|b" } },
      { kind: "eq", ...at("Custom", "open"), operand: s("a|b") },
    ],
    [
      "pipe alternatives on a custom alternative text field",
      { "Custom.Owner": "alice|bob" },
      { kind: "in", ...at("Custom.Owner", "text"), operands: [s("alice"), s("bob")], fromPipe: true },
      { catalog: custom },
    ],
    [
      "$in de-duplicates operands of the same type and value, dates by instant",
      {
        Anything: {
          $in: [
            1,
            "1",
            1,
            null,
            null,
            { $date: "1970-01-01T00:00:00Z" },
            { $date: { $numberLong: "0" } },
            true,
          ],
        },
      },
      {
        kind: "in",
        ...at("Anything", "open"),
        operands: [
          n(1),
          s("1"),
          { type: "null" },
          d("1970-01-01T00:00:00Z"),
          { type: "boolean", value: true },
        ],
        fromPipe: false,
      },
    ],
    [
      "$in: [] is allowed",
      { Tags: { $in: [] } },
      { kind: "in", ...at("Tags", "open"), operands: [], fromPipe: false },
    ],
    [
      "$nin and $all",
      { Tags: { $nin: ["a"], $all: ["b", "b", "c"] } },
      {
        kind: "and",
        children: [
          { kind: "nin", ...at("Tags", "open"), operands: [s("a")] },
          { kind: "all", ...at("Tags", "open"), operands: [s("b"), s("c")] },
        ],
      },
    ],
    [
      "$in with null and $date on a date field",
      { CreatedUtcTime: { $in: [null, { $date: "2024-01-01T00:00:00Z" }] } },
      {
        kind: "in",
        ...at("CreatedUtcTime", "date"),
        operands: [{ type: "null" }, d("2024-01-01T00:00:00Z")],
        fromPipe: false,
      },
    ],
    [
      "$regex with $options sorted",
      { Title: { $options: "si", $regex: "^Phish" } },
      { kind: "regex", ...at("Title", "text"), source: "^Phish", flags: "is" },
    ],
    [
      "$regex with empty $options",
      { Title: { $regex: "x", $options: "" } },
      { kind: "regex", ...at("Title", "text"), source: "x", flags: "" },
    ],
    ["$exists", { Title: { $exists: false } }, { kind: "exists", ...at("Title", "text"), exists: false }],
    ["$size", { Tags: { $size: 0 } }, { kind: "size", ...at("Tags", "open"), size: 0 }],
    [
      "$not with a $regex",
      { Title: { $not: { $regex: "^x", $options: "i" } } },
      { kind: "not", child: { kind: "regex", ...at("Title", "text"), source: "^x", flags: "i" } },
    ],
    [
      "$not with several operators holds an and",
      { Count: { $not: { $gte: 1, $lte: 5, $ne: 3 } } },
      {
        kind: "not",
        child: {
          kind: "and",
          children: [
            {
              kind: "range",
              ...at("Count", "open"),
              lower: { operand: n(1), inclusive: true },
              upper: { operand: n(5), inclusive: true },
            },
            { kind: "ne", ...at("Count", "open"), operand: n(3) },
          ],
        },
      },
    ],
  ];
  it.each(cases)("%s", (_name, input, expected, options) => {
    expect(parseSearchConditions(input, options as ParseOptions | undefined)).toEqual(expected);
  });
});

describe("parseSearchConditions: ranges (docs/semantics.md 1.3, 1.5)", () => {
  const cases: readonly (readonly [string, unknown, Condition])[] = [
    [
      "$gt and $lt of one type merge into one range",
      { Count: { $gt: 1, $lt: 9 } },
      {
        kind: "range",
        ...at("Count", "open"),
        lower: { operand: n(1), inclusive: false },
        upper: { operand: n(9), inclusive: false },
      },
    ],
    [
      "the order of the keys does not matter",
      { Count: { $lte: 9, $gte: 1 } },
      {
        kind: "range",
        ...at("Count", "open"),
        lower: { operand: n(1), inclusive: true },
        upper: { operand: n(9), inclusive: true },
      },
    ],
    [
      "different operand types make an and of ranges",
      { Value: { $gt: 1, $lt: "z" } },
      {
        kind: "and",
        children: [
          { kind: "range", ...at("Value", "open"), lower: { operand: n(1), inclusive: false } },
          { kind: "range", ...at("Value", "open"), upper: { operand: s("z"), inclusive: false } },
        ],
      },
    ],
    [
      "two lower bounds of one type are kept as two ranges",
      { Count: { $gt: 5, $gte: 3, $lt: 9 } },
      {
        kind: "and",
        children: [
          {
            kind: "range",
            ...at("Count", "open"),
            lower: { operand: n(5), inclusive: false },
            upper: { operand: n(9), inclusive: false },
          },
          { kind: "range", ...at("Count", "open"), lower: { operand: n(3), inclusive: true } },
        ],
      },
    ],
    [
      "ranges keep their place among other operators",
      { Count: { $ne: 4, $gt: 1, $exists: true, $lt: 9 } },
      {
        kind: "and",
        children: [
          { kind: "ne", ...at("Count", "open"), operand: n(4) },
          {
            kind: "range",
            ...at("Count", "open"),
            lower: { operand: n(1), inclusive: false },
            upper: { operand: n(9), inclusive: false },
          },
          { kind: "exists", ...at("Count", "open"), exists: true },
        ],
      },
    ],
    [
      "string ranges on a text field",
      { Title: { $gte: "a", $lt: "b" } },
      {
        kind: "range",
        ...at("Title", "text"),
        lower: { operand: s("a"), inclusive: true },
        upper: { operand: s("b"), inclusive: false },
      },
    ],
    [
      "a range needs no label on an enumerated field",
      { Severity: { $gt: "A" } },
      { kind: "range", ...at("Severity", "enum"), lower: { operand: s("A"), inclusive: false } },
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(parseSearchConditions(input)).toEqual(expected);
  });
});

describe("parseSearchConditions: the catalogue (docs/semantics.md 1.6)", () => {
  it("accepts labels added to the catalogue and custom date fields", () => {
    expect(
      parseSearchConditions(
        { Tier: "Gold|Silver", Seen: { $lt: { $date: "2024-01-01T00:00:00Z" } } },
        { catalog: custom },
      ),
    ).toEqual({
      kind: "and",
      children: [
        { kind: "in", ...at("Tier", "enum"), operands: [s("Gold"), s("Silver")], fromPipe: true },
        {
          kind: "range",
          ...at("Seen", "date"),
          upper: { operand: d("2024-01-01T00:00:00Z"), inclusive: false },
        },
      ],
    });
  });

  it("suggests the nearest label, preferring a case-insensitive match", () => {
    const labels = ["Critical", "High", "Medium", "Low", "Informational"];
    const table: readonly (readonly [string, string | undefined])[] = [
      ["high", "High"],
      ["HIGH", "High"],
      ["Hihg", "High"],
      ["Critcal", "Critical"],
      ["Info", "Informational"],
      ["Lwo", "Low"],
      ["Banana", undefined],
      ["", undefined],
      ["x".repeat(10_000), undefined],
    ];
    for (const [label, suggestion] of table)
      expect([label.slice(0, 12), suggestLabel(label, labels)]).toEqual([label.slice(0, 12), suggestion]);
    expect(suggestLabel("Manual", ["Manual Creation", "Manual Escalation"])).toBeUndefined();
    expect(suggestLabel("manual creation", ["Manual Creation", "Manual Escalation"])).toBe("Manual Creation");
  });
});

describe("safeParseSearchConditions: result type", () => {
  it("returns a non-empty issue tuple on failure", () => {
    expectTypeOf<Extract<SafeParseResult, { success: false }>["issues"]>().toEqualTypeOf<
      [Issue, ...Issue[]]
    >();
    const result = safeParseSearchConditions({ $where: "1" });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.issues[0].code).toBe("unknown_operator");
  });

  it("throws SearchConditionsError whose message lists path: message", () => {
    expect(() => parseSearchConditions({ CreatedUtcTime: { $gt: { $date: "x" } } })).toThrowError(
      /^CreatedUtcTime\.\$gt\.\$date: Expected a date/,
    );
  });
});

describe("untrusted input (never crashes, never invokes user code, never pollutes)", () => {
  it("does not invoke getters, even on arrays", () => {
    let calls = 0;
    const object = { Title: "a" };
    Object.defineProperty(object, "Severity", {
      enumerable: true,
      get() {
        calls++;
        throw new Error("boom");
      },
    });
    const array = ["a"];
    Object.defineProperty(array, 1, {
      enumerable: true,
      get() {
        calls++;
        return "b";
      },
    });
    expect(issuesOf(object).map((i) => [i.code, i.path])).toEqual([["invalid_type", ["Severity"]]]);
    expect(issuesOf({ Tags: { $in: array } }).map((i) => [i.code, i.path])).toEqual([
      ["invalid_type", ["Tags", "$in", 1]],
    ]);
    expect(calls).toBe(0);
  });

  it("survives proxies whose traps throw, and revoked proxies", () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("get");
        },
        ownKeys: () => {
          throw new Error("ownKeys");
        },
        getOwnPropertyDescriptor: () => {
          throw new Error("gopd");
        },
        getPrototypeOf: () => {
          throw new Error("proto");
        },
      },
    );
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    const lying = new Proxy({} as Record<string, unknown>, {
      ownKeys: () => ["Title"],
      getOwnPropertyDescriptor: () => undefined,
    });
    for (const input of [
      hostile,
      revocable.proxy,
      { Title: hostile },
      { Tags: { $in: [revocable.proxy] } },
    ]) {
      const result = safeParseSearchConditions(input);
      expect(result.success).toBe(false);
      expect(() => parseSearchConditions(input)).toThrowError(SearchConditionsError);
    }
    // A proxy that lists a key without a descriptor has no enumerable keys (Object.keys): it reads as {}.
    expect(parseSearchConditions(lying)).toEqual({ kind: "and", children: [] });
  });

  it("refuses class instances and non-JSON values with invalid_type", () => {
    class Query {
      Title = "a";
    }
    for (const input of [new Query(), new Date(0), /x/, () => ({}), Symbol("x"), 1n, new Map(), Number.NaN]) {
      expect(issuesOf(input).map((i) => [i.code, i.path])).toEqual([["invalid_type", []]]);
    }
  });

  it("accepts objects without a prototype", () => {
    const object = Object.create(null) as Record<string, unknown>;
    object.Title = "a";
    expect(parseSearchConditions(object)).toEqual({ kind: "eq", ...at("Title", "text"), operand: s("a") });
  });

  it("ignores symbol keys and non-enumerable properties, like JSON", () => {
    const object: Record<string | symbol, unknown> = { Title: "a", [Symbol("x")]: 1 };
    Object.defineProperty(object, "Hidden", { value: { $where: "1" }, enumerable: false });
    expect(parseSearchConditions(object)).toEqual({ kind: "eq", ...at("Title", "text"), operand: s("a") });
  });

  it("does not touch Object.prototype for prototype-named keys", () => {
    const inputs = [
      JSON.parse('{"__proto__": {"polluted": 1}}'),
      JSON.parse('{"Title": {"__proto__": {"polluted": 1}}}'),
      JSON.parse('{"constructor": {"prototype": {"polluted": 1}}}'),
      JSON.parse('{"a.__proto__.polluted": 1}'),
      JSON.parse('{"$or": [{"__proto__": {"polluted": 1}}]}'),
    ];
    for (const input of inputs) {
      expect(issuesOf(input).some((issue) => issue.code === "forbidden_key")).toBe(true);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("never throws anything but SearchConditionsError, for anything (property)", () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withTypedArray: true,
          withBoxedValues: true,
        }),
        (input) => {
          const result = safeParseSearchConditions(input);
          if (result.success) return;
          expect(result.issues.length).toBeGreaterThan(0);
          for (const issue of result.issues) expect(typeof issue.message).toBe("string");
          try {
            parseSearchConditions(input);
            expect.unreachable();
          } catch (error) {
            expect(error).toBeInstanceOf(SearchConditionsError);
          }
        },
      ),
      fcOptions(500),
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });

  it("parses JSON from any JSON text the same way twice, with issues or a condition (property)", () => {
    fc.assert(
      fc.property(fc.json({ depthSize: "medium" }), (text) => {
        const value = JSON.parse(text);
        expect(safeParseSearchConditions(value)).toEqual(safeParseSearchConditions(JSON.parse(text)));
      }),
      fcOptions(300),
    );
  });
});

describe("limits and stack safety (docs/semantics.md 1.7)", () => {
  /** At most this many reads of an input the limits refuse (the node limit is 1,000 and the depth 32). */
  const READS_BOUND = 20_000;

  /**
   * The outcome of parsing `input`, and the reads it made of the input (property reads and key listings
   * through counting proxies): "promptly" and "stops early" as counts, which a busy machine cannot fail.
   */
  function parsedCounting(input: unknown): {
    value: ReturnType<typeof safeParseSearchConditions>;
    reads: number;
  } {
    const counted = countingReads(input, { descriptors: true });
    const value = safeParseSearchConditions(counted.proxy);
    return { value, reads: counted.reads() };
  }

  const deepInputs: readonly (readonly [string, () => unknown])[] = [
    [
      "nested $and",
      () => {
        let c: unknown = { Title: "x" };
        for (let i = 0; i < 100_000; i++) c = { $and: [c] };
        return c;
      },
    ],
    [
      "nested arrays at the root",
      () => {
        let c: unknown = [];
        for (let i = 0; i < 100_000; i++) c = [c];
        return c;
      },
    ],
    [
      "nested $not",
      () => {
        let c: unknown = { $regex: "a" };
        for (let i = 0; i < 100_000; i++) c = { $not: c };
        return { Title: c };
      },
    ],
    [
      "nested arrays in $in",
      () => {
        let c: unknown = [1];
        for (let i = 0; i < 100_000; i++) c = [c];
        return { Tags: { $in: c } };
      },
    ],
    [
      "nested $numberLong-like objects",
      () => {
        let c: unknown = "0";
        for (let i = 0; i < 100_000; i++) c = { $date: c };
        return { CreatedUtcTime: c };
      },
    ],
  ];

  it.each(deepInputs)(
    "returns promptly for a depth of 100,000: %s (reads the first levels only)",
    (_name, build) => {
      const { value, reads } = parsedCounting(build());
      expect(value.success).toBe(false);
      console.info(`${_name}: ${reads} reads`);
      expect(reads).toBeLessThanOrEqual(READS_BOUND);
    },
  );

  it("returns a depth issue for the nested $and, at depth 33", () => {
    let c: unknown = { Title: "x" };
    for (let i = 0; i < 100_000; i++) c = { $and: [c] };
    const issues = issuesOf(c);
    expect(issues.map((i) => [i.code, i.path.length])).toEqual([["limit_exceeded", 32]]);
  });

  it("refuses unlimited limits as options, so a 100,000-deep input can never reach the stack's end", () => {
    let c: unknown = { Title: "x" };
    for (let i = 0; i < 100_000; i++) c = { $and: [c] };
    expect(() => issuesOf(c, { limits: { depth: Number.POSITIVE_INFINITY } })).toThrow(
      /Limit 'depth' must be an integer ≥ 0, found Infinity/,
    );
    expect(() => issuesOf(c, { limits: { nodes: Number.POSITIVE_INFINITY } })).toThrow(RangeError);
    // At the deepest configurable depth the input is refused where it passes 256 levels.
    const issues = issuesOf(c, { limits: { depth: 256, nodes: 1_000_000 } });
    expect(issues.map((i) => [i.code, i.path.length])).toEqual([["limit_exceeded", 256]]);
  });

  it("refuses cyclic inputs with a limit issue", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.$and = [cyclic];
    const array: unknown[] = [];
    array.push({ $or: array });
    for (const input of [cyclic, array]) {
      expect(issuesOf(input).map((i) => i.code)).toEqual(["limit_exceeded"]);
    }
  });

  it("stops early on huge objects and arrays", () => {
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`f${i}`, i]));
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    const huge = Array.from({ length: 1_000_000 }, (_, i) => i);
    // Listing the keys of a proxied object reads each key's descriptor (Object.keys checks that it is
    // enumerable): the wide object costs its 200,000 keys once, and no more than the bound beyond them.
    for (const [input, listed] of [
      [wide, 200_000],
      [{ Tags: { $in: sparse } }, 0],
      [{ Tags: { $nin: huge } }, 0],
    ] as const) {
      const { value, reads } = parsedCounting(input);
      expect(value.success ? [] : value.issues.map((i) => i.code)).toEqual(["limit_exceeded"]);
      console.info(`stops early: ${reads} reads`);
      expect(reads).toBeLessThanOrEqual(listed + READS_BOUND);
    }
    // Holes are each reported until the node limit stops the walk.
    for (const input of [sparse, { $or: sparse }]) {
      const { value, reads } = parsedCounting(input);
      const codes = value.success ? [] : value.issues.map((i) => i.code);
      expect(codes.at(-1)).toBe("limit_exceeded");
      expect(codes.length).toBeLessThanOrEqual(1000);
      console.info(`holes: ${reads} reads`);
      expect(reads).toBeLessThanOrEqual(READS_BOUND);
    }
  });

  it("accepts a condition at exactly each default limit", () => {
    const input = {
      Tags: { $in: Array.from({ length: 10_000 }, (_, i) => `t${i}`) },
      Title: "x".repeat(10_000),
      Summary: { $regex: "a".repeat(1_000) },
    };
    const condition = parseSearchConditions(input);
    expect(condition.kind).toBe("and");
    const wide = Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`f${i}`, i]));
    expect(safeParseSearchConditions(wide).success).toBe(true);
  });

  it("collects every problem of a large invalid $in without a hang", () => {
    const labels = Array.from({ length: 10_000 }, (_, i) => `Unknown label ${i} ${"y".repeat(500)}`);
    const { value, reads } = parsedCounting({ Severity: { $in: labels } });
    expect(value.success ? 0 : value.issues.length).toBe(10_000);
    // Each label is read a bounded number of times, not once per other label.
    console.info(`10,000 labels: ${reads} reads`);
    expect(reads).toBeLessThanOrEqual(4 * 10_000);
  });
});

describe("the operator table drives the parser (docs/semantics.md 1.1, 1.3)", () => {
  const validOperand: Readonly<Record<OperandRule, unknown>> = {
    conditions: [{ A: 1 }],
    value: 1,
    ordered: 1,
    valueSet: [1],
    pattern: "a",
    flags: "i",
    boolean: true,
    size: 1,
    operatorObject: { $eq: 1 },
    typeSet: "number",
    modulus: [2, 0],
    bitMask: [0, 3],
    elemMatch: { b: 1 },
  };
  const places: readonly OperatorPlace[] = ["condition", "field", "not"];
  const rows = Object.values(OPERATORS).flatMap((spec) => places.map((place) => [spec.name, place] as const));

  it.each(rows)("%s at %s level: accepted exactly where the table says", (name, place) => {
    const spec = OPERATORS[name];
    const operators: Record<string, unknown> = { [name]: validOperand[spec.operand] };
    if (name === "$options") operators.$regex = "a";
    const input =
      place === "condition" ? operators : place === "field" ? { A: operators } : { A: { $not: operators } };
    const path = place === "condition" ? [name] : place === "field" ? ["A", name] : ["A", "$not", name];
    const issues = issuesOf(input).map((issue) => [issue.code, issue.path]);
    if ((spec.places as readonly OperatorPlace[]).includes(place)) expect(issues).toEqual([]);
    else expect(issues).toContainEqual(["misplaced_operator", path]);
  });

  it.each(REFUSED_OPERATORS.map((name) => [name]))("%s is refused everywhere, never executed", (name) => {
    for (const [input, path] of [
      [{ [name]: "1" }, [name]],
      [{ A: { [name]: "1" } }, ["A", name]],
      [{ A: { $not: { [name]: "1" } } }, ["A", "$not", name]],
    ] as const) {
      expect(issuesOf(input).map((issue) => [issue.code, issue.path])).toEqual([["unknown_operator", path]]);
    }
  });
});
