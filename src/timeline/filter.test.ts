import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FOLDING_ORBITS } from "../../test/support/case-folding.js";
import { fcOptions } from "../../test/support/fc.js";
import {
  asciiFoldingClass,
  containsFolded,
  createTimelineFilter,
  filterTimelineEntries,
  foldByCodePoint,
  foldCodePoint,
  foldTimelineText,
  rawPrefilterCharacters,
  sameFoldingClass,
} from "./filter.js";

const escapeRegex = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

/** The rule of docs/semantics.md 2 written plainly: NFC both sides, a `/…/iu` literal over each searched value. */
function referenceMatches(entry: Record<string, unknown>, term: string): boolean {
  const t = term.trim().normalize("NFC");
  if (t === "") return true;
  const pattern = new RegExp(escapeRegex(t), "iu");
  const values: unknown[] = [entry.Summary, entry.Note, entry.EventType, entry.RiskLevel, entry.Description];
  values.push(entry.Author, entry.Time);
  for (const list of [entry.Tactic, entry.Technique]) if (Array.isArray(list)) values.push(...list);
  return values.some((v) => typeof v === "string" && pattern.test(v.normalize("NFC")));
}

/** Characters that exercise folding, normalisation, surrogates and regex syntax. */
const TRICKY = [
  "a",
  "A",
  "e",
  "E",
  ...FOLDING_ORBITS,
  "ß",
  "ẞ",
  "é",
  "É",
  "\u0301",
  "\u0323",
  "σ",
  "ς",
  "Σ",
  "İ",
  "i",
  "I",
  "ı",
  "µ",
  "μ",
  "ÿ",
  "Ÿ",
  "ǅ",
  "ǆ",
  "Ǆ",
  "\u0345",
  "ι",
  "Ꭰ",
  "ꭰ",
  "\u1E9B",
  "한",
  "\u1112",
  "\u1161",
  "\u11AB",
  "\u0958",
  "🔥",
  "\u{10400}",
  "\u{10428}",
  "\uD800",
  "\uDC00",
  "\u0000",
  " ",
  "\t",
  ".",
  "*",
  "(",
  "[",
  "\\",
  "|",
  "$",
  "/",
  "-",
  "1",
];
const trickyText = fc.array(fc.constantFrom(...TRICKY), { maxLength: 8 }).map((chars) => chars.join(""));

describe("simple case folding representatives (foldCodePoint)", () => {
  const all: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) all.push(String.fromCodePoint(cp));
  const cased = all.filter((c) => c.toUpperCase() !== c || c.toLowerCase() !== c);
  const caseless = all.filter((c) => c.toUpperCase() === c && c.toLowerCase() === c);

  it("maps every cased code point to one code point of its class, of the same length, idempotently", () => {
    const wrong = cased.filter((c) => {
      const folded = foldCodePoint(c);
      return (
        [...folded].length !== 1 ||
        folded.length !== c.length ||
        !sameFoldingClass(folded, c) ||
        foldCodePoint(folded) !== folded
      );
    });
    expect(wrong).toEqual([]);
  });

  it("gives every member of a class the same representative (over every cased code point)", () => {
    const casedText = cased.join("");
    const representatives = new Set(cased.map(foldCodePoint));
    for (const representative of representatives) {
      const members = casedText.match(new RegExp(escapeRegex(representative), "giu")) ?? [];
      expect(members.filter((member) => foldCodePoint(member) !== representative)).toEqual([]);
    }
  });

  it("leaves caseless code points alone, and none of them is in the class of a cased one", () => {
    expect(caseless.filter((c) => foldCodePoint(c) !== c)).toEqual([]);
    const anyCased = new RegExp(`[${cased.map(escapeRegex).join("")}]`, "giu");
    // Two scans (one-unit and two-unit characters): one mixed string is much slower to scan.
    expect(
      caseless
        .filter((c) => c.length === 1)
        .join("")
        .match(anyCased),
    ).toBeNull();
    expect(
      caseless
        .filter((c) => c.length === 2)
        .join("")
        .match(anyCased),
    ).toBeNull();
  });

  it("lower-cases natively exactly where that is the fold (the set of exceptions is complete)", () => {
    // Wherever a code point's representative is not its lower case, the fast path must step aside.
    const differs = all.filter((c) => foldCodePoint(c) !== c.toLowerCase() || c === "\u03a3");
    const fastPathWrong = differs.filter((c) => foldTimelineText(`x${c}`) !== `x${foldCodePoint(c)}`);
    expect(fastPathWrong).toEqual([]);
    expect(all.filter((c) => foldTimelineText(c) !== foldByCodePoint(c.normalize("NFC")))).toEqual([]);
    expect(foldTimelineText("ΟΔΟΣ µ İ")).toBe("οδοσ μ İ");
  });

  it("needs no normalisation below U+0300: every string of such characters is already NFC", () => {
    for (let a = 0; a < 0x300; a++) {
      const first = String.fromCharCode(a);
      expect(first.normalize("NFC")).toBe(first);
      for (let b = 0; b < 0x300; b++) {
        const pair = first + String.fromCharCode(b);
        if (pair.normalize("NFC") !== pair) expect.fail(`${JSON.stringify(pair)} changes under NFC`);
      }
    }
  });

  it("folded texts match as plain strings exactly where the rule matches (property)", () => {
    fc.assert(
      fc.property(trickyText, trickyText, (text, term) => {
        const t = term.normalize("NFC");
        fc.pre(t !== "");
        const expected = new RegExp(escapeRegex(t), "iu").test(text.normalize("NFC"));
        expect(containsFolded(foldTimelineText(text), foldTimelineText(t))).toBe(expected);
        expect(foldTimelineText(text).length).toBe(text.normalize("NFC").length);
        expect(foldTimelineText(text)).toBe(foldByCodePoint(text.normalize("NFC")));
      }),
      fcOptions(3000),
    );
  });
});

describe("createTimelineFilter (docs/semantics.md 2)", () => {
  it("trims and normalises the term; an empty term keeps everything", () => {
    expect(createTimelineFilter("  E\u0301vent \t")).toMatchObject({ term: "Évent", keepsAll: false });
    for (const blank of ["", "   ", "\t\n", "\u00a0\u2003"]) {
      const filter = createTimelineFilter(blank);
      expect(filter).toMatchObject({ term: "", keepsAll: true });
      expect(filter.matches(null)).toBe(true);
    }
  });

  it("throws a TypeError for a term that is not a string", () => {
    expect(() => createTimelineFilter(5 as unknown as string)).toThrow(TypeError);
  });

  it.each([
    ["événement", "ÉVÉNEMENT", true],
    ["e\u0301ve\u0301nement", "événement", true],
    ["οδος", "ΟΔΟΣ", true],
    ["ǆ", "ǅ", true],
    ["\u{10428}", "\u{10400}", true],
    ["straße", "STRASSE", false],
    ["İstanbul", "istanbul", false],
    ["ıi", "II", false],
    [`${"x".repeat(10)}a.b*`, "A.B*", true],
    ["(admin", "(ADMIN", true],
    ["ab", "a.", false],
    ["a\u0000b", "a\u0000B", true],
    ["\uD800x", "\uD800X", true],
  ])("%j with term %j → %s", (text, term, keeps) => {
    expect(createTimelineFilter(term).matches({ Summary: text })).toBe(keeps);
  });

  it("reads own properties only and ignores ill-typed fields", () => {
    const filter = createTimelineFilter("needle");
    expect(filter.matches(Object.create({ Summary: "needle" }))).toBe(false);
    expect(filter.matches({ Tactic: Object.create({ 0: "needle", length: 1 }) })).toBe(false);
    const sparse: string[] = [];
    sparse.length = 2;
    expect(filter.matches({ Technique: sparse })).toBe(false);
    expect(filter.matches({ Summary: ["needle"], Note: { needle: 1 }, Tactic: "needle", Time: 1 })).toBe(
      false,
    );
    expect(filter.matches({ Technique: [1, "NEEDLE"] })).toBe(true);
    for (const value of [null, undefined, 3, "needle", Symbol("needle")])
      expect(filter.matches(value)).toBe(false);
  });

  it("agrees with the plain reference on tricky text in every searched field (property)", () => {
    const field = fc.constantFrom(
      "Summary",
      "Note",
      "EventType",
      "RiskLevel",
      "Description",
      "Author",
      "Time",
    );
    const entry = fc.record({
      fields: fc.dictionary(field, trickyText, { maxKeys: 3 }),
      Tactic: fc.array(trickyText, { maxLength: 2 }),
      Technique: fc.array(trickyText, { maxLength: 2 }),
    });
    fc.assert(
      fc.property(entry, trickyText, ({ fields, Tactic, Technique }, term) => {
        const record = { ...fields, Tactic, Technique };
        expect(createTimelineFilter(term).matches(record)).toBe(referenceMatches(record, term));
      }),
      fcOptions(3000),
    );
  });
});

describe("long terms (matched by folding and indexOf)", () => {
  const longText = fc
    .array(fc.constantFrom(...TRICKY), { minLength: 33, maxLength: 60 })
    .map((c) => c.join(""));
  const recased = (text: string, flips: readonly boolean[]): string =>
    [...text]
      .map((c, i) => (flips[i % Math.max(1, flips.length)] ? c.toUpperCase() : c.toLowerCase()))
      .join("");

  it("agree with the plain reference, around and inside longer text (property)", () => {
    fc.assert(
      fc.property(
        trickyText,
        longText,
        trickyText,
        fc.array(fc.boolean(), { maxLength: 8 }),
        (a, x, b, flips) => {
          const record = { Note: `${a}${x}${b}`, Technique: [x.slice(1)] };
          for (const term of [recased(x, flips), x, `${x}${b}`, x.slice(0, -1)]) {
            expect(createTimelineFilter(term).matches(record)).toBe(referenceMatches(record, term));
          }
        },
      ),
      fcOptions(1000),
    );
  });

  it("stay linear on a pathological input (a million-character field, a 10,000-character term)", () => {
    const record = { Description: "a".repeat(1_000_000) };
    expect(createTimelineFilter(`${"A".repeat(9_999)}b`).matches(record)).toBe(false);
    expect(createTimelineFilter(`${"A".repeat(9_999)}a`).matches(record)).toBe(true);
    // Linear as a ratio, which a busy machine cannot fail: ten times the field costs at most 30 times the
    // time (the fastest of three runs each); a naive search would cost the field times the term.
    const fastest = (length: number) => {
      const field = { Description: "a".repeat(length) };
      const filter = createTimelineFilter(`${"A".repeat(9_999)}b`);
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        filter.matches(field);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    expect(fastest(1_000_000)).toBeLessThan(30 * fastest(100_000));
  });

  it("do not match half of a surrogate pair with a lone surrogate at either end", () => {
    const pair = "\u{10400}"; // \uD801\uDC00
    const long = "x".repeat(40);
    expect(containsFolded(`${long}${pair}`, `${long}\uD801`)).toBe(false);
    expect(containsFolded(`${long}\uD801!`, `${long}\uD801`)).toBe(true);
    expect(containsFolded(`${pair}${long}`, `\uDC00${long}`)).toBe(false);
    expect(containsFolded(`${pair}${long} \uDC00${long}`, `\uDC00${long}`)).toBe(true);
    expect(createTimelineFilter(`${long}\uD801`).matches({ Note: `${long}${pair}` })).toBe(false);
  });
});

describe("filterTimelineEntries", () => {
  it("keeps the matching entries in input order and returns a new array", () => {
    const entries = [{ Note: "b x" }, { Note: "a" }, { Note: "X" }];
    expect(filterTimelineEntries(entries, "x")).toEqual([entries[0], entries[2]]);
    const all = filterTimelineEntries(entries, " ");
    expect(all).toEqual(entries);
    expect(all).not.toBe(entries);
  });

  it("throws a TypeError when the entries are not an array", () => {
    expect(() => filterTimelineEntries({} as unknown as unknown[], "x")).toThrow(TypeError);
  });
});

describe("ASCII terms searched in the raw text (no normalisation of values without a hit)", () => {
  const codePoints: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp < 0xd800 || cp > 0xdfff) codePoints.push(String.fromCodePoint(cp));
  }
  const isAscii = (unit: number): boolean => unit < 0x80;

  it("NFC creates ASCII only from the singletons U+037E, U+1FEF and U+212A (every code point)", () => {
    // The facts behind the raw-text path: an ASCII character in a canonical decomposition comes first, and
    // either is the whole decomposition or composes with the character after it.
    const singletons = new Set<string>();
    const wrong: string[] = [];
    for (const c of codePoints) {
      if (isAscii(c.charCodeAt(0))) continue;
      const d = c.normalize("NFD");
      for (let i = 1; i < d.length; i++) if (isAscii(d.charCodeAt(i))) wrong.push(c);
      if (!isAscii(d.charCodeAt(0))) continue;
      if (d.length === 1) {
        singletons.add(`${c}→${d}`);
        continue;
      }
      const composed = `${d[0]}${d[1]}`.normalize("NFC");
      if ([...composed].length !== 1 || isAscii(composed.charCodeAt(0))) wrong.push(c);
    }
    expect(wrong).toEqual([]);
    expect([...singletons].sort()).toEqual(["\u037e→;", "\u1fef→`", "\u212a→K"].sort());
    for (let unit = 0; unit < 0x80; unit++) {
      expect(String.fromCharCode(unit).normalize("NFD")).toBe(String.fromCharCode(unit));
    }
  });

  it("knows the whole simple case folding class of each ASCII character (every code point)", () => {
    const all = codePoints.join("");
    const wrong: string[] = [];
    for (let unit = 0; unit < 0x80; unit++) {
      const c = String.fromCharCode(unit);
      const expected = [...new Set(all.match(new RegExp(escapeRegex(c), "giu")) ?? [])].sort();
      const members = asciiFoldingClass(c);
      if (JSON.stringify([...members].sort()) !== JSON.stringify(expected)) wrong.push(c);
    }
    expect(wrong).toEqual([]);
    expect(asciiFoldingClass("k")).toEqual(["k", "K", "\u212A"]);
  });

  it.each([
    ["MIMIKATZ", ["z", "Z"]],
    ["T1003", ["3"]],
    ["ask", ["k", "K", "\u212A"]],
    ["lsass.exe", ["x", "X"]],
    ["a#b", ["#"]],
    ["Ask", ["k", "K", "\u212A"]],
    // Only common characters: not worth an `indexOf` per value.
    ["detected", []],
    ["the", []],
    ["on host", []],
  ])("prefilters %j on the characters %j", (term, characters) => {
    expect(rawPrefilterCharacters(term)).toEqual(characters);
  });

  it.each([
    // Raw text without the term, NFC text with it: only through the singletons, kept off the raw path.
    ["a\u037Eb", "a;b", true],
    ["\u1FEFx", "`x", true],
    ["\u212Aelvin", "kelvin", true],
    ["\u017Fystem", "SYSTEM", true],
    // Raw text with the term, NFC text without it.
    ["cafe\u0301", "cafe", false],
    ["cafe\u0301 cafe", "cafe", true],
    ["=\u0338", "=", false],
    ["x\u0338=", "x", true],
    ["A\u030A", "a", false],
    [`${"filler ".repeat(10)}e\u0301vil`, "evil", false],
    ["\u0958a", "a", true],
  ])("%j with term %j → %s", (text, term, keeps) => {
    expect(createTimelineFilter(term).matches({ Note: text })).toBe(keeps);
  });

  /** Characters that NFC composes, decomposes, reorders or maps, among ASCII that they may turn into. */
  const NFC_SENSITIVE = [
    "a",
    "A",
    "e",
    "E",
    "k",
    "K",
    "s",
    "S",
    "x",
    ";",
    "`",
    " ",
    "\u0000",
    "\u0301",
    "\u0323",
    "\u0308",
    "\u0338",
    "\u0344",
    "\u0340",
    "\u030A",
    "\u037E",
    "\u1FEF",
    "\u1FEE",
    "\u212A",
    "\u212B",
    "\u017F",
    "\u00E9",
    "\u00C5",
    "\u0958",
    "\u093C",
    "\u1100",
    "\u1161",
    "\u11A8",
    "\uAC00",
    "\u{1D15E}",
    "\u{1D165}",
    "\uD800",
  ];
  const sensitiveText = (maxLength: number): fc.Arbitrary<string> =>
    fc.array(fc.constantFrom(...NFC_SENSITIVE), { maxLength }).map((chars) => chars.join(""));
  const asciiTerm = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
    fc
      .array(fc.constantFrom("a", "A", "e", "E", "k", "K", "s", "S", "x", ";", "`", " ", "\u0000"), {
        minLength,
        maxLength,
      })
      .map((chars) => chars.join(""));

  it("agree with the plain reference on NFC-sensitive text, short terms (property)", () => {
    fc.assert(
      fc.property(sensitiveText(12), sensitiveText(40), asciiTerm(1, 4), (a, b, term) => {
        // The term also occurs in `b` often enough: it is spliced in between NFC-sensitive characters.
        const record = { Summary: a, Description: `${b.slice(0, 20)}${term}${b.slice(20)}` };
        const other = { Note: a, Technique: [b] };
        expect(createTimelineFilter(term).matches(record)).toBe(referenceMatches(record, term));
        expect(createTimelineFilter(term).matches(other)).toBe(referenceMatches(other, term));
      }),
      fcOptions(3000),
    );
  });

  it("agree with the plain reference on NFC-sensitive text, long terms (property)", () => {
    fc.assert(
      fc.property(sensitiveText(8), asciiTerm(33, 40), sensitiveText(8), (a, term, b) => {
        const recased = term.toUpperCase();
        for (const text of [`${a}${term}${b}`, `${a}${recased}\u0301${b}`, `${a}${term.slice(1)}${b}`]) {
          const record = { Note: text, Tactic: [b, text] };
          expect(createTimelineFilter(term).matches(record)).toBe(referenceMatches(record, term));
        }
      }),
      fcOptions(500),
    );
  });

  it("answer exactly with and without a prefilter, over many entries", () => {
    const entries = Array.from({ length: 5000 }, (_, i) => ({
      TimelineID: i,
      Note: i % 3 === 0 ? `the EvE\u0301nt ${i}` : `the event ${i}`,
      Author: i % 7 === 0 ? "Kelvin \u212A" : "someone",
    }));
    for (const term of ["eve", "ent 4", "nt 4", "\u212Aelvin", "kelvin k", "Kelvin", "e\u0301n"]) {
      const expected = entries.filter((entry) => referenceMatches(entry, term)).map((e) => e.TimelineID);
      expect(filterTimelineEntries(entries, term).map((e) => e.TimelineID)).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    }
  });
});
