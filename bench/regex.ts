/**
 * The regex matcher against re2js (docs/semantics.md 1.7, "Matching cost"). Run alone:
 * `npx tsx bench/regex.ts` (about a minute; `--quick` for fewer rounds).
 *
 * Adversarial: patterns at the per-pattern budget (1,000 instructions, 1,000 characters) of several shapes,
 * each against a 10 KB value chosen to keep the automaton busy to the end without matching. Ordinary:
 * everyday patterns over 10,000 realistic incident titles. For each, the median of several rounds of our
 * bit-parallel matcher (`compileRegex`, literal fast paths off for the adversarial shapes since none is a
 * literal) and of re2js's `test` (its lazy DFA, falling back to its NFA), and their ratio. Literal chains:
 * patterns such as `(port scan|VPN) .* on` over the same titles, `compileRegex` (string search) against the
 * engine alone (`compileRegexEngine`, our bit-parallel matcher), and their ratio. The answers of all
 * engines must agree, or the run fails.
 */

import { RE2JS } from "re2js";
import {
  clearRegexCache,
  compileRegex,
  compileRegexEngine,
  measurePattern,
} from "../src/conditions/regex/matcher.js";
import { regexFlagBits } from "../src/conditions/regex/program.js";
import { generateIncidents } from "./generate-incidents.js";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 3 : 7;

/** A pseudo-random string of `length` characters from `alphabet` (fixed seed). */
function randomText(length: number, alphabet: string, seed: number): string {
  let state = seed;
  let text = "";
  const chars = [...alphabet];
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += chars[Math.floor((state / 2_147_483_648) * chars.length)];
  }
  return text;
}

/** RE2JS flag bits of `$options` flags. */
const bitsOf = (flags: string): number => regexFlagBits(flags) ?? 0;

/** The median of `rounds` timings (ms) of `run`. */
function median(rounds: number, run: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/**
 * A 10 KB value that keeps a shape busy to the end without matching: it starts with `cd` (the text every
 * match of `x…cd` needs, so no prefilter answers), then `a`/`b` with an `x` or a space now and then.
 */
const hostileValue = (seed: number, alphabet = "ababababababababxab "): string =>
  `cd${randomText(10_238, alphabet, seed)}`;

/** `(?:B(1)(?:B(2)(?:…)*)*)*` for `levels` levels, the body of level k being `body(k)`. */
function nestedLoops(levels: number, body: (k: number) => string, close = ")*"): string {
  let open = "";
  for (let k = 1; k <= levels; k++) open += `(?:${body(k)}`;
  return `${open}${close.repeat(levels)}`;
}

/** The adversarial shapes: [name, pattern, flags, value]. Each is `x…cd` unless it has no room. */
export const ADVERSARIAL: readonly (readonly [string, string, string, string])[] = [
  ["2^n DFA states: [ab]*a[ab]{996}c", "[ab]*a[ab]{996}c", "", hostileValue(7, "ab")],
  ["runs of optional items: x(?:[ab]?){490}cd", "x(?:[ab]?){490}cd", "", hostileValue(3)],
  ["loops in a counted loop: x(?:[ab]*a){330}cd", "x(?:[ab]*a){330}cd", "", hostileValue(5)],
  [
    "big alternation in a loop: x(?:[ab]ba|[ab]bb|…80)*cd",
    `x(?:${Array.from({ length: 80 }, (_, i) => `[ab]${(i + 2).toString(2).replaceAll("0", "a").replaceAll("1", "b")}`).join("|")})*cd`,
    "",
    hostileValue(9),
  ],
  ["40 nested loops of [ab]{k}", `x${nestedLoops(40, (k) => `[ab]{${k}}`)}cd`, "", hostileValue(19)],
  [
    "45 nested loops of (?:[ab]{k}|a\\B)",
    `x${nestedLoops(45, (k) => `(?:[ab]{${(k % 9) + 1}}|a\\B)`)}cd`,
    "",
    hostileValue(21),
  ],
  [
    "word boundaries: x(?:\\b[ab]+\\b ?|\\B[ab]){110}cd",
    "x(?:\\b[ab]+\\b ?|\\B[ab]){110}cd",
    "",
    hostileValue(11),
  ],
  [
    "(?i) over Unicode: (?i)x(?:[σk]|ſ)*σ[kσſ]{100}cd",
    "(?i)x(?:[σk]|ſ)*σ[kσſ]{100}cd",
    "",
    `cd${randomText(10_238, "σΣςkKſS\u212Ax", 13)}`,
  ],
  [
    "166 distinct negated classes",
    Array.from({ length: 166 }, (_, i) => `[^${String.fromCodePoint(0x4e00 + i)}]`).join(""),
    "",
    randomText(10_240, Array.from({ length: 400 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(""), 15),
  ],
  ["dot with s over lines: x.{990}cd", "x.{990}cd", "s", `cd${randomText(10_238, "abx\n", 17)}`],
];

/** Everyday patterns over titles. */
const ORDINARY: readonly (readonly [string, string])[] = [
  ["^Phish", ""],
  ["(?i)malware|ransom", ""],
  ["\\d{3}-\\d{4}", ""],
  ["^(Phish|Spam)ing", "i"],
  ["\\bCVE-\\d{4}-\\d+\\b", ""],
  ["(?i)^(?:re|fw):\\s", ""],
  ["[A-Z]{3,}", ""],
  ["(?i)powershell.*-enc", ""],
];

/** Literal chains over titles (`chain.ts`): each must be a chain. */
const CHAINS: readonly (readonly [string, string])[] = [
  ["(port scan|VPN) .* on", ""],
  ["(port scan|VPN) .* on", "i"],
  ["^Suspicious.*login", ""],
  ["Critical.*(detected|blocked) on srv-", ""],
  ["[Pp]ower[Ss]hell.*on host-4", ""],
  ["phishing.*host-\\d", "i"],
  ["^Confirmed .*-42$", ""],
];

function row(name: string, ours: number, theirs: number, extra = ""): void {
  console.log(
    `${name.padEnd(52)} ours ${ours.toFixed(2).padStart(8)} ms   re2js ${theirs.toFixed(2).padStart(9)} ms   re2js/ours ${(theirs / ours).toFixed(1).padStart(7)}×${extra}`,
  );
}

console.log(`adversarial patterns at the budget, one 10 KB value (median of ${ROUNDS}):`);
for (const [name, pattern, flags, value] of ADVERSARIAL) {
  const measure = measurePattern(pattern, flags);
  if (!measure.ok || measure.size > 1000 || pattern.length > 1000)
    throw new Error(`${name}: not within the budget (${JSON.stringify(measure)})`);
  clearRegexCache();
  const ours = compileRegex(pattern, flags);
  const theirs = RE2JS.compile(pattern, bitsOf(flags));
  const expected = theirs.test(value);
  if (ours.test(value) !== expected) throw new Error(`${name}: the engines disagree`);
  const oursMs = median(ROUNDS, () => ours.test(value));
  const theirsMs = median(quick ? 1 : 3, () => theirs.test(value));
  row(name, oursMs, theirsMs, `   size ${measure.size}, match ${expected}`);
}

const titles = generateIncidents(10_000, 1).map((incident) => String(incident.Title));
console.log(`\nordinary patterns over ${titles.length} titles (median of ${ROUNDS}):`);
for (const [pattern, flags] of ORDINARY) {
  clearRegexCache();
  const ours = compileRegex(pattern, flags);
  const theirs = RE2JS.compile(pattern, bitsOf(flags));
  let agree = 0;
  for (const title of titles) if (ours.test(title) === theirs.test(title)) agree++;
  if (agree !== titles.length) throw new Error(`/${pattern}/${flags}: the engines disagree`);
  const count = titles.filter((title) => theirs.test(title)).length;
  const oursMs = median(ROUNDS, () => {
    for (const title of titles) ours.test(title);
  });
  const theirsMs = median(ROUNDS, () => {
    for (const title of titles) theirs.test(title);
  });
  row(
    `/${pattern}/${flags}${ours.literal === undefined ? "" : " (literal)"}`,
    oursMs,
    theirsMs,
    `   ${count} match`,
  );
}

console.log(
  `\nliteral chains over ${titles.length} titles, string search vs the engine alone (best of ${2 * ROUNDS} interleaved rounds):`,
);
for (const [pattern, flags] of CHAINS) {
  clearRegexCache();
  const chain = compileRegex(pattern, flags);
  if (chain.chain === undefined) throw new Error(`/${pattern}/${flags}: not a chain`);
  const engine = compileRegexEngine(pattern, flags);
  const theirs = RE2JS.compile(pattern, bitsOf(flags));
  for (const title of titles) {
    const expected = theirs.test(title);
    if (chain.test(title) !== expected || engine.test(title) !== expected)
      throw new Error(`/${pattern}/${flags}: the engines disagree on ${JSON.stringify(title)}`);
  }
  const count = titles.filter((title) => theirs.test(title)).length;
  // Interleaved rounds, best of each: the two sides see the same machine load.
  let chainMs = Number.POSITIVE_INFINITY;
  let engineMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 2 * ROUNDS; r++) {
    chainMs = Math.min(
      chainMs,
      median(1, () => {
        for (const title of titles) chain.test(title);
      }),
    );
    engineMs = Math.min(
      engineMs,
      median(1, () => {
        for (const title of titles) engine.test(title);
      }),
    );
  }
  console.log(
    `${`/${pattern}/${flags}`.padEnd(52)} chain ${chainMs.toFixed(2).padStart(7)} ms (${((chainMs * 1e6) / titles.length).toFixed(0).padStart(4)} ns/value)   engine ${engineMs.toFixed(2).padStart(7)} ms (${((engineMs * 1e6) / titles.length).toFixed(0).padStart(4)} ns/value)   engine/chain ${(engineMs / chainMs).toFixed(1).padStart(5)}×   ${count} match`,
  );
}
