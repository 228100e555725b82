import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { FOLDING_ORBITS } from "../../../test/support/case-folding.js";
import { fcOptions } from "../../../test/support/fc.js";
import { compileRegex, compileRegexEngine } from "./matcher.js";
import { regexFlagBits } from "./program.js";
import { MAX_WINDOW, suffixOf, suffixWindow, windowed } from "./window.js";

/** RE2 itself (re2js), searching the whole value: the reference for what a pattern means. */
function re2(source: string, flags: string): (value: string) => boolean {
  const compiled = RE2JS.compile(source, regexFlagBits(flags) ?? 0);
  return (value) => compiled.matcher(value).find();
}

describe("suffixWindow: the widest match of an end-anchored pattern", () => {
  it.each([
    ["srv-42\\d\\d$", "", 8],
    ["(a|bc)$", "", 2],
    ["a\\z", "", 1],
    ["(?:ab)?c$", "", 3],
    ["x{2,5}$", "", 5],
    ["k$", "i", 1], // k folds with U+212A: one unit too
    ["é$", "i", 2], // a non-ASCII letter under `i` is counted two units
    ["😀$", "", 2],
    [".{3}$", "", 6], // a dot may match a code point past the BMP
    ["[^a]$", "", 2],
    ["(?s:.)$", "", 2],
    ["(a$)", "", 1], // a group around the whole pattern changes nothing
  ])("%s with flags '%s' → %d", (source, flags, width) => {
    expect(suffixWindow(source, flags)).toBe(width);
  });

  it.each([
    ["srv-.*$", ""], // unbounded
    ["a+$", ""],
    ["a{2,}$", ""],
    ["^a$", ""], // a start anchor: the window would move it
    ["\\bx$", ""], // a word boundary looks at the character before
    ["x\\B$", ""],
    ["a$", "m"], // `$` at every line end
    ["a$b", ""], // `$` not last
    ["a|b$", ""], // an alternation at the top: `a` is not anchored
    ["$", ""], // nothing before it
    ["abc", ""], // not anchored
    ["(?m:a$)", ""],
    ["a(", ""], // refused by the engine: no window
    [`${"a".repeat(MAX_WINDOW + 1)}$`, ""],
  ])("%s with flags '%s' has none", (source, flags) => {
    expect(suffixWindow(source, flags)).toBeUndefined();
  });

  it("answers on long values as RE2 does over the whole value (a match only at the end counts)", () => {
    const long = "srv-4212 ".repeat(100_000);
    const matcher = compileRegex("srv-42\\d\\d$", "");
    expect(matcher.window).toBe(8);
    expect(matcher.test(long)).toBe(false); // the pattern occurs everywhere but at the very end
    expect(matcher.test(`${long}srv-4299`)).toBe(true);
    expect(matcher.test(`${long}srv-429`)).toBe(false);
    // A pair is one code point: `[^a]$` matches the emoji alone, `[^a]{2}$` needs one more non-a before it.
    for (const source of ["[^a]$", "[^a]{2}$", "a[^a]$", "x?[^a]$"]) {
      const value = `${"a".repeat(1_000_000)}😀`;
      expect([source, compileRegex(source, "").test(value)]).toEqual([source, re2(source, "")(value)]);
    }
  });

  it("cuts on a code point: a window starting inside a surrogate pair takes the whole pair", () => {
    expect(suffixOf("ab😀", 1)).toBe("😀");
    expect(suffixOf("ab😀", 2)).toBe("😀");
    expect(suffixOf("ab😀", 3)).toBe("b😀");
    expect(suffixOf("abc", 5)).toBe("abc");
    expect(suffixOf("a\udc00b", 2)).toBe("\udc00b"); // a lone low surrogate: no pair to keep whole
  });
});

describe("windowed: searching the suffix window answers as searching the whole value", () => {
  const atoms = [
    "a",
    "b",
    "k",
    "s",
    "\\d",
    ".",
    "[^a]",
    "(a|bc)",
    "x?",
    "y{1,3}",
    "😀",
    "(?i:s)",
    "(?s:.)",
    "\\n",
    "[a-c]{0,2}",
  ];
  const patternArb = fc
    .tuple(fc.array(fc.constantFrom(...atoms), { minLength: 1, maxLength: 4 }), fc.constantFrom("$", "\\z"))
    .map(([parts, end]) => parts.join("") + end);
  const valueArb = fc
    .array(fc.constantFrom("a", "b", "c", ...FOLDING_ORBITS, "1", "😀", "\n", "x", "y", "\ud83d"), {
      maxLength: 12,
    })
    .map((chars) => chars.join(""));
  const flagsArb = fc.constantFrom("", "i", "s", "is");

  it("agrees with RE2 over the whole value, for every generated pattern and value", () => {
    fc.assert(
      fc.property(
        patternArb,
        flagsArb,
        fc.array(valueArb, { minLength: 1, maxLength: 8 }),
        (source, flags, values) => {
          const window = suffixWindow(source, flags);
          expect(window).toBeDefined();
          const whole = re2(source, flags);
          const engine = compileRegexEngine(source, flags);
          expect(engine.window).toBeUndefined(); // the reference interpreter's matcher searches whole values
          const inWindow = windowed((value) => engine.test(value), window!);
          // compileRegex searches the window when the pattern is no literal and no chain.
          const matcher = compileRegex(source, flags);
          if (matcher.literal === undefined && matcher.chain === undefined)
            expect(matcher.window).toBe(window);
          for (const value of values) {
            expect([source, flags, value, matcher.test(value)]).toEqual([source, flags, value, whole(value)]);
          }
          for (const value of values)
            expect([source, flags, value, inWindow(value)]).toEqual([source, flags, value, whole(value)]);
        },
      ),
      fcOptions(400),
    );
  });
});
