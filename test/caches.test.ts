/**
 * The engine's caches follow one rule (docs/performance.md "Caches"): each is a `WeightedLru` bounded in
 * entries and in bytes, listed by `cacheStats()` (process-wide ones) and emptied by `clearCaches()`
 * (every one, per-object memos included). The table fills each cache past its entry bound, checks that it
 * stays within both bounds, that a clear empties it, and that answers are the same before and after a
 * clear. The scan fails when a module-level Map or WeakMap appears in the engine outside this rule.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../src/conditions/compile.js";
import { type CacheName, cacheStats, clearCaches, WeightedLru } from "../src/conditions/lru.js";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { compileRegex } from "../src/conditions/regex/matcher.js";
import { type Bitset, emptyBitset, setBit } from "../src/incidents/bitset.js";
import { IncidentSet } from "../src/incidents/incident-set.js";
import { countLabels, denseLabels, type LabelExpression } from "../src/incidents/label-bitsets.js";
import { startBudget } from "../src/incidents/search-budget.js";
import { regexGramQuery } from "../src/incidents/text/gram-query.js";
import type { TextColumn } from "../src/incidents/text/text-column.js";
import { cacheStats as rootCacheStats, clearCaches as rootClearCaches } from "../src/index.js";

/** Cased letters that fold to one other code point (each a rune `regexCaseOrbits` keeps under `i`). */
const CASED: string[] = [];
for (let c = 0x41; c < 0x10400 && CASED.length < 2600; c++) {
  const s = String.fromCodePoint(c);
  if (s.toLowerCase() !== s.toUpperCase() && s.toLowerCase().length === 1 && s.toUpperCase().length === 1)
    CASED.push(s);
}

const SIZE = 100;
/** 64 bitsets of `SIZE` rows, bitset `k` holding the rows divisible by `k + 2`. */
const BITS: Bitset[] = Array.from({ length: 64 }, (_, k) => {
  const b = emptyBitset(SIZE);
  for (let row = 0; row < SIZE; row += k + 2) setBit(b, row);
  return b;
});
/** Label shape `i` of 512: 1 to 64 bitsets, complemented or not, under a `not` or not; counted or dense. */
function labelShape(i: number): { expr: LabelExpression; dense: boolean } {
  const codes: LabelExpression = {
    kind: "codes",
    bits: BITS.slice(0, 1 + (i % 64)),
    complement: (i >> 6) % 2 === 1,
  };
  return { expr: (i >> 7) % 2 === 1 ? { kind: "not", child: codes } : codes, dense: (i >> 8) % 2 === 1 };
}
function labelAnswer(i: number): number | number[] {
  const { expr, dense } = labelShape(i);
  const timer = startBudget(undefined);
  return dense ? [...denseLabels(expr, SIZE, timer)] : countLabels(expr, SIZE, timer);
}

const incident = { Title: "Phishing 42", Severity: "High", Number: "N-42" };

interface Row {
  readonly name: CacheName;
  /** Adds entry `i` (distinct for each `i`). */
  readonly fill: (i: number) => void;
  /** How many `fill` calls reach past the entry bound. */
  readonly fills: number;
  /** Distinct entries each `fill` adds (1 but for `regexCaseOrbits`: 20 runes a pattern). */
  readonly perFill?: number;
  /** Answers computed through the cache (the same before and after a clear). */
  readonly answers: () => unknown;
}

const ROWS: readonly Row[] = [
  {
    name: "compiledPredicates",
    fill: (i) => void compile(parseSearchConditions({ Number: `N-${i}` })),
    fills: 600,
    answers: () =>
      [{ Number: "N-42" }, { Title: { $regex: "^phish", $options: "i" } }, { Severity: "Low" }].map((c) =>
        compile(parseSearchConditions(c))(incident),
      ),
  },
  {
    name: "regexMatchers",
    fill: (i) => void compileRegex(`^x${i}(a|b)`, ""),
    fills: 300,
    answers: () =>
      ["^Phish", "(?:ing|ed) \\d+$", "x{2}"].map((p) => compileRegex(p, "").test(incident.Title)),
  },
  {
    name: "regexCaseOrbits",
    fill: (i) => void compileRegex(`${CASED.slice(20 * i, 20 * i + 20).join("")}(a|b)`, "i"),
    fills: 130,
    perFill: 20,
    answers: () =>
      ["ǅ(a|b)", "σς(x|y)", "K(a|b)"].map((p) =>
        ["ǆa", "ΣΣy", "\u212aa"].map((v) => compileRegex(p, "i").test(v)),
      ),
  },
  {
    name: "gramQueries",
    fill: (i) => void regexGramQuery(`phish${i}ing`, ""),
    fills: 600,
    answers: () => ["phishing", "(abc|def)ghi", "x.y"].map((p) => regexGramQuery(p, "i")),
  },
  {
    name: "labelLoops",
    fill: (i) => void labelAnswer(i),
    fills: 300,
    answers: () => [0, 70, 200, 300].map(labelAnswer),
  },
];

describe("cacheStats and clearCaches: one rule for every engine cache", () => {
  it("lists every process-wide cache, from the package root", () => {
    expect(rootCacheStats).toBe(cacheStats);
    expect(rootClearCaches).toBe(clearCaches);
    expect(Object.keys(cacheStats()).sort()).toEqual(ROWS.map((row) => row.name).sort());
  });

  it.each(ROWS)("$name: bounded in entries and bytes, emptied by clearCaches, answers unchanged", (row) => {
    clearCaches();
    const before = row.answers();
    for (let i = 0; i < row.fills; i++) row.fill(i);
    const full = cacheStats()[row.name]!;
    // Filled past its entry bound (the fills are distinct), yet within both bounds.
    expect(row.fills * (row.perFill ?? 1)).toBeGreaterThan(full.maxEntries);
    expect(full.entries).toBeGreaterThan(0);
    expect(full.entries).toBeLessThanOrEqual(full.maxEntries);
    expect(full.bytes).toBeLessThanOrEqual(full.maxBytes);
    expect(row.answers()).toEqual(before);
    clearCaches();
    expect(cacheStats()[row.name]).toMatchObject({ entries: 0, bytes: 0 });
    expect(row.answers()).toEqual(before);
    expect(cacheStats()[row.name]!.entries).toBeGreaterThan(0);
  });

  it("the regexCaseOrbits row reaches past the bound (enough distinct cased runes)", () => {
    clearCaches();
    for (let i = 0; i < 130; i++) ROWS[2]!.fill(i);
    expect(cacheStats().regexCaseOrbits!.entries).toBe(cacheStats().regexCaseOrbits!.maxEntries);
  });

  it("a text column's pattern memos live on the column, bounded, and are emptied by clearCaches", () => {
    const many = Array.from({ length: 4000 }, (_, i) => ({
      IncidentId: i + 1,
      Severity: i % 2 === 0 ? "High" : "Low",
      CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
      Title: `Incident ${i}`,
    }));
    const set = new IncidentSet(many, { maxDictionary: 1000 });
    const query = (d: number) => ({ Severity: "High", Title: { $regex: `${d}$` } });
    expect(set.explain(query(9)).columns).toMatch(/text Title \(per row, memo per value\)/);
    const column = (set as unknown as { texts: Map<string, TextColumn> }).texts.get("Title")!;
    const answers = () => Array.from({ length: 10 }, (_, d) => set.count(query(d)));
    const expected = Array.from(
      { length: 10 },
      (_, d) => many.filter((x) => x.Severity === "High" && x.Title.endsWith(String(d))).length,
    );
    expect(answers()).toEqual(expected);
    const memos = column.memos.stats();
    expect(memos.entries).toBe(column.memos.maxEntries); // ten patterns, eight kept
    expect(memos.bytes).toBeLessThanOrEqual(column.memos.maxBytes);
    expect(memos.bytes).toBeGreaterThanOrEqual(8 * (4000 / 4));
    clearCaches();
    expect(column.memos.stats()).toEqual({ entries: 0, bytes: 0 });
    expect(answers()).toEqual(expected);
  });

  it("a text column's accept tables live on the column, bounded, emptied by clearCaches and by an add", () => {
    const many = Array.from({ length: 4000 }, (_, i) => ({ IncidentId: i + 1, Title: `Incident ${i}` }));
    const set = new IncidentSet(many, { maxDictionary: 1000 });
    // A literal of three characters or more: answered from the text index, through an accept table.
    const query = (d: number) => ({ Title: { $regex: `Incident ${d}` } });
    expect(set.explain(query(9)).columns).toMatch(/text-index Title/);
    const column = (set as unknown as { texts: Map<string, TextColumn> }).texts.get("Title")!;
    const accepts = (column as unknown as { acceptCache: WeightedLru<unknown> }).acceptCache;
    const answers = () => Array.from({ length: 10 }, (_, d) => set.count(query(d)));
    const expected = Array.from(
      { length: 10 },
      (_, d) => many.filter((x) => x.Title.includes(`Incident ${d}`)).length,
    );
    expect(answers()).toEqual(expected);
    expect(accepts.stats().entries).toBe(accepts.maxEntries); // ten patterns, eight kept
    expect(accepts.stats().bytes).toBeLessThanOrEqual(accepts.maxBytes);
    expect(accepts.stats().bytes).toBeGreaterThanOrEqual(8 * 4000);
    clearCaches();
    expect(accepts.stats()).toEqual({ entries: 0, bytes: 0 });
    expect(answers()).toEqual(expected);
    set.add({ IncidentId: 4001, Title: "Incident 4000" });
    expect(accepts.stats()).toEqual({ entries: 0, bytes: 0 });
    expect(set.count(query(4))).toBe(expected[4]! + 1);
  });
});

describe("WeightedLru: the rule", () => {
  it("drops the least recently used past either bound; an entry over the byte bound is not kept", () => {
    const lru = new WeightedLru<number>(3, 100);
    lru.set("a", 1, 40);
    lru.set("b", 2, 40);
    expect(lru.get("a")).toBe(1); // b is now the least recently used
    lru.set("c", 3, 40); // 120 bytes: b dropped
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([1, undefined, 3]);
    expect(lru.stats()).toEqual({ entries: 2, bytes: 80 });
    lru.set("d", 4, 1);
    lru.set("e", 5, 1); // four entries: a dropped
    expect(lru.get("a")).toBeUndefined();
    expect(lru.stats()).toEqual({ entries: 3, bytes: 42 });
    lru.set("huge", 6, 101);
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.stats()).toEqual({ entries: 3, bytes: 42 });
  });

  it("an instance made before clearCaches() is empty on its next use", () => {
    const lru = new WeightedLru<number>(3, 100);
    lru.set("a", 1, 10);
    clearCaches();
    expect(lru.stats()).toEqual({ entries: 0, bytes: 0 });
    expect(lru.get("a")).toBeUndefined();
    lru.set("b", 2, 10);
    expect(lru.get("b")).toBe(2);
  });
});

/**
 * Module-level Maps and WeakMaps of the engine that are not caches of this rule, each with why it is
 * bounded. A new cache belongs in src/conditions/lru.ts's rule; a new table belongs in this list with its
 * bound.
 */
const ALLOWED_TABLES: Record<string, string> = {
  "src/conditions/lru.ts registry": "the caches themselves, one entry per CacheName",
  // A derived view of an immutable catalogue, freed with it.
  "src/conditions/catalog.ts FOLDED": "weak, one entry per live catalogue",
  // The compile memo by condition identity: weak, and replaced by clearCaches().
  "src/conditions/compile.ts byCondition": "weak, emptied by clearCaches",
  // The reference interpreter's re2js pattern per `$regex` node: weak, state of the condition; evaluate
  // shares no module with the fast paths (test/layers.test.ts), this one included.
  "src/conditions/evaluate.ts PATTERNS": "weak, one entry per live $regex node",
  "src/conditions/operators.ts TYPE_CODES": "constant",
  // The line and message of an error a build threw for a line (a parallel build numbers it again): weak,
  // freed with the error.
  "src/incidents/ndjson-parts.ts LINE_ERRORS": "weak, one entry per live error thrown for a line",
  "src/conditions/operators.ts NON_JSON_TYPES": "constant",
  // A memo of a pure function on cased code points: at most the ~3,000 of Unicode.
  "src/timeline/filter.ts foldCache": "bounded by Unicode's cased code points",
  "src/timeline/filter.ts FOLDING_EXCEPTIONS": "constant",
  "src/timeline/sort.ts TOKENS": "constant",
};

function engineFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return engineFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("no engine cache outside the rule", () => {
  it("every module-level Map or WeakMap of the engine is an allowed table", () => {
    const root = resolve(import.meta.dirname, "..");
    const found: string[] = [];
    for (const folder of ["conditions", "incidents", "timeline", "artifacts"]) {
      for (const file of engineFiles(join(root, "src", folder))) {
        const text = readFileSync(file, "utf8");
        // A declaration at column 0 (module scope) whose initializer makes a Map or WeakMap.
        const declaration = /^(?:export )?(?:const|let|var) (\w+)\b[^=\n]*=\s*new (?:Weak)?Map\b/gm;
        for (const match of text.matchAll(declaration))
          found.push(`${relative(root, file).replaceAll("\\", "/")} ${match[1]}`);
      }
    }
    expect(found.filter((name) => !(name in ALLOWED_TABLES))).toEqual([]);
    // The allow-list names only what exists (a stale entry would hide a future cache of that name).
    expect(Object.keys(ALLOWED_TABLES).filter((name) => !found.includes(name))).toEqual([]);
  });
});
