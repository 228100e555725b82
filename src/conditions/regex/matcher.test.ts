import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { FOLDING_LETTERS } from "../../../test/support/case-folding.js";
import { fcOptions } from "../../../test/support/fc.js";
import { SEARCH_CASES } from "../../../test/support/regex-cases.js";
import {
  analyzeLiteral,
  compileRegex,
  REGEX_CACHE_CAPACITY,
  RegexSyntaxError,
  regexSyntaxProblem,
} from "./matcher.js";
import { regexFlagBits } from "./program.js";

/** RE2 directly, without the literal fast paths: the oracle for the fast paths. */
/** Calls of `String.prototype.codePointAt` and `charCodeAt` made by `run` (the engine's reads of a value). */
function countingStringReads<T>(run: () => T): { result: T; reads: number } {
  const { codePointAt, charCodeAt } = String.prototype;
  let reads = 0;
  String.prototype.codePointAt = function (this: string, index: number) {
    reads++;
    return codePointAt.call(this, index);
  };
  String.prototype.charCodeAt = function (this: string, index: number) {
    reads++;
    return charCodeAt.call(this, index);
  };
  try {
    return { result: run(), reads };
  } finally {
    String.prototype.codePointAt = codePointAt;
    String.prototype.charCodeAt = charCodeAt;
  }
}

function re2(source: string, flags: string, value: string): boolean {
  return RE2JS.compile(source, regexFlagBits(flags) ?? 0).test(value);
}

describe("analyzeLiteral", () => {
  const cases: [string, string, ReturnType<typeof analyzeLiteral>][] = [
    ["Phish", "", { text: "Phish", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["^Phish", "", { text: "Phish", anchorStart: true, anchorEnd: false, ignoreCase: false }],
    ["\\.exe$", "", { text: ".exe", anchorStart: false, anchorEnd: true, ignoreCase: false }],
    ["^Closed$", "i", { text: "Closed", anchorStart: true, anchorEnd: true, ignoreCase: true }],
    ["a\\$", "", { text: "a$", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["\\^a", "", { text: "^a", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["C:\\\\temp", "", { text: "C:\\temp", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["", "", { text: "", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["^$", "", { text: "", anchorStart: true, anchorEnd: true, ignoreCase: false }],
    ["Straße", "", { text: "Straße", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["Phish", "m", { text: "Phish", anchorStart: false, anchorEnd: false, ignoreCase: false }],
    ["a.b", "s", undefined],
    ["a+", "", undefined],
    ["(a)", "", undefined],
    ["a|b", "", undefined],
    ["[ab]", "", undefined],
    ["a{2}", "", undefined],
    ["a$b", "", undefined],
    ["a^", "", undefined],
    ["\\d", "", undefined],
    ["\\n", "", undefined],
    ["\\", "", undefined],
    ["^Phish", "m", undefined],
    ["Phish$", "im", undefined],
    ["Straße", "i", undefined],
    ["\ud83d", "", undefined],
    ["😀", "", { text: "😀", anchorStart: false, anchorEnd: false, ignoreCase: false }],
  ];
  it.each(cases)("analyzeLiteral(%j, %j)", (source, flags, expected) => {
    expect(analyzeLiteral(source, flags)).toEqual(expected);
  });
});

describe("compileRegex", () => {
  it.each(SEARCH_CASES)("/%s/%s on %j → %s", (source, flags, value, expected) => {
    expect(compileRegex(source, flags).test(value)).toBe(expected);
    expect(re2(source, flags, value)).toBe(expected);
  });

  // "Linear time" as a count a busy machine cannot fail: the characters of the value read (calls of
  // `codePointAt`/`charCodeAt`, counted on String.prototype) stay within a few per character, and doubling
  // the value at most doubles them. A backtracking engine re-reads the a's exponentially often.
  it.each([
    ["^(a+)+$", ""],
    ["(a|aa)+$", "i"],
    ["^(a|a?)+$", "s"],
  ])(
    "runs in linear time: /%s/%s against a's and a b reads each character a bounded number of times",
    (source, flags) => {
      const reads = (length: number) => {
        const value = `${"a".repeat(length)}b`;
        const matcher = compileRegex(source, flags);
        const counted = countingStringReads(() => matcher.test(value));
        expect(counted.result).toBe(false);
        return counted.reads;
      };
      const small = reads(50_000);
      const large = reads(100_000);
      expect(small).toBeGreaterThanOrEqual(50_000); // the count sees the engine's reads
      expect(large).toBeLessThanOrEqual(4 * 100_001);
      expect(large).toBeLessThanOrEqual(2.1 * small);
    },
  );

  it.each([
    ["(a)\\1", "invalid escape sequence"],
    ["(?=a)", "invalid or unsupported Perl syntax"],
    ["(?<=a)b", "invalid named capture"],
    ["[", "missing closing ]"],
    ["a{1001}", "invalid repeat count"],
  ])("refuses %j with the engine's reason", (source, reason) => {
    expect(() => compileRegex(source, "")).toThrow(RegexSyntaxError);
    try {
      compileRegex(source, "");
    } catch (error) {
      expect(error).toBeInstanceOf(RegexSyntaxError);
      expect((error as RegexSyntaxError).reason).toContain(reason);
      expect((error as RegexSyntaxError).pattern).toBe(source);
    }
    expect(regexSyntaxProblem(source, "")).toContain(reason);
  });

  it("accepts valid patterns in regexSyntaxProblem", () => {
    expect(regexSyntaxProblem("^(Phish|Spam)", "i")).toBeUndefined();
    expect(regexSyntaxProblem("Phish", "")).toBeUndefined();
  });

  it.each(["g", "x", "u", "I", " "])("refuses the flag %j", (flag) => {
    expect(() => compileRegex("a", flag)).toThrow(TypeError);
  });

  it("caches by (flags, source) with a bounded LRU", () => {
    const first = compileRegex("^cache-(x|y)", "i");
    expect(compileRegex("^cache-(x|y)", "i")).toBe(first);
    expect(compileRegex("^cache-(x|y)", "")).not.toBe(first);
    for (let i = 0; i < REGEX_CACHE_CAPACITY; i++) compileRegex(`^filler-${i}(a|b)`, "");
    expect(compileRegex("^cache-(x|y)", "i")).not.toBe(first);
    // A recently used entry survives while others are added.
    const kept = compileRegex("^kept(a|b)", "");
    for (let i = 0; i < REGEX_CACHE_CAPACITY - 1; i++) {
      compileRegex(`^more-${i}(a|b)`, "");
      if (i % 10 === 0) compileRegex("^kept(a|b)", "");
    }
    expect(compileRegex("^kept(a|b)", "")).toBe(kept);
  });

  it("never throws on any value string", () => {
    const matchers = [compileRegex("^(a+)+$", ""), compileRegex("Phish", "i"), compileRegex("^x$", "")];
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        for (const matcher of matchers) expect(typeof matcher.test(value)).toBe("boolean");
      }),
      fcOptions(200),
    );
  });
});

describe("literal fast paths agree with RE2", () => {
  // Pieces that make literal patterns (and a few near-literals) with letters whose case folding is special.
  const piece = fc.constantFrom(
    "a",
    "A",
    ...FOLDING_LETTERS,
    "\u0130",
    "é",
    "É",
    "ß",
    "😀",
    "\ud83d",
    "\\.",
    "\\$",
    "\\^",
    "\\\\",
    " ",
    "-",
    "\n",
  );
  const valuePiece = fc.constantFrom(
    "a",
    "A",
    ...FOLDING_LETTERS,
    "\u0130",
    "i",
    "é",
    "É",
    "ß",
    "😀",
    "\ud83d",
    "\ude00",
    ".",
    "$",
    "^",
    "\\",
    " ",
    "-",
    "\n",
  );
  const pattern = fc
    .tuple(fc.boolean(), fc.array(piece, { maxLength: 4 }), fc.boolean())
    .map(([start, body, end]) => `${start ? "^" : ""}${body.join("")}${end ? "$" : ""}`);
  const value = fc.array(valuePiece, { maxLength: 8 }).map((parts) => parts.join(""));
  const flags = fc.constantFrom("", "i", "m", "s", "im", "is", "ims");
  // RE2 matches whole code points: an unpaired surrogate in the text need not match inside a pair.
  const wellFormed = fc
    .array(
      valuePiece.filter((p) => p !== "\ud83d" && p !== "\ude00"),
      { maxLength: 8 },
    )
    .map((parts) => parts.join(""));

  it("compileRegex(p, f).test(v) equals RE2's answer", () => {
    fc.assert(
      fc.property(pattern, flags, value, (p, f, v) => {
        expect(compileRegex(p, f).test(v)).toBe(re2(p, f, v));
      }),
      fcOptions(3000),
    );
  });

  it("a value that contains the pattern's literal text matches the unanchored literal", () => {
    fc.assert(
      fc.property(value, wellFormed, value, (before, text, after) => {
        const source = RE2JS.quote(text);
        expect(compileRegex(source, "").test(`${before}${text}${after}`)).toBe(true);
      }),
      fcOptions(300),
    );
  });
});
