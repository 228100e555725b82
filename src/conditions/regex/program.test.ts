import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { regexPatternArb } from "../../../test/arbitraries/regex.js";
import { fcOptions } from "../../../test/support/fc.js";
import { countingInstructions, countingParses } from "../../../test/support/regex-work.js";
import { foldCodePoints, limitDfaMemory, measureRegex } from "./program.js";

/** The engine's own count: the compiled program's size less its fail and match instructions. */
function compiledInstructions(source: string, bits: number): number {
  return RE2JS.compile(source, bits).programSize() - 2;
}

/** RE2 patterns built from the constructs whose count differs: repetition of every kind, groups, empties. */
const patternArb: fc.Arbitrary<string> = regexPatternArb((re) => [
  fc.constantFrom("a", "b", "k", "\\.", ".", "[a-c]", "[^ab]", "\\d", "\\w", "[\\x{100}-\\x{200}]"),
  fc.constantFrom("^", "$", "\\b", "\\B", "\\A", "\\z", "(?:)", "[^\\x00-\\x{10FFFF}]", "\\pN"),
  re.map((r) => `(${r})`),
  re.map((r) => `(?:${r})`),
  re.map((r) => `(?i:${r})`),
]);

describe("measureRegex", () => {
  it.each([
    ["a", 1],
    ["a{1000}", 1000],
    ["(?:|a){1000}", 3000],
    ["(?:|a){1000}".repeat(82), 246_000] as const,
    [".{1000}".repeat(141), 141_000],
    ["a{2,5}", 8],
    ["(a)", 3],
    ["a|b*", 4],
    ["(?:a*)*", 2],
    ["", 1],
  ])("pattern %# (%s) is %i instructions, as the engine compiles it", (source, expected) => {
    const measure = measureRegex(source, 0);
    expect(measure).toEqual({ ok: true, instructions: expected, size: expected });
    if (expected <= 5000) expect(compiledInstructions(source, 0)).toBe(expected);
  });

  it("counts a character class once per range in the budget's size", () => {
    expect(measureRegex("[a-z0-9_]", 0)).toEqual({ ok: true, instructions: 1, size: 3 });
    expect(measureRegex("[a-c]{10}", RE2JS.CASE_INSENSITIVE)).toEqual({
      ok: true,
      instructions: 10,
      size: 20,
    });
    // `.` and the classes the simplifier turns into `.` weigh 1.
    expect(measureRegex(".[^\\n](?s:.)[\\x00-\\x{10FFFF}]", 0)).toEqual({
      ok: true,
      instructions: 4,
      size: 4,
    });
    const letters = measureRegex("\\pL", 0);
    expect(letters.ok && letters.size > 500).toBe(true);
  });

  it("returns the engine's reason for a pattern outside RE2 syntax", () => {
    expect(measureRegex("(?<=a)b", 0)).toEqual({ ok: false, reason: "invalid named capture: `(?<=a)b`" });
    expect(measureRegex("a{1001}", 0)).toEqual({ ok: false, reason: "invalid repeat count: `{1001}`" });
    // RE2's nested-repetition check: a product of counts over 1,000 is refused by the parser itself.
    expect(measureRegex("(?:a{100}){11}", 0)).toMatchObject({ ok: false });
  });

  it("leaves the engine working: compiling after measuring still parses, simplifies and captures", () => {
    measureRegex("(a)(b)", 0);
    const compiled = RE2JS.compile("(a)(b)");
    expect(compiled.groupCount()).toBe(2);
    expect(compiled.exec("xab")?.[2]).toBe("b");
    expect(() => measureRegex("(", 0)).not.toThrow();
    expect(RE2JS.compile("x(y)").groupCount()).toBe(1);
  });

  it("measures the hostile pattern without building it (no instruction of a program added)", () => {
    const source = "(?:|a){1000}".repeat(82);
    // Building this program takes about 2 s and hundreds of MB; parsing and counting adds no instruction.
    const built = countingInstructions(() => RE2JS.compile("(?:|a){10}", 0));
    expect(built.added).toBeGreaterThanOrEqual(30); // the count sees a program being built
    const measured = countingInstructions(() => measureRegex(source, 0));
    expect(measured.result).toEqual({ ok: true, instructions: 246_000, size: 246_000 });
    expect(measured.added).toBe(0);
  });

  it("agrees with the size of the compiled program, instruction for instruction (property)", () => {
    fc.assert(
      fc.property(
        patternArb,
        fc.constantFrom(0, RE2JS.CASE_INSENSITIVE, RE2JS.DOTALL | RE2JS.MULTILINE),
        (source, bits) => {
          const measure = measureRegex(source, bits);
          let compiled: number | string;
          try {
            compiled = compiledInstructions(source, bits);
          } catch (error) {
            compiled = (error as Error).message.replace(/^error parsing regexp: /, "");
          }
          if (measure.ok) {
            expect(measure.instructions).toBe(compiled);
            expect(measure.size).toBeGreaterThanOrEqual(measure.instructions);
          } else {
            expect(measure.reason).toBe(compiled);
          }
        },
      ),
      fcOptions(1500),
    );
  });
});

describe("foldCodePoints", () => {
  it.each([
    ["[\\x{100}-\\x{1e943}]", false, 0],
    ["(?i)[\\x{100}-\\x{1e943}]", false, 0x1e943 - 0x100 + 1],
    ["[\\x{100}-\\x{1e943}]", true, 0x1e943 - 0x100 + 1],
    ["(?i)[\\x{41}-\\x{1e943}]", false, 0],
    ["(?i)[a-z0-9]", false, 26 + 0],
    ["(?i)[]a-\\x{1000}]", false, 0x1000 - 0x61 + 1],
    ["(?i)\\Q[a-\\x{1000}]\\E", false, 0],
    ["(?i)[\\pL\\d-z]", false, 0],
  ])("%s (i flag: %s) folds %i code points one at a time", (source, ignoreCase, expected) => {
    expect(foldCodePoints(source, ignoreCase)).toBe(expected);
  });

  it("refuses a pattern of wide folded ranges before parsing it", () => {
    const source = `(?i)${"[\\x{100}-\\x{1e943}]".repeat(48)}`;
    // Parsing it takes about a second; refused before parsing, the engine's parser never runs.
    const measure = countingParses(() => measureRegex(source, 0, 1000));
    expect(measure.parses).toBe(0);
    expect(countingParses(() => measureRegex("(?i)[\\x{100}-\\x{200}]", 0, 1000)).parses).toBe(1);
    expect(measure.result).toMatchObject({ ok: true, partial: true });
    expect(measure.result.ok && measure.result.size).toBeGreaterThan(1000);
  });
});

describe("limitDfaMemory", () => {
  it("bounds what matching can leave in the engine's DFA cache", () => {
    // A pattern whose DFA has many states: every value position starts a new set of NFA threads.
    const source = "(?:a|ab|b)*a[ab]{12}c";
    const bounded = RE2JS.compile(source);
    limitDfaMemory(bounded, 64 * 1024);
    const unbounded = RE2JS.compile(source);
    let value = "";
    let seed = 7;
    for (let i = 0; i < 10_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      value += seed < 1_073_741_824 ? "a" : "b";
    }
    value += `a${"ab".repeat(6)}c`;
    for (const engine of [bounded, unbounded]) expect(engine.test(value)).toBe(true);
    const used = (engine: RE2JS): number => {
      const dfa = (engine as unknown as { re2Input: { lazyDFA: { maxMem: number; memBudget: number } } })
        .re2Input.lazyDFA;
      return dfa.maxMem - dfa.memBudget;
    };
    expect(used(bounded)).toBeLessThanOrEqual(64 * 1024);
    expect(used(unbounded)).toBeGreaterThan(64 * 1024);
  });
});
