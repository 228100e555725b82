/**
 * Attacks on toMongoFilter's regex dialect (src/mongodb/regex-dialect.ts): RE2 patterns whose translation
 * means something else in MongoDB (PCRE2) and in mingo (JavaScript RegExp, which agrees with PCRE2 on every
 * construct used here). Each was a disagreement with `evaluate` found by an attack (2026-11-28), now fixed,
 * or a known difference that docs/mongodb.md states and the test pins.
 */
import fc from "fast-check";
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { evaluate, parseSearchConditions, toMongoFilter } from "../index.js";

function mingoAnswer(raw: unknown, record: Record<string, unknown>): boolean {
  return new Query(toMongoFilter(parseSearchConditions(raw)) as never).test(record);
}

describe("a quantifier after an inline flag group (?s)/(?i)/(?m)", () => {
  // RE2 (Go syntax): `(?s)` is no atom, so a following `?` repeats the previous atom: `a+(?s)?` is
  // `(?:a+)?`. The translation drops the flag group and writes `a+?`, a lazy `+` (still one or more).
  it.each([
    [{ Title: { $regex: "ba+(?s)?c" } }, { Title: "bc" }],
    [{ Title: { $regex: "a{2}(?i)?" } }, { Title: "b" }],
  ])("%j on %j", (raw, record) => {
    expect(evaluate(parseSearchConditions(raw), record)).toBe(true);
    expect(mingoAnswer(raw, record)).toBe(true);
  });

  it("holds for generated atoms and quantifiers (fixed seed)", () => {
    const atom = fc.constantFrom("a", "[ab]", "\\d", "(?:ab)", ".");
    const quantifier = fc.constantFrom("+", "*", "?", "{2}", "{1,}");
    // No `(?i)` here: its translation opens a `(?i:` group, which Node 20's RegExp (and so mingo) cannot run.
    const flag = fc.constantFrom("(?s)", "(?m)", "(?-s)", "(?-m)");
    const text = fc.constantFrom("", "c", "ac", "aac", "abc", "1c", "zc");
    fc.assert(
      fc.property(atom, quantifier, flag, fc.constantFrom("?", "*", "??"), text, (a, q, f, q2, t) => {
        const raw = { Title: { $regex: `^${a}${q}${f}${q2}c` } };
        try {
          parseSearchConditions(raw);
        } catch {
          return; // not RE2 syntax
        }
        expect(mingoAnswer(raw, { Title: t })).toBe(evaluate(parseSearchConditions(raw), { Title: t }));
      }),
      fcOptions(300),
    );
  });
});

describe("a quantifier on an empty-width assertion (^, \\A, \\b, \\B)", () => {
  // RE2 accepts `^*`, `\b+`, `\A?`; the translation keeps them bare (`^*a`), which JavaScript refuses
  // ("Nothing to repeat") and PCRE2 refuses too ("quantifier does not follow a repeatable item"): the
  // MongoDB query fails where evaluate answers. A group (`(?:^)*`) would be accepted by both.
  it.each([
    [{ Title: { $regex: "^*a" } }, { Title: "a" }],
    [{ Title: { $regex: "\\A?a" } }, { Title: "ba" }],
    [{ Title: { $regex: "a\\b+" } }, { Title: "a" }],
    [{ Title: { $regex: "a\\B*" } }, { Title: "a" }],
  ])("%j on %j", (raw, record) => {
    expect(evaluate(parseSearchConditions(raw), record)).toBe(true);
    expect(() => mingoAnswer(raw, record)).not.toThrow();
    expect(mingoAnswer(raw, record)).toBe(true);
  });
});

describe("\\p{Lu} under the i option (docs/mongodb.md, known difference 3)", () => {
  // RE2 folds a case property class under `i`: `(?i)\p{Lu}` matches "a" (evaluate: true). PCRE2 does not
  // ("Specifying caseless matching does not affect these escape sequences. For example, \p{Lu} always
  // matches only upper case letters", pcre2pattern), so MongoDB does not match "a". No PCRE2 class means
  // RE2's folded one exactly, so the translation passes the class through and the difference is documented;
  // this test pins both, so that a change to either side is seen.
  it('{"Title": {"$regex": "^\\\\p{Lu}$", "$options": "i"}} matches "a" here; the class goes to MongoDB as written', () => {
    const raw = { Title: { $regex: "^\\p{Lu}$", $options: "i" } };
    expect(evaluate(parseSearchConditions(raw), { Title: "a" })).toBe(true);
    const filter = toMongoFilter(parseSearchConditions(raw)) as {
      Title: { $regex: string; $options?: string };
    };
    expect(filter.Title.$options).toBe("i");
    expect(filter.Title.$regex).toContain("\\p{Lu}");
  });
});
