/**
 * The worst Search Conditions the limits allow, and the hostile regular expressions of SECURITY.md
 * (docs/semantics.md 1.7). Each step is timed as the best of a few runs (the machine is shared; the minimum is
 * what the code costs) and the heap is read after a full collection and at its peak during the step.
 *
 * Figures on the development machine are printed with each run and reported in SECURITY.md.
 */
import { describe, expect, it } from "vitest";
import { clearCompileCache, compile } from "../../src/conditions/compile.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { DEFAULT_LIMITS } from "../../src/conditions/options.js";
import { safeParseSearchConditions } from "../../src/conditions/parse.js";
import { clearRegexCache, measurePattern } from "../../src/conditions/regex/matcher.js";
import { heapAfterGc } from "../support/heap.js";
import { countingInstructions, countingParses } from "../support/regex-work.js";

const MB = 1024 * 1024;

/** A pseudo-random string of `length` characters from `alphabet` (fixed seed). */
function randomText(length: number, alphabet: string, seed: number): string {
  let state = seed;
  let text = "";
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += alphabet[Math.floor((state / 2_147_483_648) * alphabet.length)];
  }
  return text;
}

/**
 * Runs `step` `runs` times, each with empty caches unless `cold` is false: the fastest run in ms of wall
 * time (`ms`) and of this process's CPU time (`cpuMs`: what the code costs, less sensitive to the other
 * processes of a shared machine), and the most heap in use right after any run.
 */
function measure<T>(
  runs: number,
  step: () => T,
  cold = true,
): { ms: number; cpuMs: number; heapMB: number; result: T } {
  let ms = Number.POSITIVE_INFINITY;
  let cpuMs = Number.POSITIVE_INFINITY;
  let heap = 0;
  let result: T | undefined;
  for (let run = 0; run < runs; run++) {
    if (cold) {
      clearRegexCache();
      clearCompileCache();
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    result = step();
    const used = process.cpuUsage(cpu);
    ms = Math.min(ms, performance.now() - started);
    cpuMs = Math.min(cpuMs, (used.user + used.system) / 1000);
    heap = Math.max(heap, process.memoryUsage().heapUsed);
  }
  return { ms, cpuMs, heapMB: heap / MB, result: result as T };
}

/**
 * A pattern at the per-pattern budget whose automaton cannot be cached (the lazy DFA has 2^n states for
 * `[ab]*a[ab]{n}`): re2js matched it with its NFA, in seconds for a 10 KB value. Padded to the
 * 1,000-character limit with empty groups, which cost nothing.
 */
function worstPattern(): string {
  const core = "[ab]*a[ab]{996}c";
  return core + "(?:)".repeat(Math.floor((DEFAULT_LIMITS.patternLength - core.length) / 4));
}

/** `(?:B(1)(?:B(2)(?:…)*)*)*` for `levels` levels, the body of level k being `body(k)`. */
function nestedLoops(levels: number, body: (k: number) => string): string {
  let open = "";
  for (let k = 1; k <= levels; k++) open += `(?:${body(k)}`;
  return `${open}${")*".repeat(levels)}`;
}

/**
 * The shapes that cost our bit-parallel matcher the most per character (bench/regex.ts tries more; these
 * were the slowest): transitions that are neither the shift of concatenation nor a shared stride nor a
 * run of optional items. Each is preceded by `x` and followed by `cd`, so that the worst value (see
 * `worstValue`) holds the text every match needs (re2js's prefilter cannot answer) yet never matches.
 * - nested loops of growing counted classes: every loop start entered from the end of every loop inside;
 * - nested loops of alternations with `\B`: distinct, wide follow sets in two contexts;
 * - word boundaries in a counted loop: transitions that hold only at, or only off, a word boundary.
 */
function hostileShapes(): string[] {
  return [
    `x${nestedLoops(40, (k) => `[ab]{${k}}`)}cd`,
    `x${nestedLoops(45, (k) => `(?:[ab]{${(k % 9) + 1}}|a\\B)`)}cd`,
    "x(?:\\b[ab]+\\b ?|\\B[ab]){110}cd",
  ];
}

/** The worst pattern, the hostile shapes, and a filler `x[ab]{n}cd` that brings the total to the budget. */
function worstPatterns(): string[] {
  const patterns = [worstPattern(), ...hostileShapes()];
  let used = 0;
  for (const pattern of patterns) {
    const measure = measurePattern(pattern, "");
    if (!measure.ok) throw new Error(`not a pattern: ${pattern}`);
    used += measure.size;
  }
  patterns.push(`x[ab]{${DEFAULT_LIMITS.regexProgramTotal - used - 3}}cd`);
  return patterns;
}

/** `{"$and": [{"$and": [ … leaf … ]}]}`, `levels` deep. */
function nested(levels: number, leaf: unknown): unknown {
  let condition = leaf;
  for (let i = 0; i < levels; i++) condition = { $and: [condition] };
  return condition;
}

/**
 * The worst allowed condition: every limit of docs/semantics.md 1.7 reached at once, under an `$or` so that
 * nothing short-circuits (none of its branches matches the record): the deepest nesting, a `$in` of
 * 10,000 values, string operands of 10,000 characters, the regex programs that cost the matcher most
 * (`worstPatterns`: 4,000 instructions in all, the condition budget, each within the per-pattern
 * budget), and filler up to the node limit.
 */
function worstCondition(filler: number): unknown {
  const long = "x".repeat(DEFAULT_LIMITS.stringLength);
  return {
    $or: [
      nested(13, { Title: { $not: { $nin: [long, "y"] } } }),
      { Title: { $in: Array.from({ length: DEFAULT_LIMITS.setSize }, (_, i) => `title-${i}`) } },
      { Description: long },
      ...worstPatterns().map((pattern, i) =>
        i === 1
          ? { Description: { $not: { $regex: pattern, $options: "ms" } }, Title: "never" }
          : { Description: { $regex: pattern, $options: ["", "ms", "m", "s", ""][i] as string } },
      ),
      ...Array.from({ length: filler }, (_, i) => ({ ExternalKey: `k-${i}` })),
    ],
  };
}

/** The most filler that still parses: the condition at the node limit. */
function fillerAtNodeLimit(): number {
  let low = 0;
  let high = DEFAULT_LIMITS.nodes;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (safeParseSearchConditions(worstCondition(mid)).success) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * A value of `length` characters that keeps every pattern of `worstPatterns` busy to the end and matches
 * none: it starts with `cd` (the text every match needs, so no prefilter answers), then letters `a`/`b`
 * with an `x` (where the hostile shapes start) or a space (a word boundary) now and then, never `c` again.
 */
function worstValue(length: number, seed: number): string {
  return `cd${randomText(length - 2, "ababababababababxab ", seed)}`;
}

/** A 10 KB record whose regex field is a worst value. */
function worstRecord(): Record<string, unknown> {
  return { IncidentId: 1, Title: "t", Description: worstValue(10_230, 7), ExternalKey: "none" };
}

describe("the worst allowed Search Conditions (docs/semantics.md 1.7)", () => {
  it("sit exactly at every limit", () => {
    const filler = fillerAtNodeLimit();
    expect(filler).toBeGreaterThan(300);
    expect(safeParseSearchConditions(worstCondition(filler + 1))).toMatchObject({
      success: false,
      issues: [{ code: "limit_exceeded" }],
    });
    const pattern = worstPattern();
    expect(pattern.length).toBeGreaterThan(DEFAULT_LIMITS.patternLength - 4);
    expect(pattern.length).toBeLessThanOrEqual(DEFAULT_LIMITS.patternLength);
    for (const flags of ["", "s", "m", "ms"]) {
      expect(measurePattern(pattern, flags)).toEqual({ ok: true, instructions: 1000, size: 1000 });
    }
    // Together, the patterns fill the condition's budget; each is within the per-pattern limits.
    const patterns = worstPatterns();
    let total = 0;
    for (const [i, each] of patterns.entries()) {
      const measure = measurePattern(each, ["", "ms", "m", "s", ""][i] as string);
      expect(measure.ok && measure.size).toBeLessThanOrEqual(DEFAULT_LIMITS.regexProgramSize);
      expect(each.length).toBeLessThanOrEqual(DEFAULT_LIMITS.patternLength);
      total += measure.ok ? measure.size : Number.NaN;
    }
    expect(total).toBe(DEFAULT_LIMITS.regexProgramTotal);
  });

  /**
   * The issue's target is 100 ms for each of parse, compile and evaluate. Every time below is the best of
   * three runs. The machine these tests run on is shared (two cores, a load of 8 to 10 while this was
   * written), so wall time can be several times the CPU time the code costs: the bounds are on CPU time
   * (twice the target); wall time, which a busy machine stretches without bound, is printed, not judged.
   * SECURITY.md reports the figures of a quiet run.
   */
  const TARGET_MS = 100;

  it("parse, compile and evaluate against a 10 KB record within the target, heap under 200 MB", () => {
    const input = worstCondition(fillerAtNodeLimit());
    const record = worstRecord();
    expect(JSON.stringify(record).length).toBeLessThanOrEqual(10 * 1024 + 100);
    const baseline = heapAfterGc();

    const parsed = measure(3, () => safeParseSearchConditions(input));
    expect(parsed.result.success).toBe(true);
    if (!parsed.result.success) return;
    const condition = parsed.result.condition;

    const compiled = measure(3, () => compile(condition, { cache: false }));
    const predicate = compiled.result;

    // Warm the matching code up (its first run is several times slower while the JIT compiles it).
    evaluate(condition, { ...record, Description: worstValue(3000, 3) });
    const evaluated = measure(3, () => evaluate(condition, record), false);
    expect(evaluated.result).toBe(false);
    expect(predicate(record)).toBe(false);
    // Twice the record, twice the time (linear): the same condition against a 20 KB value.
    const double = { ...record, Description: worstValue(20_460, 9) };
    const doubled = measure(3, () => evaluate(condition, double), false);
    expect(doubled.result).toBe(false);
    const after = heapAfterGc();

    const peak = Math.max(parsed.heapMB, compiled.heapMB, evaluated.heapMB, doubled.heapMB);
    console.log(
      `worst allowed condition (wall / CPU ms): parse ${parsed.ms.toFixed(1)} / ${parsed.cpuMs.toFixed(1)}, ` +
        `compile ${compiled.ms.toFixed(1)} / ${compiled.cpuMs.toFixed(1)}, evaluate 10 KB ` +
        `${evaluated.ms.toFixed(1)} / ${evaluated.cpuMs.toFixed(1)}, 20 KB ${doubled.ms.toFixed(1)} / ` +
        `${doubled.cpuMs.toFixed(1)}; heap baseline ${(baseline / MB).toFixed(0)} MB, peak ${peak.toFixed(0)} MB, ` +
        `after ${(after / MB).toFixed(0)} MB`,
    );
    for (const step of [parsed, compiled, evaluated]) {
      expect(step.cpuMs).toBeLessThan(2 * TARGET_MS);
    }
    // Matching is linear in the value: doubling the value at most about doubles the time.
    expect(doubled.cpuMs).toBeLessThan(evaluated.cpuMs * 3 + 20);
    for (const step of [parsed, compiled, evaluated, doubled]) expect(step.heapMB).toBeLessThan(200);
  });

  it("evaluate within the target with the patterns spread over four fields, and over an array of strings", () => {
    const patterns = worstPatterns();
    const fields = ["Title", "Description", "Type", "DataSource"];
    // Four fields of 2.5 KB each, the patterns spread over them (the budget counts every pattern once).
    const spread = safeParseSearchConditions({
      $or: patterns.map((pattern, i) => ({ [fields[i % fields.length] as string]: { $regex: pattern } })),
    });
    // One field holding an array of 100 strings of 100 characters: every element is searched.
    const array = safeParseSearchConditions({
      $or: patterns.map((pattern) => ({ Description: { $regex: pattern } })),
    });
    expect(spread.success && array.success).toBe(true);
    if (!spread.success || !array.success) return;
    const spreadRecord: Record<string, unknown> = { IncidentId: 1 };
    fields.forEach((field, i) => {
      spreadRecord[field] = worstValue(2_540, 20 + i);
    });
    const arrayRecord = {
      IncidentId: 1,
      Description: Array.from({ length: 100 }, (_, i) => worstValue(100, 40 + i)),
    };
    for (const record of [spreadRecord, arrayRecord])
      expect(JSON.stringify(record).length).toBeLessThan(10_800);
    evaluate(spread.condition, spreadRecord);
    evaluate(array.condition, arrayRecord);
    const onFields = measure(3, () => evaluate(spread.condition, spreadRecord), false);
    const onArray = measure(3, () => evaluate(array.condition, arrayRecord), false);
    console.log(
      `worst patterns on four 2.5 KB fields: ${onFields.ms.toFixed(1)} / ${onFields.cpuMs.toFixed(1)} ms; ` +
        `over 100 strings of 100 characters: ${onArray.ms.toFixed(1)} / ${onArray.cpuMs.toFixed(1)} ms (wall / CPU)`,
    );
    expect(onFields.result).toBe(false);
    expect(onArray.result).toBe(false);
    for (const step of [onFields, onArray]) {
      expect(step.cpuMs).toBeLessThan(2 * TARGET_MS);
      expect(step.heapMB).toBeLessThan(200);
    }
  });
});

describe("the hostile patterns (docs/semantics.md 1.7: refused in milliseconds, bounded memory)", () => {
  const hostile = "(?:|a){1000}".repeat(82);

  it.each([1, 20, 120])("%i copies of (?:|a){1000} x82 in one condition are refused quickly", (copies) => {
    // Fresh patterns on every run, so that no cache can answer.
    let run = 0;
    const input = () => {
      run += 1;
      return {
        $or: Array.from({ length: copies }, (_, i) => ({ Title: { $regex: `${hostile}${run}-${i}` } })),
      };
    };
    const baseline = heapAfterGc();
    const refused = measure(3, () => safeParseSearchConditions(input()));
    console.log(
      `${copies} hostile patterns: refused in ${refused.ms.toFixed(1)} ms, heap peak ${refused.heapMB.toFixed(0)} MB (baseline ${(baseline / MB).toFixed(0)} MB)`,
    );
    expect(refused.result).toMatchObject({
      success: false,
      issues: [{ code: "regex_program_too_large", path: ["$or", 0, "Title", "$regex"] }],
    });
    // Before the budget: 0.3 s and ~50 MB per copy, 1 GB for 20 copies, out of memory for 120. Now no
    // program is built (a count of the engine's instructions added, which a busy machine cannot fail).
    expect(countingInstructions(() => safeParseSearchConditions(input())).added).toBe(0);
    expect(refused.heapMB - baseline / MB).toBeLessThan(50);
  });

  it("refuses 100 patterns of case-folded wide ranges (about 1 s each to parse) before parsing them", () => {
    let run = 0;
    const folded = `(?i)${"[\\x{100}-\\x{1e943}]".repeat(48)}`;
    const input = () => {
      run += 1;
      return { $or: Array.from({ length: 100 }, (_, i) => ({ Title: { $regex: `${folded}${run}-${i}` } })) };
    };
    const refused = measure(3, () => safeParseSearchConditions(input()));
    expect(refused.result).toMatchObject({ success: false, issues: [{ code: "regex_program_too_large" }] });
    // Not one of them is parsed, nor compiled (counts, not milliseconds).
    const counted = countingParses(() => countingInstructions(() => safeParseSearchConditions(input())));
    expect(counted.parses).toBe(0);
    expect(counted.result.added).toBe(0);
  });

  it("refuses .{1000} x141 (1.3 s to match a 10 KB value before the budget) without compiling it", () => {
    const refused = measure(3, () =>
      safeParseSearchConditions({ Description: { $regex: ".{1000}".repeat(141) } }),
    );
    expect(refused.result).toMatchObject({ success: false, issues: [{ code: "regex_program_too_large" }] });
    const counted = countingInstructions(() =>
      safeParseSearchConditions({ Description: { $regex: ".{1000}".repeat(141) } }),
    );
    expect(counted.added).toBe(0); // never compiled (a count, not milliseconds)
  });
});
