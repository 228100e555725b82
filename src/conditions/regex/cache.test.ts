import { describe, expect, it } from "vitest";
import { heapAfterGc } from "../../../test/support/heap.js";
import {
  COMPILE_CACHE_BYTES,
  COMPILE_CACHE_CAPACITY,
  clearCompileCache,
  compile,
  compileCacheStats,
} from "../compile.js";
import { parseSearchConditions } from "../parse.js";
import {
  clearRegexCache,
  compileRegex,
  REGEX_CACHE_BYTES,
  REGEX_CACHE_CAPACITY,
  type RegexMatcher,
  regexCacheStats,
} from "./matcher.js";

/** A pseudo-random value of `length` letters from `alphabet` (fixed seed). */
function randomValue(length: number, alphabet: string, seed: number): string {
  let state = seed;
  let value = "";
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    value += alphabet[Math.floor((state / 2_147_483_648) * alphabet.length)];
  }
  return value;
}

/**
 * Forty-five nested loops whose bodies are alternations with `\B`, `(?:(?:[a-c]{2}|a\B)(?:…)*)*`: about
 * 400 instructions (within the per-pattern budget, 900 characters), distinct for each `i`, whose loop
 * exits are exceptions of the bit-parallel matcher with wide, distinct rows in two contexts: a matcher
 * that counts hundreds of kilobytes of lazily built tables.
 */
const nestedLoops = (chars: string, suffix: string): string => {
  let open = "";
  for (let k = 1; k <= 45; k++) open += `(?:(?:[${chars}]{${(k % 9) + 1}}|a\\B)`;
  return `${open}${")*".repeat(45)}${suffix}`;
};
const bigPattern = (i: number): string => nestedLoops("a-c", `x${i}`);

describe("the regex cache (docs/semantics.md 1.7: bounded in bytes)", () => {
  it("keeps at most REGEX_CACHE_BYTES estimated bytes, dropping the least recently used", () => {
    clearRegexCache();
    const first = compileRegex(bigPattern(0), "");
    expect(first.bytes).toBeGreaterThan(300_000);
    expect(first.bytes).toBeLessThan(REGEX_CACHE_BYTES / 16);
    const count = Math.ceil((1.5 * REGEX_CACHE_BYTES) / first.bytes);
    expect(count).toBeLessThan(REGEX_CACHE_CAPACITY); // the bytes bound, not the entries bound, decides
    let last: RegexMatcher = first;
    for (let i = 1; i <= count; i++) {
      last = compileRegex(bigPattern(i), "");
      expect(regexCacheStats().bytes).toBeLessThanOrEqual(REGEX_CACHE_BYTES);
    }
    const { entries } = regexCacheStats();
    expect(entries).toBeLessThan(count);
    expect(entries).toBeGreaterThan(count / 2);
    expect(compileRegex(bigPattern(count), "")).toBe(last);
    expect(compileRegex(bigPattern(0), "")).not.toBe(first);
    clearRegexCache();
    expect(regexCacheStats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("estimates a matcher's bytes above what it really keeps alive, after hostile values", () => {
    clearRegexCache();
    // Patterns whose exception tables (and, on re2js, lazy DFA) grow with every new value: many states,
    // each value position a new one; with word boundaries, a table per context. A first round compiles
    // the matching code itself (kept once per process, not per matcher), so it is not counted.
    const hostile = (round: string, i: number, value: number) => {
      const matcher = compileRegex(`(?:a|ab|b\\b|b)*a[ab]{12}c${i}${round}`, "");
      for (let j = 0; j < value; j++) matcher.test(`${randomValue(10_000, "ab ", 31 * i + j)}c${i}`);
      return matcher;
    };
    for (let i = 0; i < 12; i++) hostile("warm", i, 1);
    // Three measurements of fresh matchers, their median kept: the heap also moves by what the engine
    // allocates or frees on its own meanwhile (compiled code, feedback; one reading was 2.5× the usual
    // figure under a loaded full run, others below zero), while an estimate below what the matchers keep
    // would show in at least two of three.
    const readings: number[] = [];
    let estimated = 0;
    let kept: RegexMatcher[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      kept = [];
      clearRegexCache();
      const before = heapAfterGc();
      for (let i = 0; i < 12; i++) kept.push(hostile(attempt === 2 ? "" : `r${attempt}`, i, 3));
      readings.push(heapAfterGc() - before);
      estimated = kept.reduce((sum, matcher) => sum + matcher.bytes, 0);
    }
    const retained = readings.sort((a, b) => a - b)[1]!;
    expect(retained).toBeLessThan(estimated);
    // Still correct after its tables have filled.
    expect(kept[3]?.test(`${randomValue(5000, "ab", 9)}a${"ab".repeat(6)}c3`)).toBe(true);
    expect(kept[3]?.test(`${randomValue(5000, "ab", 9)}${"b".repeat(13)}c3`)).toBe(false);
    console.log(`regex cache: retained ${retained} bytes, estimated ${estimated}`);
    clearRegexCache();
  });
});

describe("the predicate cache (docs/semantics.md 1.7: bounded in bytes)", () => {
  it("keeps at most COMPILE_CACHE_BYTES estimated bytes, weighing the regex matchers it holds", () => {
    clearCompileCache();
    const condition = (i: number) =>
      parseSearchConditions({
        Title: { $regex: bigPattern(i) },
        Description: { $regex: nestedLoops("d-f", `y${i}`) },
      });
    compile(condition(0));
    const perEntry = compileCacheStats().bytes;
    expect(perEntry).toBeGreaterThan(600_000);
    const count = Math.ceil((1.5 * COMPILE_CACHE_BYTES) / perEntry);
    expect(count).toBeLessThan(COMPILE_CACHE_CAPACITY);
    for (let i = 1; i <= count; i++) {
      compile(condition(i));
      expect(compileCacheStats().bytes).toBeLessThanOrEqual(COMPILE_CACHE_BYTES);
    }
    expect(compileCacheStats().entries).toBeLessThan(count);
    clearCompileCache();
    clearRegexCache();
  });
});
