import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { hostile } from "../../test/support/conditions-input.js";
import { fcOptions } from "../../test/support/fc.js";
import type { Condition } from "../conditions/ast.js";
import { clearCompileCache, compileCacheStats } from "../conditions/compile.js";
import { evaluate } from "../conditions/evaluate.js";
import { SearchConditionsError } from "../conditions/issues.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { IncidentSet } from "./incident-set.js";
import { compareOrderKeys, orderKeyOf } from "./order.js";

type Incident = Record<string, unknown>;

const at = (iso: string) => iso;

/** A small site: creation times out of insertion order, a tie, undated incidents, odd ids. */
const incidents: Incident[] = [
  {
    IncidentId: 5,
    Number: "N-5",
    Severity: "High",
    Status: "Open",
    CreatedUtcTime: at("2024-03-01T00:00:00Z"),
  },
  {
    IncidentId: 2,
    Number: "N-2",
    Severity: "High",
    Status: "Closed",
    CreatedUtcTime: at("2024-01-01T00:00:00Z"),
  },
  {
    IncidentId: 9,
    Number: "N-9",
    Severity: "Low",
    Status: "Open",
    CreatedUtcTime: new Date("2024-01-01T00:00:00Z"),
  },
  { IncidentId: 1, Number: "N-1", Severity: "High", Status: "Open" },
  { IncidentId: 3, Number: "N-3", Severity: "High", Status: "Open", CreatedUtcTime: "not a date" },
  { Number: "N-x", Severity: "High", Status: "Open", CreatedUtcTime: at("2024-01-01T00:00:00Z") },
  { IncidentId: "0", Number: "N-s", Severity: "High", Status: "Open" },
  {
    IncidentId: 4,
    Number: "N-4",
    Severity: "Critical",
    Status: "On Hold",
    CreatedUtcTime: at("2023-06-01T00:00:00Z"),
  },
];
const ids = (list: readonly Incident[]) => list.map((i) => i.Number);

describe("IncidentSet: the order of docs/semantics.md 1.9", () => {
  const set = new IncidentSet(incidents);

  it("lists matches by CreatedUtcTime, ties by IncidentId, undated after dated, non-numeric ids last", () => {
    expect(ids(set.findAll({}))).toEqual(["N-4", "N-2", "N-9", "N-x", "N-5", "N-1", "N-3", "N-s"]);
  });

  it.each([
    [{ Severity: "High" }, "N-2"],
    [{ Severity: "High", Status: "Open" }, "N-x"],
    [{ Status: "Open", CreatedUtcTime: { $gt: { $date: "2024-01-15T00:00:00Z" } } }, "N-5"],
    [{ Severity: "Low" }, "N-9"],
    [{ CreatedUtcTime: { $exists: false } }, "N-1"],
    [[{ Number: "N-3" }, { Number: "N-s" }], "N-3"],
    [{ Number: { $in: ["N-s", "N-1", "N-5"] } }, "N-5"],
    [{ Severity: "Informational" }, undefined],
  ])("findFirst(%j) is %s", (conditions, expected) => {
    expect(set.findFirst(conditions)?.Number).toBe(expected);
    expect(set.findFirst(parseSearchConditions(conditions))?.Number).toBe(expected);
  });

  it("returns the caller's objects and never modifies them", () => {
    const frozen = incidents.map((incident) => Object.freeze({ ...incident }));
    const frozenSet = new IncidentSet(frozen);
    const first = frozenSet.findFirst({ Severity: "Critical" });
    expect(first).toBe(frozen[7]);
    expect(frozenSet.findAll({ Status: "Open" }).every((i) => frozen.includes(i))).toBe(true);
  });
});

describe("IncidentSet: inputs", () => {
  it("parses raw JSON and throws SearchConditionsError listing every issue", () => {
    const set = new IncidentSet(incidents);
    try {
      set.count({ Severity: "high", CreatedUtcTime: "2024-01-01" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SearchConditionsError);
      expect((error as SearchConditionsError).issues.map((issue) => issue.path[0])).toEqual([
        "Severity",
        "CreatedUtcTime",
      ]);
    }
    expect(() => set.findFirst([])).toThrow(SearchConditionsError);
    expect(() => set.findAll(hostile("Title"))).toThrow(SearchConditionsError);
  });

  it("uses a parsed Condition as is, and parses anything else, even shaped like a node (docs/semantics.md 1.1)", () => {
    const set = new IncidentSet(incidents);
    expect(set.count(parseSearchConditions({ Severity: "Low" }))).toBe(1);
    const handBuilt: Condition = {
      kind: "eq",
      path: ["Severity"],
      fieldKind: "enum",
      operand: { type: "string", value: "Low" },
    };
    expect(() => set.count(handBuilt)).toThrow(SearchConditionsError);
    // Shaped like a node, with a forged regex and an out-of-limit depth: raw JSON, refused by the parser.
    const forged = JSON.parse(
      '{"kind": "regex", "path": ["Title"], "fieldKind": "text", "source": "(a)\\\\1", "flags": ""}',
    );
    expect(() => set.count(forged)).toThrow(SearchConditionsError);
    let deep: unknown = { kind: "exists", path: ["Title"], fieldKind: "text", exists: true };
    for (let i = 0; i < 100; i++) deep = { kind: "not", child: deep };
    expect(() => set.count(hostile(deep))).toThrow(SearchConditionsError);
  });

  it("refuses records that are not objects, naming their position", () => {
    expect(() => new IncidentSet([{ IncidentId: 1 }, null as unknown as Incident])).toThrow(
      "Expected an incident object at position 1, found null.",
    );
    expect(() => new IncidentSet<Incident>().add(["x"] as unknown as Incident)).toThrow(TypeError);
  });

  it("reads fields as docs/semantics.md 1.1 (revised): own properties, data or accessor; inherited and throwing are missing", () => {
    let calls = 0;
    const withGetter = Object.defineProperty({ IncidentId: 1 }, "Severity", {
      get: () => {
        calls++;
        return "High";
      },
      enumerable: true,
    });
    const throwing = Object.defineProperty({ IncidentId: 4 }, "Severity", {
      get: () => {
        throw new Error("unreadable");
      },
      enumerable: true,
    });
    const inherited = Object.assign(Object.create({ Severity: "High" }) as Incident, { IncidentId: 2 });
    const set = new IncidentSet<Incident>([
      withGetter,
      inherited,
      { IncidentId: 3, Severity: "High" },
      throwing,
    ]);
    expect(calls).toBe(1); // read once, when added
    expect(set.count({ Severity: "High" })).toBe(2);
    expect(set.count({ Severity: { $exists: false } })).toBe(2);
    expect(set.findAll({ Severity: { $exists: false } }).map((i) => i.IncidentId)).toEqual([2, 4]);
  });

  it("keeps the record type", () => {
    interface Row {
      IncidentId: number;
      Title: string;
    }
    const set = new IncidentSet<Row>([{ IncidentId: 1, Title: "x" }]);
    expectTypeOf(set.findFirst({ Title: "x" })).toEqualTypeOf<Row | undefined>();
    expectTypeOf(set.findAll({ Title: "x" })).toEqualTypeOf<Row[]>();
    expect(set.add({ IncidentId: 2, Title: "y" })).toBe(set);
    expect(set.size).toBe(2);
  });
});

describe("IncidentSet: access paths", () => {
  const many: Incident[] = Array.from({ length: 4000 }, (_, i) => ({
    IncidentId: i + 1,
    Number: `N-${i + 1}`,
    ExternalKey: `EXT-${i % 1000}`,
    Severity: ["Critical", "High", "Medium", "Low", "Informational"][i % 97 === 0 ? 0 : 1 + (i % 4)],
    Status: i % 3 === 0 ? "Closed" : "Open",
    CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + ((i * 7919) % 4000) * 3_600_000).toISOString(),
    Title: `Incident ${i}`,
  }));
  const set = new IncidentSet(many);

  it.each([
    [{ Number: "N-1234" }, /^hash Number$/],
    [{ ExternalKey: "EXT-7", Status: "Open" }, /^hash ExternalKey$/],
    [
      { CreatedUtcTime: { $gte: { $date: "2024-02-01T00:00:00Z" }, $lt: { $date: "2024-02-02T00:00:00Z" } } },
      /^date-range CreatedUtcTime$/,
    ],
    [{ Severity: "Critical" }, /^postings Severity$/],
    [{ Status: "Open" }, /^scan$/],
    [[{ Number: "N-5" }, { Severity: "Critical" }], /^union\(hash Number, postings Severity\)$/],
  ])("findFirst(%j) uses %s", (conditions, path) => {
    expect(set.explain(conditions).findFirst).toMatch(path);
  });

  it("compiles the row predicate of a query only when a row needs it", () => {
    clearCompileCache();
    // The columns answer these alone (a dictionary, a date interval, a text column with its trigram index).
    const answered = [
      { Severity: "High", Status: "Open" },
      { CreatedUtcTime: { $gte: { $date: "2024-02-01T00:00:00Z" } } },
      { Title: { $regex: "^Incident 12" } },
    ];
    const titled = new IncidentSet(many, { maxDictionary: 100 });
    for (const query of answered) {
      const expected = many.filter((incident) => evaluate(parseSearchConditions(query), incident));
      expect(titled.findAll(query)).toEqual(
        expected.sort((a, b) => String(a.CreatedUtcTime).localeCompare(String(b.CreatedUtcTime))),
      );
      expect(titled.count(query)).toBe(expected.length);
    }
    expect(compileCacheStats().entries).toBe(0);
    // A field no column holds: the predicate decides, compiled once.
    expect(titled.count({ Owner: "x" })).toBe(0);
    expect(compileCacheStats().entries).toBe(1);
  });

  it("plans count/findAll on columns, with the row predicate only for what columns cannot answer", () => {
    // Title has 4000 distinct values: a column under the default limit (the regex runs once per value),
    // a text column under a limit of 1000 (no trigram in "9$": the regex runs per row, on the rows the
    // other columns leave, memoized per value), dropped with the text index off (the row predicate).
    expect(set.explain({ Severity: "High", Title: { $regex: "9$" } }).columns).toMatch(
      /^and\(dictionary Title \(400 true, 0 unknown\), dictionary Severity \(\d+ true, 0 unknown\)\)$/,
    );
    expect(
      new IncidentSet(many, { maxDictionary: 1000 }).explain({ Severity: "High", Title: { $regex: "9$" } }),
    ).toMatchObject({
      columns: expect.stringMatching(
        /^and\(dictionary Severity \(\d+ true, 0 unknown\), text Title \(per row, memo per value\)\)$/,
      ),
      count: expect.stringMatching(/, then per row text Title \(per row, memo per value\)$/),
    });
    expect(
      new IncidentSet(many, { maxDictionary: 1000, textIndex: false }).explain({
        Severity: "High",
        Title: { $regex: "9$" },
      }).columns,
    ).toMatch(/^and\(dictionary Severity \(\d+ true, 0 unknown\), row predicate \(regex\)\)$/);
  });

  it("answers each path like a scan", () => {
    const scan = (predicate: (i: Incident) => boolean) =>
      many
        .filter(predicate)
        .sort(
          (a, b) =>
            String(a.CreatedUtcTime).localeCompare(String(b.CreatedUtcTime)) ||
            Number(a.IncidentId) - Number(b.IncidentId),
        );
    expect(set.findAll({ ExternalKey: "EXT-7", Status: "Open" })).toEqual(
      scan((i) => i.ExternalKey === "EXT-7" && i.Status === "Open"),
    );
    expect(set.findAll({ Severity: "Critical", Status: "Closed" })).toEqual(
      scan((i) => i.Severity === "Critical" && i.Status === "Closed"),
    );
    expect(set.count({ Severity: { $ne: "Critical" }, Status: { $nin: ["Closed"] } })).toBe(
      scan((i) => i.Severity !== "Critical" && i.Status !== "Closed").length,
    );
    // Three dictionary columns, and two with a date interval: one fused pass over the columns.
    expect(set.findAll({ Severity: { $ne: "Critical" }, Status: "Open", Title: { $regex: "1" } })).toEqual(
      scan((i) => i.Severity !== "Critical" && i.Status === "Open" && String(i.Title).includes("1")),
    );
    expect(
      set.count({
        Severity: "High",
        Status: "Open",
        CreatedUtcTime: { $gte: { $date: "2024-03-01T00:00:00Z" } },
      }),
    ).toBe(
      scan(
        (i) =>
          i.Severity === "High" &&
          i.Status === "Open" &&
          Date.parse(String(i.CreatedUtcTime)) >= Date.UTC(2024, 2, 1),
      ).length,
    );
    expect(
      set.findFirst({ CreatedUtcTime: { $gt: { $date: "2024-03-01T00:00:00Z" } }, Severity: "Critical" }),
    ).toBe(scan((i) => String(i.CreatedUtcTime) > "2024-03-01T00:00:00Z" && i.Severity === "Critical")[0]);
  });
});

describe("IncidentSet: AND of dictionary leaves (per-code bitsets)", () => {
  const value = fc.oneof(
    fc.constantFrom("Open", "Closed", "Triage", "Splunk", null, undefined),
    fc.integer({ min: 0, max: 3 }),
  );
  const leaf = fc.oneof(
    fc.record({
      op: fc.constantFrom("$eq", "$ne"),
      operand: fc.constantFrom("Open", "Closed", "Triage", null),
    }),
    fc.record({
      op: fc.constantFrom("$in", "$nin"),
      operand: fc.array(fc.constantFrom("Open", "Closed", "Splunk", null), { maxLength: 3 }),
    }),
  );
  const field = fc.constantFrom("Type", "Stage", "DataSource");

  it("counts like evaluate, before and after more incidents are added", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ Type: value, Stage: value, DataSource: value }), { maxLength: 80 }),
        fc.array(fc.record({ Type: value, Stage: value }), { maxLength: 10 }),
        fc.array(fc.tuple(field, leaf), { minLength: 2, maxLength: 4 }),
        (first, later, leaves) => {
          const raw: Record<string, unknown> = {};
          for (const [name, { op, operand }] of leaves)
            raw[name] = { ...(raw[name] as object), [op]: operand };
          const condition = parseSearchConditions(raw);
          const strip = (r: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined));
          const set = new IncidentSet(first.map(strip));
          const expected = (rows: Record<string, unknown>[]) =>
            rows.filter((r) => evaluate(condition, strip(r))).length;
          expect(set.count(condition)).toBe(expected(first));
          for (const r of later) set.add(strip(r));
          expect(set.count(condition)).toBe(expected([...first, ...later]));
        },
      ),
      fcOptions(300),
    );
  });
});

describe("IncidentSet.findAll: large and small answers in creation order, before and after adds", () => {
  // Answers of every size: a large one is read from the set's copy of its records in creation order, which
  // an add must retire (record-store.ts `getAllInOrder`).
  const incident = fc.record({
    IncidentId: fc.integer({ min: 0, max: 40 }),
    CreatedUtcTime: fc.constantFrom("2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2023-06-01T00:00:00Z"),
    Severity: fc.constantFrom("High", "Low", "Medium"),
    Title: fc.constantFrom("port scan on a", "VPN seen on b", "phishing", "login"),
  });
  const condition = fc.constantFrom(
    { Severity: "High" },
    { Severity: { $in: ["High", "Low"] } },
    { Title: { $regex: "(port scan|VPN) .* on" } },
    { Title: { $regex: "phish" } },
    {},
  );

  it("returns what evaluate matches, sorted by creation order, as rows are added between queries", () => {
    fc.assert(
      fc.property(
        fc.array(incident, { minLength: 1, maxLength: 120 }),
        fc.array(fc.array(incident, { maxLength: 20 }), { minLength: 1, maxLength: 3 }),
        condition,
        (first, batches, raw) => {
          const parsed = parseSearchConditions(raw);
          const set = new IncidentSet([...first], { maxDictionary: 2 });
          const all = [...first];
          const expected = () =>
            all
              .filter((r) => evaluate(parsed, r))
              .sort((a, b) => compareOrderKeys(orderKeyOf(a), orderKeyOf(b)));
          const same = (got: object[], want: object[]) => {
            expect(got.length).toBe(want.length);
            for (const [k, record] of got.entries()) expect(record).toBe(want[k]);
          };
          same(set.findAll(parsed), expected());
          for (const batch of batches) {
            for (const r of batch) set.add(r);
            all.push(...batch);
            same(set.findAll(parsed), expected());
            same(set.findAll(parsed), expected());
          }
        },
      ),
      fcOptions(300),
    );
  });
});

describe("IncidentSet: a seed against a scan of every row", () => {
  // One incident in five is "High" (between an eighth and a quarter of the rows); dates spread over a year.
  const rows = Array.from({ length: 5000 }, (_, i) => ({
    IncidentId: i,
    Severity: ["High", "Low", "Medium", "Critical", "Low"][i % 5],
    Status: ["Open", "Closed", "In Progress", "On Hold", "Open"][(i * 7) % 5],
    CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + ((i * 7919) % 365) * 86_400_000).toISOString(),
    // 40 codes: more than a column keeps per-code bitsets for, so an AND holding it is not labels alone.
    Category: `c${i % 40}`,
  }));
  const set = new IncidentSet(rows);
  const reference = (raw: object) => {
    const condition = parseSearchConditions(raw);
    return rows.filter((row) => evaluate(condition, row)).length;
  };

  it("answers labels and a creation-time interval alone from the segment, by words", () => {
    const raw = { Severity: "High", CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" } } };
    expect(set.explain(raw).count).toBe("columns: segment CreatedUtcTime, labels by word");
    expect(set.count(raw)).toBe(reference(raw));
    expect(set.findAll(raw).length).toBe(reference(raw));
  });

  it("seeds a date interval's AND from a leaf selecting up to a quarter of the rows", () => {
    const raw = {
      Severity: "High",
      Category: { $ne: "c1" },
      CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" } },
    };
    expect(set.explain(raw).count).toBe("columns: seeded by dictionary Severity (1000 true, 0 unknown)");
    expect(set.count(raw)).toBe(reference(raw));
    expect(set.findAll(raw).length).toBe(reference(raw));
  });

  it("keeps per-code bitsets, a word at a time, at the same selectivity when no date is involved", () => {
    const raw = { Severity: "High", Status: "Open" };
    expect(set.explain(raw).count).toBe("columns: fused code bitsets");
    expect(set.count(raw)).toBe(reference(raw));
  });

  it("scans every row when no leaf selects a quarter of the rows or fewer", () => {
    const raw = {
      Severity: { $in: ["High", "Low"] },
      Category: { $ne: "c1" },
      CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" } },
    };
    expect(set.explain(raw).count).toBe("columns: fused scan with dates");
    expect(set.count(raw)).toBe(reference(raw));
  });
});
