import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { compileRegex } from "../conditions/regex/matcher.js";
import { toMongoRegex } from "./regex-dialect.js";

describe("toMongoRegex: RE2 patterns mean the same after translation", () => {
  const alphabet = [
    "a",
    "b",
    "A",
    "B",
    "0",
    "1",
    " ",
    "_",
    ".",
    "-",
    "\n",
    "\r",
    "\t",
    "\v",
    "\f",
    "\u2028",
    "\u00a0",
    "é",
    "É",
    "{",
    "}",
    "[",
    "]",
    "$",
    "^",
    "\\",
  ];
  const textArb = fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }).map((chars) => chars.join(""));
  const literalArb = fc.constantFrom(
    "a",
    "b",
    "A",
    "0",
    " ",
    "é",
    "\\.",
    "\\$",
    "\\^",
    "\\{",
    "\\}",
    "\\[",
    "\\]",
    "\\-",
    "\\\\",
    "_",
    "-",
    "}",
    "]",
  );
  const classItemArb = fc.constantFrom(
    "a",
    "b",
    "A-Z",
    "0-9",
    "\\d",
    "\\D",
    "\\w",
    "\\s",
    "\\S",
    "\\n",
    "\\t",
    "\\v",
    ".",
    "$",
    "^a",
    "é",
    "\\]",
    "\\[",
    "[:alpha:]",
    "[:space:]",
    "[:punct:]",
    "[:word:]",
    "[:^alpha:]",
    "[:^space:]",
    "a-",
    "{",
    "\\x41",
    "\\101",
  );
  const classArb = fc
    .tuple(fc.boolean(), fc.array(classItemArb, { minLength: 1, maxLength: 3 }))
    .map(([negated, items]) => `[${negated ? "^" : ""}${items.join("")}]`);
  const atomArb = fc.oneof(
    { arbitrary: literalArb, weight: 6 },
    {
      arbitrary: fc.constantFrom(
        ".",
        "^",
        "$",
        "\\A",
        "\\z",
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "\\b",
        "\\B",
        "\\n",
        "\\r",
        "\\t",
        "\\v",
        "\\f",
        "\\x41",
        "\\x{e9}",
        "\\101",
        "\\Qa.b\\E",
        "a{,2}",
        "a{1",
        "{",
      ),
      weight: 4,
    },
    { arbitrary: classArb, weight: 2 },
  );
  const patternArb: fc.Arbitrary<string> = fc.letrec<{ pattern: string; piece: string }>((tie) => ({
    piece: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      {
        arbitrary: fc
          .tuple(atomArb, fc.constantFrom("", "", "", "*", "+", "?", "{1,2}", "{2}", "*?", "+?", "{0,}"))
          .map(([atom, q]) => (q !== "" && /^\\[Azb BQ]|^\^|^\$/.test(atom) ? atom : atom + q)),
        weight: 5,
      },
      {
        arbitrary: fc
          .tuple(
            fc.constantFrom("(", "(?:", "(?P<n>", "(?s:", "(?m:", "(?-s:", "(?U:"),
            tie("pattern"),
            fc.constantFrom("", "*", "?"),
          )
          .map(([open, inner, q]) => `${open}${inner})${q}`),
        weight: 1,
      },
      { arbitrary: fc.constantFrom("(?s)", "(?m)", "(?-m)"), weight: 1 },
    ),
    pattern: fc
      .array(
        fc.array(tie("piece"), { maxLength: 4 }).map((pieces) => pieces.join("")),
        { minLength: 1, maxLength: 2 },
      )
      .map((alternatives) => alternatives.join("|")),
  })).pattern;
  const flagsArb = fc.subarray(["i", "m", "s"]).map((f) => f.join(""));

  it("JavaScript's RegExp over the translation agrees with RE2 over the source", () => {
    let checked = 0;
    let matched = 0;
    fc.assert(
      fc.property(
        patternArb.chain((p) =>
          fc.tuple(fc.constant(p), flagsArb, fc.array(textArb, { minLength: 1, maxLength: 6 })),
        ),
        ([source, flags, texts]) => {
          let re2: ReturnType<typeof compileRegex>;
          try {
            re2 = compileRegex(source, flags);
          } catch {
            return; // not RE2 syntax: the parser refuses it before translation
          }
          const { pattern, options } = toMongoRegex(source, flags);
          const js = new RegExp(pattern, options);
          for (const text of texts) {
            checked++;
            const expected = re2.test(text);
            if (expected) matched++;
            expect(
              js.test(text),
              `${JSON.stringify(source)} /${flags} → ${JSON.stringify(pattern)} on ${JSON.stringify(text)}`,
            ).toBe(expected);
          }
        },
      ),
      fcOptions(4000),
    );
    expect(checked).toBeGreaterThan(8000);
    expect(matched).toBeGreaterThan(checked / 5);
  });

  it.each<[source: string, flags: string, text: string, expected: boolean, why: string]>([
    ["host$", "", "my host\n", false, "RE2's $ is the very end; PCRE's also matches before a final newline"],
    ["^a.c$", "", "a\rc", true, "RE2's . matches \\r; JavaScript's does not"],
    ["^a.c$", "", "a\nc", false, "without s, . does not match \\n"],
    ["^a.c$", "s", "a\nc", true, "with s, . matches \\n"],
    ["^b$", "m", "a\nb\nc", true, "line anchors at \\n"],
    ["^b$", "m", "a\rb\rc", false, "\\r is not a line break in RE2"],
    ["a\\sb", "", "a\u00a0b", false, "RE2's \\s is ASCII"],
    ["a\\sb", "", "a\vb", false, "RE2's \\s has no vertical tab"],
    ["a[[:space:]]b", "", "a\vb", true, "[[:space:]] has the vertical tab"],
    ["a{,2}", "", "a{,2}", true, "{,2} is literal in RE2"],
    ["\\Qa.b\\E", "", "axb", false, "\\Q…\\E is literal"],
  ])("%j /%j on %j → %s (%s)", (source, flags, text, expected) => {
    expect(compileRegex(source, flags).test(text)).toBe(expected);
    const { pattern, options } = toMongoRegex(source, flags);
    expect(new RegExp(pattern, options).test(text)).toBe(expected);
  });

  it("keeps PCRE-only syntax where JavaScript has none, and opens (?i:…) for inline case changes", () => {
    expect(toMongoRegex("\\p{Greek}+", "").pattern).toBe("\\p{Greek}+");
    // Complemented members of a class are rewritten so that both engines read them alike.
    expect(toMongoRegex("[[:^digit:]]", "").pattern).toBe("(?:[^0-9])");
    expect(toMongoRegex("[^a\\S]", "").pattern).toBe("(?:(?![a])[\\x09\\x0A\\x0C\\x0D ])");
    expect(toMongoRegex("a(?i)b|c", "")).toEqual({ pattern: "a(?i:b)|(?i:c)", options: "" });
    expect(toMongoRegex("(?-i:a)b", "i")).toEqual({ pattern: "(?:(?-i:a))b", options: "i" });
  });

  it("refuses what is not RE2 syntax with a TypeError", () => {
    for (const source of ["(?=a)", "(?<=a)b", "a\\", "[a", "(a", "a)", "\\Z", "\\1"]) {
      expect(() => toMongoRegex(source, ""), source).toThrow(TypeError);
    }
  });
});
