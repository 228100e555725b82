import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { regexPatternArb } from "../../test/arbitraries/regex.js";
import { fcOptions } from "../../test/support/fc.js";
import { indexed } from "../../test/support/text-index.js";
import { evaluate } from "../conditions/evaluate.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { analyzeChain } from "../conditions/regex/chain.js";
import { analyzeLiteral, compileRegex } from "../conditions/regex/matcher.js";
import { IncidentSet } from "./incident-set.js";
import { compareOrderKeys, orderKeyOf } from "./order.js";
import { startBudget } from "./search-budget.js";
import {
  checkLiteral,
  foldVariant,
  proveChain,
  proveLiteral,
  TextColumn,
  type TextIndex,
} from "./text/index.js";

/** The ids `checkLiteral` accepts among every string value, and those it leaves to the pattern. */
function literalAnswers(index: TextIndex, values: readonly unknown[], source: string, flags: string) {
  const literal = analyzeLiteral(source, flags);
  if (literal === undefined) throw new Error(`${source} is not a literal`);
  const candidates = values.flatMap((value, id) => (typeof value === "string" ? [id] : []));
  const accepted: number[] = [];
  const undecided: number[] = [];
  const done = checkLiteral(
    index,
    literal,
    candidates,
    startBudget(undefined),
    (id) => accepted.push(id),
    (id) => undecided.push(id),
  );
  return { done, accepted, undecided };
}

const VALUES = [
  "Suspicious phishing email",
  "phi", // a value ending where the next begins: no match across values
  "shing reported",
  "PHISHING on host",
  "phis hing", // every trigram but not contiguous… (no "ish")
  "ishing phis shing", // holds all trigrams of "phishing", not the word
  "",
  "phishing",
  "x phishing",
  "\u212Aernel panic", // KELVIN SIGN: RE2 folds it with k under `i`
  "kernel panic",
  "ünïcode phishing",
  "a\u0000phishing", // the corpus separator inside a value
  42,
  true,
];

/**
 * Characters for generated values and literals: ASCII letters with their case-folding partners (K and the
 * Kelvin sign, s and long s, the three sigmas, dotted and dotless i), separators, a newline and the two
 * halves of a surrogate pair.
 */
const FOLDING_UNITS = [
  "a",
  "b",
  "s",
  "k",
  "S",
  "K",
  "\u212A",
  "\u017F",
  "\u03A3",
  "\u03C3",
  "\u03C2",
  "\u0130",
  "\u0131",
  "i",
  "I",
  " ",
  ";",
  "\n",
  "-",
  "\uD83D",
  "\uDE00",
  "1",
];

describe("checkLiteral: a literal pattern on the corpus answers as the pattern does", () => {
  const { index } = indexed(VALUES);
  it.each([
    ["phishing", ""],
    ["phishing", "i"],
    ["^phishing", ""],
    ["^phishing", "i"],
    ["phishing$", ""],
    ["^phishing$", ""],
    ["^phishing$", "i"],
    ["PHISHING", "i"],
    ["kernel", "i"],
    ["^kernel", "i"],
    ["phi", ""],
    ["reported", ""],
    ["ünïcode", ""],
    ["a\\.b", ""],
  ])("%s with flags '%s'", (source, flags) => {
    const matcher = compileRegex(source, flags);
    const { done, accepted, undecided } = literalAnswers(index, VALUES, source, flags);
    expect(done).toBe(true);
    for (const [id, value] of VALUES.entries()) {
      if (typeof value !== "string" || undecided.includes(id)) continue;
      expect([id, accepted.includes(id)]).toEqual([id, matcher.test(value)]);
    }
    // Only a case-insensitive literal leaves values to the pattern: those with non-ASCII characters.
    for (const id of undecided) {
      expect(flags).toContain("i");
      expect([...(VALUES[id] as string)].some((c) => c.charCodeAt(0) > 0x7f)).toBe(true);
    }
  });

  it("agrees with the pattern on random values and literals", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "b", "A", "B", "\u212A", "k", "K", "é", "\u0000", " "),
    });
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 30 }),
        fc.string({ unit: fc.constantFrom("a", "b", "A", "k", " "), minLength: 1, maxLength: 4 }),
        fc.constantFrom("", "^", "$", "^$"),
        fc.constantFrom("", "i"),
        (values, word, anchors, flags) => {
          const source = `${anchors.startsWith("^") ? "^" : ""}${word}${anchors.endsWith("$") && anchors !== "^" ? "$" : ""}`;
          // Distinct values: ids are positions in `column.values`.
          const { column, index } = indexed(values);
          const { done, accepted, undecided } = literalAnswers(index, column.values, source, flags);
          expect(done).toBe(true);
          const matcher = compileRegex(source, flags);
          column.values.forEach((value, id) => {
            if (!undecided.includes(id)) expect(accepted.includes(id)).toBe(matcher.test(value as string));
          });
        },
      ),
      fcOptions(300),
    );
  });

  it("declines a case-insensitive literal when the lowered corpus does not fit the budget", () => {
    const values = ["alpha beta", "gamma"];
    const column = new TextColumn("Title", 2, { remaining: 0 });
    values.forEach((value, row) => {
      column.set(row, value, 2);
    });
    expect(column.textIndex()).toBeUndefined(); // nothing fits a budget of 0
    const roomy = indexed(values);
    // Room for the index but not for its lowered copy (one byte per character of an ASCII corpus).
    const needed = roomy.index.bytes() - (roomy.index.corpus?.length ?? 0);
    const exact = indexed(values, needed);
    expect(exact.index.bytes()).toBe(needed);
    expect(literalAnswers(exact.index, values, "beta", "i").done).toBe(false);
    expect(literalAnswers(exact.index, values, "beta", "").accepted).toEqual([0]);
    expect(literalAnswers(roomy.index, values, "BETA", "i").accepted).toEqual([0]);
  });
});

/**
 * `text` with the case of its ASCII letters changed where `seed`'s bits say, `k` and `s` sometimes as the
 * Kelvin sign and the long s (RE2 folds them together): values that match a literal only under `i`.
 */
function recase(text: string, seed: number): string {
  let out = "";
  for (let k = 0; k < text.length; k++) {
    const c = text[k]!;
    const bit = (seed >>> (k % 30)) & 1;
    if (c === "k" && bit === 1 && k % 3 === 0) out += "\u212A";
    else if (c === "s" && bit === 1 && k % 3 === 0) out += "\u017F";
    else if (bit === 1) out += c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    else out += c;
  }
  return out;
}

/**
 * What `proveLiteral` answers for a literal over every string value: accepted, undecided, both in one
 * ascending list (`order`), and how many values it says hold the literal's trigrams (-1: no answer).
 */
function provedAnswers(index: TextIndex, source: string, flags: string, values?: readonly unknown[]) {
  const literal = analyzeLiteral(source, flags);
  if (literal === undefined) throw new Error(`${source} is not a literal`);
  const proof = proveLiteral(index, literal, startBudget(undefined), values);
  if (proof === undefined) return { held: -1, accepted: [], undecided: [], order: [] };
  const accepted = [...proof.accepted];
  const undecided = [...proof.undecided];
  expect([...accepted].sort((a, b) => a - b)).toEqual(accepted);
  expect([...undecided].sort((a, b) => a - b)).toEqual(undecided);
  const order = [...accepted, ...undecided].sort((a, b) => a - b);
  return { held: proof.held, accepted, undecided, order };
}

/**
 * A proof's answers against the pattern on every value: an accepted value matches, a value neither
 * accepted nor undecided does not, and a value that is not a string is neither.
 */
function expectProofSound(
  values: readonly unknown[],
  accepted: readonly number[],
  undecided: readonly number[],
  matcher: { test(value: string): boolean },
  source: string,
  flags: string,
): void {
  values.forEach((value, id) => {
    if (typeof value !== "string") {
      expect(accepted).not.toContain(id);
      expect(undecided).not.toContain(id);
      return;
    }
    const matches = matcher.test(value);
    if (accepted.includes(id)) expect([value, source, flags, matches]).toEqual([value, source, flags, true]);
    else if (!undecided.includes(id))
      expect([value, source, flags, matches]).toEqual([value, source, flags, false]);
  });
}

/** Checks `proveLiteral` against the pattern itself on every value of `values` (distinct). */
function expectProvedAsPattern(
  values: readonly unknown[],
  source: string,
  flags: string,
  withValues = false,
): number {
  const { column, index } = indexed(values);
  const { held, accepted, undecided, order } = provedAnswers(
    index,
    source,
    flags,
    withValues ? column.values : undefined,
  );
  const matcher = compileRegex(source, flags);
  if (held < 0) {
    expect(order).toEqual([]);
    return held;
  }
  expect(order.length).toBe(held);
  // each once (accepted and undecided do not overlap)
  expect(new Set(order).size).toBe(order.length);
  expectProofSound(column.values, accepted, undecided, matcher, source, flags);
  return held;
}

describe("proveLiteral: a literal answered from the trigram lists answers as the pattern does", () => {
  const values = [
    "Suspicious phishing email",
    "PHISHING on host",
    "Anomalous malware download", // `mal` first seen in Anomalous: left undecided, not wrongly rejected
    "ishing phis shing",
    "phishing",
    "x phishing",
    "Repeated login detected",
    "\u212Aernel panic", // KELVIN SIGN: RE2 folds it with k under `i`
    "kernel panic",
    "Kernel panic",
    "ma\u017Fk me", // LONG S: RE2 folds it with s under `i`
    "mask me",
    "ünïcode phishing",
    "a\u0000phishing",
    "semi;colon",
    "semi colon", // space and `;` share a folded symbol
    "semi\u0005colon",
    "line\nbreak phishing",
    "😀 phishing 😀",
    "",
    "ph",
    42,
    true,
  ];
  it.each([
    ["phishing", ""],
    ["phishing", "i"],
    ["PHISHING", ""],
    ["^phishing", ""],
    ["^phishing$", ""],
    ["phishing$", ""],
    ["^Suspicious", ""],
    ["^suspicious", "i"],
    ["malware", ""],
    ["kernel", "i"],
    ["KERNEL", "i"],
    ["^kernel", ""],
    ["mask", "i"],
    ["MASK", "i"],
    ["semi colon", ""],
    ["semi colon", "i"],
    ["detected", ""],
    ["break phishing", ""],
  ])("%s with flags '%s'", (source, flags) => {
    expect(expectProvedAsPattern(values, source, flags)).toBeGreaterThanOrEqual(0);
    expect(expectProvedAsPattern(values, source, flags, true)).toBeGreaterThanOrEqual(0);
  });

  it("reads a value the lists do not prove where they place the literal: in the corpus, else the value", () => {
    const texts = ["Anomalous malware", "Anomalous mall", "malware", "ANOMALOUS MALWARE"];
    const withCorpus = indexed(texts);
    expect(withCorpus.index.corpus).toBeDefined();
    // "ANOMALOUS MALWARE" holds the folded trigrams but not the literal as written: the pattern decides.
    expect(provedAnswers(withCorpus.index, "malware", "")).toMatchObject({
      accepted: [0, 2],
      undecided: [3],
    });
    // Under `i`, the lowered corpus: `mal` is first seen in "Anomalous", and read where the lists place it.
    expect(provedAnswers(withCorpus.index, "MALWARE", "i")).toMatchObject({
      accepted: [0, 2, 3],
      undecided: [],
    });
    // A budget that holds the lists and their records but not the corpus.
    const corpusBytes = withCorpus.index.corpus!.length;
    const listsOnly = indexed(texts, withCorpus.index.bytes() - 2 * corpusBytes + corpusBytes - 1);
    expect(listsOnly.index.corpus).toBeUndefined();
    expect(listsOnly.index.grams.meta).toBeDefined();
    expect(provedAnswers(listsOnly.index, "malware", "")).toMatchObject({ accepted: [2], undecided: [0, 3] });
    expect(provedAnswers(listsOnly.index, "malware", "", listsOnly.column.values)).toMatchObject({
      accepted: [0, 2],
      undecided: [3],
    });
    expect(provedAnswers(listsOnly.index, "MALWARE", "i")).toMatchObject({
      accepted: [2],
      undecided: [0, 3],
    });
  });

  it("declines literals it cannot prove: under three characters, or written with a character of variant 2", () => {
    const { index } = indexed(values);
    expect(provedAnswers(index, "ph", "").held).toBe(-1);
    expect(provedAnswers(index, "\u212Aernel", "").held).toBe(-1);
    expect(provedAnswers(index, "ünïcode", "").held).toBe(-1);
    expect(foldVariant(";".charCodeAt(0))).toBe(2); // shares its symbol with the space, which comes first
    expect(foldVariant(" ".charCodeAt(0))).toBe(0);
    expect(provedAnswers(index, "semi;colon", "").held).toBe(-1);
    expect(provedAnswers(index, "phishing 😀", "").held).toBe(-1);
  });

  it("accepts the values it proves without reading them (no value left undecided on plain titles)", () => {
    const { index } = indexed([
      "Suspicious phishing email",
      "phishing on host",
      "Failed login",
      "x phishing",
    ]);
    expect(provedAnswers(index, "phishing", "")).toMatchObject({ accepted: [0, 1, 3], undecided: [] });
    expect(provedAnswers(index, "^PHISHING", "i")).toMatchObject({ accepted: [1], undecided: [] });
  });

  it("searches a value the lists do not prove for the literal's first occurrence, where the anchors allow it", () => {
    // Every trigram of "reported" is first seen before it in values 0, 1, 3 and 4: wherever a list places
    // the literal, it is not there.
    const texts = [
      "rep ort ted reported",
      "rep ort ted",
      "reported rep ort ted",
      "REP ORT TED REPORTED",
      "rep ort ted reportedreported",
    ];
    const { column, index } = indexed(texts);
    const proof = (source: string, flags: string) => {
      const answer = proveLiteral(index, analyzeLiteral(source, flags)!, startBudget(undefined))!;
      return { accepted: [...answer.accepted], at: [...answer.at], undecided: [...answer.undecided] };
    };
    // Accepted at the literal's first occurrence (`at`, which chains rely on).
    expect(proof("reported", "")).toEqual({ accepted: [0, 2, 4], at: [12, 0, 12], undecided: [1, 3] });
    expect(proof("REPORTED", "i")).toEqual({ accepted: [0, 2, 3, 4], at: [12, 0, 12, 12], undecided: [1] });
    // `^`: only a value that begins with it; `$`: only one whose first occurrence ends it.
    expect(proof("^reported", "").accepted).toEqual([2]);
    expect(proof("reported$", "")).toMatchObject({ accepted: [0], at: [12] });
    // Without a corpus, in the value itself (when case matters).
    const bare = indexed(texts, index.bytes() - index.corpus!.length - 1);
    expect(bare.index.corpus).toBeUndefined();
    const answer = proveLiteral(
      bare.index,
      analyzeLiteral("reported", "")!,
      startBudget(undefined),
      bare.column.values,
    )!;
    expect([...answer.accepted]).toEqual([0, 2, 4]);
    expect([...answer.at]).toEqual([12, 0, 12]);
    expectProofSound(
      column.values,
      [...answer.accepted],
      [...answer.undecided],
      compileRegex("reported", ""),
      "reported",
      "",
    );
  });

  it("walks and gallops through a list far longer than the candidates without losing one", () => {
    // `the` is in every value (a list of 3,000 entries); `zebra` in about 60, at gaps from 1 to 200
    // entries, so that the next candidate lies within the walk of `seekId` or beyond it; near misses too.
    const values: string[] = [];
    let next = 0;
    for (let i = 0; i < 3000; i++) {
      const rare = i === next;
      if (rare) next += 1 + ((i * 37) % 200);
      const word = rare ? (i % 5 === 0 ? "ZEBRA" : "zebra") : i % 7 === 0 ? "zebrx" : "horse";
      values.push(i % 3 === 0 ? `${word} the ${i}` : `the ${word} ${i}`);
    }
    for (const [source, flags] of [
      ["the zebra", ""],
      ["the zebra", "i"],
      ["^the zebra", ""],
      ["zebra the", "i"],
      ["^zebra the", ""],
    ] as const) {
      const { column, index } = indexed(values);
      const { held, accepted, undecided } = provedAnswers(index, source, flags);
      expect(held).toBeGreaterThan(0);
      const matcher = compileRegex(source, flags);
      const matching = values.flatMap((v, id) => (matcher.test(v) ? [id] : []));
      expect(matching.length).toBeGreaterThan(5);
      expect(accepted).toEqual(matching); // every match proved from the lists, none left to the pattern
      expectProofSound(column.values, accepted, undecided, matcher, source, flags);
    }
  });

  it("agrees with the pattern on random values and literals (case folding, surrogates, newlines)", () => {
    let proved = 0;
    const unit = fc.constantFrom(...FOLDING_UNITS, "\u0005", "\u0000", "~");
    const text = fc.string({ unit, maxLength: 24 });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, fc.constant(7), fc.constant("")), { maxLength: 30 }),
        fc.string({
          unit: fc.constantFrom("a", "b", "s", "k", "S", "K", "i", "I", " ", "-", "1"),
          minLength: 3,
          maxLength: 7,
        }),
        fc.constantFrom("", "^", "$", "^$"),
        fc.constantFrom("", "i"),
        fc.nat(),
        (drawn, word, anchors, flags, pick) => {
          // Each value also with its letters' case changed (and k, s as U+212A, U+017F): near misses.
          const values = [...drawn, ...drawn.map((v) => (typeof v === "string" ? recase(v, pick) : v))];
          // Half the time the literal is cut from a value, so that matches are common.
          const strings = values.filter((v): v is string => typeof v === "string" && v.length >= 3);
          const from = strings.length > 0 && pick % 2 === 0 ? strings[pick % strings.length]! : undefined;
          const cut =
            from === undefined
              ? word
              : from.slice(pick % (from.length - 2), (pick % (from.length - 2)) + 3 + (pick % 4));
          if (!/^[a-zA-Z0-9 \-~]+$/.test(cut)) return; // a literal of plain characters (no escapes needed)
          const source = `${anchors.startsWith("^") ? "^" : ""}${cut}${anchors.endsWith("$") && anchors !== "^" ? "$" : ""}`;
          if (analyzeLiteral(source, flags) === undefined) return;
          if (expectProvedAsPattern(values, source, flags, pick % 3 === 0) >= 0) proved++;
        },
      ),
      fcOptions(400),
    );
    expect(proved).toBeGreaterThan(100); // the proof itself ran, not only its refusals
  });
});

/**
 * Checks `proveChain` against the pattern itself on every value of `values` (distinct): each accepted value
 * matches, each value neither accepted nor undecided does not. Returns how many it accepted (-1: no answer).
 */
function expectChainAsPattern(values: readonly unknown[], source: string, flags: string): number {
  const chain = analyzeChain(source, flags);
  if (chain === undefined) throw new Error(`${source} is not a chain`);
  const { column, index } = indexed(values);
  const proof = proveChain(index, chain, startBudget(undefined), column.values);
  if (proof === undefined) return -1;
  const accepted = [...proof.accepted];
  const undecided = [...proof.undecided];
  expect([...accepted].sort((a, b) => a - b)).toEqual(accepted);
  expect([...undecided].sort((a, b) => a - b)).toEqual(undecided);
  expect(accepted.length + undecided.length).toBe(proof.held);
  expect(new Set([...accepted, ...undecided]).size).toBe(proof.held);
  expectProofSound(column.values, accepted, undecided, compileRegex(source, flags), source, flags);
  return accepted.length;
}

describe("proveChain: a literal chain answered from the trigram lists answers as the pattern does", () => {
  const values = [
    "Repeated port scan detected on host-1",
    "VPN connection observed on srv-2",
    "port scan on", // the second segment's first occurrence overlaps the first: no gap, still a match
    "on port scan", // " on" only before: no match
    "x on port scan y on z", // " on" first before, then after: the lists cannot tell, the pattern must
    "PORT SCAN detected ON host", // only under `i`
    "port scan detected\nblocked on host", // a newline in the gap: only with `s`
    "\u212Aernel port scan blocked on", // KELVIN SIGN
    "port \u017Fcan blocked on", // LONG S: RE2 folds it with s under `i`
    `${"x".repeat(300)} port scan on`, // first occurrences past 254: undecided
    "port scan",
    "VPN",
    "ünïcode VPN on",
    "",
    42,
  ];
  it.each([
    ["(port scan|VPN) .* on", ""],
    ["(port scan|VPN) .* on", "i"],
    ["(port scan|VPN) .* on", "s"],
    ["(port scan|VPN).* on", ""],
    ["^(port scan|VPN) .* on", ""],
    ["(port scan|VPN) .* on$", ""],
    ["(port scan|VPN) .* on host", "i"],
    ["^Repeated.*detected.*host-1$", ""],
    ["port.*scan.* on", ""],
    ["port.*scan.* on", "is"],
  ])("%s with flags '%s'", (source, flags) => {
    expect(expectChainAsPattern(values, source, flags)).toBeGreaterThanOrEqual(0);
  });

  it("accepts the values it proves without reading them, and leaves the others to the pattern", () => {
    const { column, index } = indexed(values);
    const chain = analyzeChain("(port scan|VPN) .* on", "");
    const proof = proveChain(index, chain!, startBudget(undefined), column.values)!;
    const text = (ids: Int32Array) => [...ids].map((id) => column.values[id]);
    expect(text(proof.accepted)).toEqual([
      "Repeated port scan detected on host-1",
      "VPN connection observed on srv-2",
      "\u212Aernel port scan blocked on",
    ]);
    // "port scan on" matches, but " on" first occurs inside "port scan ": the pattern decides; so for the
    // value with a newline in the gap, the one with " on" first before the scan, and the long one.
    expect(text(proof.undecided)).toEqual(
      expect.arrayContaining([
        "port scan on",
        "x on port scan y on z",
        "port scan detected\nblocked on host",
        `${"x".repeat(300)} port scan on`,
      ]),
    );
    // "on port scan" lacks " on" after… but holds the trigrams: undecided or rejected, never accepted.
    expect(text(proof.accepted)).not.toContain("on port scan");
    // A value lacking a segment's trigrams is neither.
    expect([...text(proof.accepted), ...text(proof.undecided)]).not.toContain("port scan");
  });

  it("declines a chain with a string it cannot prove (under three characters)", () => {
    const { column, index } = indexed(values);
    const chain = analyzeChain("(port scan|VPN).*on", "");
    expect(proveChain(index, chain!, startBudget(undefined), column.values)).toBeUndefined();
  });

  it("without a corpus, proves only chains whose gaps may hold a newline (it cannot tell which values hold one)", () => {
    const roomy = indexed(values);
    const lists = roomy.index.starts.byteLength + roomy.index.kinds.byteLength + roomy.index.grams.bytes();
    const { column, index } = indexed(values, lists);
    expect(index.corpus).toBeUndefined();
    expect(index.grams.meta).toBeDefined();
    const prove = (flags: string) =>
      proveChain(
        index,
        analyzeChain("(port scan|VPN) .* on", flags)!,
        startBudget(undefined),
        column.values,
      )!;
    expect(prove("").accepted.length).toBe(0);
    expect(prove("").undecided.length).toBeGreaterThan(0);
    expect(prove("s").accepted.length).toBeGreaterThan(0);
    for (const flags of ["", "s"])
      expect(expectChainAsPattern(values, "(port scan|VPN) .* on", flags)).toBeGreaterThan(0);
  });

  it("declines a chain of more than 32 strings in all (a pass over lists each), and the set still answers", () => {
    const { column, index } = indexed(values);
    const proves = (source: string) =>
      proveChain(index, analyzeChain(source, "")!, startBudget(undefined), column.values) !== undefined;
    const chainOf = (n: number) => Array.from({ length: n }, () => "(port|scan)").join(".*");
    expect(proves(chainOf(16))).toBe(true); // 32 strings
    expect(proves(chainOf(17))).toBe(false); // 34
    const set = new IncidentSet(
      values.map((Title, IncidentId) => ({ IncidentId, Title })),
      { maxDictionary: 0 },
    );
    for (const n of [1, 16, 17, 70]) {
      const condition = parseSearchConditions({ Title: { $regex: chainOf(n) } });
      const expected = values.filter((Title) => evaluate(condition, { Title })).length;
      expect([n, set.count(condition)]).toEqual([n, expected]);
    }
  });

  it("agrees with the pattern on random values and chains (case folding, surrogates, newlines)", () => {
    let accepted = 0;
    const unit = fc.constantFrom(...FOLDING_UNITS, "~");
    const text = fc.string({ unit, maxLength: 24 });
    const word = fc.string({
      unit: fc.constantFrom("a", "b", "s", "k", "S", "K", "i", "I", " ", "-", "1"),
      minLength: 3,
      maxLength: 6,
    });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, fc.constant(7), fc.constant("")), { maxLength: 30 }),
        fc.array(fc.array(word, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("", "^"),
        fc.constantFrom("", "$"),
        fc.constantFrom("", "i", "s", "is"),
        fc.nat(),
        (drawn, segments, start, end, flags, pick) => {
          const values = [...drawn, ...drawn.map((v) => (typeof v === "string" ? recase(v, pick) : v))];
          // Half the time a value is built from the chain's own strings, so that matches are common.
          if (pick % 2 === 0)
            values.push(
              segments.map((alternatives, k) => alternatives[(pick + k) % alternatives.length]).join("~"),
            );
          const escaped = segments.map((alternatives) =>
            alternatives.map((a) => a.replace(/[\\^$.|?*+()[\]{}-]/g, "\\$&")),
          );
          const source = `${start}${escaped.map((a) => (a.length === 1 ? a[0] : `(${a.join("|")})`)).join(".*")}${end}`;
          const chain = analyzeChain(source, flags);
          if (chain === undefined) return;
          const distinct = [...new Set(values)];
          const n = expectChainAsPattern(distinct, source, flags);
          if (n > 0) accepted += n;
        },
      ),
      fcOptions(400),
    );
    expect(accepted).toBeGreaterThan(50); // the proof itself accepted values, not only refused
  });
});

describe("IncidentSet: text index (literals proved from the lists) against evaluate", () => {
  const unit = fc.constantFrom(...FOLDING_UNITS);
  const title = fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit, maxLength: 16 }) },
    { weight: 1, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.constant(12) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.array(fc.string({ unit, maxLength: 8 }), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const literal = fc
    .tuple(
      fc.constantFrom("", "^"),
      fc.string({
        unit: fc.constantFrom("a", "b", "s", "k", "S", "K", "i", "I", " ", "-", "1"),
        minLength: 3,
        maxLength: 6,
      }),
      fc.constantFrom("", "$"),
    )
    .map(([a, text, b]) => `${a}${text}${b}`);
  const pattern = fc.oneof(
    literal,
    regexPatternArb(() => [
      fc.constantFrom("a", "b", "s", "k", "K", "i", " ", "\\d", ".", "[ab]", "[sk]", "^", "$"),
    ]),
  );

  it("count and findAll answer as evaluate on generated titles and patterns", () => {
    fc.assert(
      fc.property(
        fc.array(title, { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(pattern, fc.constantFrom("", "i", "m", "s")), { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("", "^", "$"), fc.constantFrom("", "i")), {
          maxLength: 3,
        }),
        (drawn, generated, cuts) => {
          const titles = [
            ...drawn,
            ...drawn.map((t, i) => (typeof t === "string" ? recase(t, i * 7919 + 13) : t)),
          ];
          const incidents = titles.map((t, i) =>
            t === undefined ? { IncidentId: i } : { IncidentId: i, Title: t },
          );
          // Literals cut from the titles (so that some match), with an anchor and a flag.
          const strings = titles.filter((t): t is string => typeof t === "string" && t.length >= 3);
          const patterns: [string, string][] = [...generated];
          const cut: string[] = [];
          for (const [pick, anchor, flags] of cuts) {
            if (strings.length === 0) break;
            const from = strings[pick % strings.length]!;
            const at = pick % (from.length - 2);
            const text = from.slice(at, at + 3 + (pick % 5)).replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
            patterns.push([anchor === "^" ? `^${text}` : anchor === "$" ? `${text}$` : text, flags]);
            cut.push(text);
          }
          // Literal chains of the cuts (text/chain-proof.ts `proveChain`), with and without `s`.
          for (let k = 0; k + 1 < cut.length; k++) {
            patterns.push([`${cut[k]}.*${cut[k + 1]}`, k % 2 === 0 ? "" : "is"]);
            patterns.push([`(${cut[k]}|${cut[k + 1]}).*${cut[k]}$`, k % 2 === 0 ? "i" : "s"]);
          }
          // maxDictionary 0: Title is a text column, indexed on the first pattern.
          const set = new IncidentSet(incidents, { maxDictionary: 0 });
          for (const [source, flags] of patterns) {
            const raw = { Title: { $regex: source, $options: flags } };
            let condition: ReturnType<typeof parseSearchConditions>;
            try {
              condition = parseSearchConditions(raw);
            } catch {
              continue; // a pattern RE2 refuses
            }
            const expected = incidents.filter((incident) => evaluate(condition, incident));
            expect([source, flags, set.count(condition)]).toEqual([source, flags, expected.length]);
            expect(set.findAll(condition).map((incident) => incident.IncidentId)).toEqual(
              expected
                .sort((a, b) => compareOrderKeys(orderKeyOf(a), orderKeyOf(b)))
                .map((incident) => incident.IncidentId),
            );
          }
        },
      ),
      fcOptions(300),
    );
  });
});
