import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { regexPatternArb } from "../../../test/arbitraries/regex.js";
import { FOLDING_LETTERS } from "../../../test/support/case-folding.js";
import { fcOptions } from "../../../test/support/fc.js";
import { SEARCH_CASES } from "../../../test/support/regex-cases.js";
import {
  BitParallelMatcher,
  bitParallelMatcher,
  MAX_POSITIONS,
  TABLE_BYTES,
  UnsupportedProgram,
} from "./bit-parallel.js";
import { compileRegex } from "./matcher.js";
import { regexFlagBits } from "./program.js";

/** RE2JS flag bits of `$options` flags. */
const bitsOf = (flags: string): number => regexFlagBits(flags) ?? 0;

/** Ours, without the literal fast paths, and re2js's own answer (the oracle). */
function both(source: string, flags: string, value: string): [boolean, boolean] {
  const compiled = RE2JS.compile(source, bitsOf(flags));
  return [bitParallelMatcher(compiled).test(value), compiled.test(value)];
}

/**
 * Characters patterns and values are made of: ASCII letters (with the case-folding specials k, s and their
 * non-ASCII partners), digits, `_`, space, newline, punctuation, Latin-1, Greek, an astral code point, and
 * (in values) lone surrogates.
 */
const LETTERS = ["a", "b", "A", "B", ...FOLDING_LETTERS, "é", "É", "ß", "σ", "Σ", "ς", "😀", "𝔸"];
const OTHERS = ["0", "7", "_", " ", "-", ".", "\n", "\r", "\u00a0", "\u0130", "ı"];

/** A pattern from a grammar covering what RE2's parser accepts (and this project lets through). */
const patternArb: fc.Arbitrary<string> = regexPatternArb((re) => [
  fc.constantFrom(...LETTERS, "0", "_", " ", "-", "\\.", "\\n", "\\x{1F600}", "\\x{212A}", "\\t"),
  fc.constantFrom(
    ".",
    "[ab]",
    "[^ab]",
    "[a-kK]",
    "[^\\n]",
    "[é-ÿ]",
    "[😀-😂]",
    "[^😀]",
    "[\\d_]",
    "[[:alpha:]]",
  ),
  fc.constantFrom("\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\pL", "\\p{Greek}", "\\PL", "\\pN", "\\p{Lu}"),
  fc.constantFrom("^", "$", "\\A", "\\z", "\\b", "\\B", "(?:)", "[^\\x00-\\x{10FFFF}]"),
  re.map((r) => `(${r})`),
  re.map((r) => `(?:${r})`),
  re.map((r) => `(?i:${r})`),
  re.map((r) => `(?s:${r})`),
  re.map((r) => `(?m:${r})`),
  re.map((r) => `(?-i:${r})`),
]);

/** A pattern, sometimes with a leading inline flag group. */
const sourceArb = fc
  .tuple(fc.constantFrom("", "", "", "(?i)", "(?s)", "(?m)", "(?is)"), patternArb)
  .map(([prefix, pattern]) => `${prefix}${pattern}`)
  .filter((source) => {
    try {
      RE2JS.compile(source);
      return true;
    } catch {
      return false;
    }
  });

const flagsArb = fc.constantFrom("", "i", "m", "s", "im", "is", "ms", "ims");

/** Values from the patterns' alphabet, with newlines, surrogate pairs and lone surrogates. */
const valueArb = fc
  .array(fc.constantFrom(...LETTERS, ...OTHERS, "\ud83d", "\ude00", "\ud835\udd38"), { maxLength: 12 })
  .map((parts) => parts.join(""));

describe("the bit-parallel matcher agrees with re2js (the oracle)", () => {
  it("on generated patterns, flags and values", () => {
    fc.assert(
      fc.property(
        sourceArb,
        flagsArb,
        fc.array(valueArb, { minLength: 1, maxLength: 6 }),
        (source, flags, values) => {
          const compiled = RE2JS.compile(source, bitsOf(flags));
          const ours = bitParallelMatcher(compiled);
          for (const value of values)
            expect([source, flags, value, ours.test(value)]).toEqual([
              source,
              flags,
              value,
              compiled.test(value),
            ]);
        },
      ),
      fcOptions(3000),
    );
  });

  it("on values built from pieces that the pattern itself matches", () => {
    // Values that contain a match more often than random ones: a value made of what re2js found in others.
    fc.assert(
      fc.property(sourceArb, flagsArb, valueArb, valueArb, (source, flags, before, after) => {
        const compiled = RE2JS.compile(source, bitsOf(flags));
        const found = compiled.matcher(`${before}${after}`);
        const middle = found.find() ? (found.group(0) ?? "") : "";
        const ours = bitParallelMatcher(compiled);
        for (const value of [`${before}${middle}${after}`, middle, `${middle}${middle}`, `\n${middle}\n`]) {
          expect([source, flags, value, ours.test(value)]).toEqual([
            source,
            flags,
            value,
            compiled.test(value),
          ]);
        }
      }),
      fcOptions(1000),
    );
  });

  it("on large patterns: nested loops, alternations and strides over several words", () => {
    const body = fc.constantFrom("[ab]", "a", "b", "[ab]{2}", "a\\B", "\\b[ab]", "(?:a|bb)", "[ab]?", " ");
    const nested = fc
      .tuple(
        fc.array(body, { minLength: 10, maxLength: 45 }),
        fc.constantFrom(")*", ")+", ")?", "){1,2}", ")*?"),
        fc.boolean(),
      )
      .map(([bodies, close, alternate]) => {
        const open = bodies.map((b, k) => `(?:${b}${alternate && k % 3 === 0 ? "|b" : ""}`).join("");
        return `${open}${close.repeat(bodies.length)}c?`;
      });
    const compiles = (source: string): boolean => {
      try {
        return RE2JS.compile(source).programSize() < 1200;
      } catch {
        return false;
      }
    };
    const repeated = fc.tuple(patternArb, fc.integer({ min: 6, max: 20 })).map(([p, n]) => `(?:${p}){${n}}`);
    const text = fc
      .array(fc.constantFrom("a", "b", " ", "c", "ab", "ba", "aab", "\n"), { maxLength: 80 })
      .map((p) => p.join(""));
    fc.assert(
      fc.property(
        fc.oneof(nested, repeated).filter(compiles),
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (source, values) => {
          const compiled = RE2JS.compile(source);
          const ours = bitParallelMatcher(compiled);
          for (const value of values)
            expect([source, value, ours.test(value)]).toEqual([source, value, compiled.test(value)]);
        },
      ),
      fcOptions(400),
    );
  });

  it.each(SEARCH_CASES)("/%s/%s on %j → %s", (source, flags, value, expected) => {
    expect(both(source, flags, value)).toEqual([expected, expected]);
    expect(compileRegex(source, flags).test(value)).toBe(expected);
  });
});

describe("the bit-parallel matcher's limits", () => {
  it("refuses programs past MAX_POSITIONS (compileRegex then keeps re2js)", () => {
    const compiled = RE2JS.compile(`[ab]{1000}`.repeat(Math.ceil((MAX_POSITIONS + 1) / 1000)));
    expect(() => bitParallelMatcher(compiled)).toThrow(UnsupportedProgram);
    const big = compileRegex(`x[ab]{1000}`.repeat(5), "");
    expect(big.test(`x${"a".repeat(1000)}`.repeat(5))).toBe(true);
    expect(big.test(`x${"a".repeat(999)}`.repeat(5))).toBe(false);
  });

  it("counts its lazily built tables in bytes, and stays correct as they fill", () => {
    // Positions whose follow sets are neither a shift, a column nor shared: nested loops of alternations.
    let open = "";
    for (let k = 1; k <= 20; k++) open += `(?:(?:[ab]{${(k % 9) + 1}}|a\\B)`;
    const compiled = RE2JS.compile(`${open}${")*".repeat(20)}c`);
    const matcher = bitParallelMatcher(compiled);
    const inner = matcher instanceof BitParallelMatcher ? matcher : undefined;
    expect(matcher.bytes).toBeGreaterThan(256 * 4 * 20);
    expect(matcher.bytes).toBeLessThan(TABLE_BYTES + 1024 * 1024);
    let seed = 5;
    for (let round = 0; round < 4; round++) {
      let value = "";
      for (let i = 0; i < 3000; i++) {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        value += seed % 3 === 0 ? "b" : seed % 3 === 1 ? "a" : " ";
      }
      expect(matcher.test(value)).toBe(compiled.test(value));
      expect(matcher.test(`${value}c`)).toBe(compiled.test(`${value}c`));
    }
    expect(inner === undefined || inner.bytes === matcher.bytes).toBe(true);
  });
});
