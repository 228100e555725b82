/**
 * The linear-time regular-expression layer of Search Conditions (docs/semantics.md 1.4, 1.7).
 *
 * Every `$regex` pattern is parsed and compiled by RE2 (the `re2js` port) and matched by our bit-parallel
 * simulation of the compiled program (`bit-parallel.ts`): no backtracking, so no pattern can make matching
 * slower than linear in the length of the value, with a small constant per character. The native `RegExp` never sees an untrusted pattern.
 * Patterns that are plain literals (`Phish`, `^Phish`, `\.exe$`, `^Closed$`) skip the regex engine
 * entirely and use string search; so do literal chains (`(port scan|VPN) .* on`: `chain.ts`), which keep
 * the engine only for the values string search cannot decide exactly. An end-anchored pattern of bounded
 * width (`srv-42\d\d$`) runs the engine on the end of the value only (`window.ts`). `compileRegexEngine` is
 * the engine alone, without any of these (the fast paths' tests hold each fast path to it). The reference
 * interpreter (`evaluate`) uses none of this module: it compiles with re2js itself.
 *
 * Semantics are those of RE2 (and of MongoDB's `$regex`, which is a search): a pattern matches when it
 * matches any part of the value. Without the `m` flag, `^` and `$` match only at the start and the very end
 * of the value (RE2: `$` does not match before a final newline).
 */

import { RE2JS, RE2JSException } from "re2js";
import { sharedCache } from "../lru.js";
import { bitParallelMatcher, UnsupportedProgram } from "./bit-parallel.js";
import { analyzeChain, chainBytes, chainTester, type RegexChain } from "./chain.js";
import { limitDfaMemory, measureRegex, type RegexMeasure, regexFlagBits } from "./program.js";
import { RegexSyntaxError, regexErrorReason } from "./syntax-error.js";
import { suffixWindow, windowed } from "./window.js";

export { RegexSyntaxError, unsupportedRegexFeature } from "./syntax-error.js";

/**
 * What a literal pattern means, as found by `analyzeLiteral`.
 * - `text`: the literal text, escapes resolved (`a\.b` → `a.b`).
 * - `anchorStart` / `anchorEnd`: the pattern began with `^` / ended with `$`; with both, the value must
 *   equal `text`; with neither, it must contain `text`.
 * - `ignoreCase`: the `i` flag was given. Reported only for ASCII `text`; the comparison is then ASCII
 *   case-insensitive. That is exact for ASCII values only: RE2 also folds `k` with U+212A (Kelvin sign)
 *   and `s` with U+017F (long s), so a non-ASCII value must go through `RegexMatcher.test`.
 */
export interface RegexLiteral {
  readonly text: string;
  readonly anchorStart: boolean;
  readonly anchorEnd: boolean;
  readonly ignoreCase: boolean;
}

/** A compiled `$regex`: `test` searches the value (unanchored, as MongoDB's `$regex`). */
export interface RegexMatcher {
  /** True when the pattern matches any part of `value` (respecting `^`/`$`). Linear time; never throws. */
  test(value: string): boolean;
  /** Present when the pattern is a literal (see `RegexLiteral`). */
  readonly literal?: RegexLiteral;
  /** Present when the pattern is a literal chain that is not a literal (see `RegexChain`). */
  readonly chain?: RegexChain;
  /**
   * Present when only the end of a value is searched: the pattern ends with `$` (no `m`) or `\z` and no match
   * of it is longer than this many UTF-16 code units (`suffixWindow`); `test` reads at most one more.
   */
  readonly window?: number;
  /**
   * An upper estimate of the bytes this matcher can keep alive, however it is used: its program, its
   * source, and the most its engine may cache while matching (`regexDfaBytes`). Caches weigh it.
   */
  readonly bytes: number;
}

/**
 * The most memory (in the engine's own estimate of bytes) the lazy DFA of one compiled pattern may keep:
 * 64 KiB plus 4 KiB per instruction, at most 8 MiB (the engine's default for every pattern). A DFA state
 * holds up to one entry per instruction, so larger programs get room for as many states as small ones. Past
 * its budget the DFA starts over, or the engine matches with its NFA: still linear in the value's length.
 * @param instructions - the size of the compiled program
 */
export function regexDfaBytes(instructions: number): number {
  return Math.min(8 * 1024 * 1024, 64 * 1024 + 4 * 1024 * instructions);
}

/** Estimated bytes per compiled instruction of a program left on re2js (program, parse tree, objects). */
const BYTES_PER_INSTRUCTION = 512;

/** Fixed estimated bytes of any matcher (objects, closures). */
const MATCHER_OVERHEAD_BYTES = 512;

/** The estimate of `RegexMatcher.bytes` for a matcher of `source` whose engine keeps `engineBytes`. */
function matcherBytes(source: string, engineBytes: number): number {
  return MATCHER_OVERHEAD_BYTES + 2 * source.length + engineBytes;
}

/** What matches for a compiled matcher: its `test` and the bytes its engine can keep alive. */
interface Engine {
  readonly test: (value: string) => boolean;
  readonly bytes: number;
}

/**
 * Compiles with re2js (parser, simplifier, compiler) and matches with our bit-parallel simulation of its
 * program (`bit-parallel.ts`: linear time with a small constant whatever the pattern). A program it does
 * not take (over `MAX_POSITIONS` positions: beyond the budget of docs/semantics.md 1.7, so never from a
 * parsed condition) stays on re2js, its DFA bounded to `regexDfaBytes`, linear time as well.
 * @throws {RE2JSException} when re2js refuses the pattern
 */
function compileEngine(source: string, bits: number): Engine {
  const engine = RE2JS.compile(source, bits);
  try {
    return bitParallelEngine(engine);
  } catch (error) {
    if (!(error instanceof UnsupportedProgram)) throw error;
  }
  return re2jsEngine(engine);
}

/** Our matcher of the program of `compiled` (a function of its own, so that it keeps nothing else alive). */
function bitParallelEngine(compiled: RE2JS): Engine {
  const matcher = bitParallelMatcher(compiled);
  return { bytes: matcher.bytes, test: (value) => matcher.test(value) };
}

/** re2js itself, its DFA bounded to `regexDfaBytes` of its program's size. */
function re2jsEngine(engine: RE2JS): Engine {
  limitDfaMemory(engine, regexDfaBytes(engine.programSize()));
  return {
    bytes: BYTES_PER_INSTRUCTION * (engine.programSize() + 2) + 2 * regexDfaBytes(engine.programSize()),
    test: (value) => engine.test(value),
  };
}

/**
 * An upper estimate of the bytes of the bit-parallel matcher of an `i` literal of `n` code points (built
 * only when a non-ASCII value needs it): one position per code point, each class a case-folding orbit of
 * at most four runes (eight class boundaries), no exception rows.
 */
function foldedLiteralBytes(n: number): number {
  const words = Math.max(1, Math.ceil(n / 32));
  const intervals = 8 * n + 1;
  return 4096 + 4 * words * (6 + intervals + 64) + intervals + 200 * n;
}

/**
 * The RE2 flag bits for `$options` flags (docs/semantics.md 1.4): `i` → CASE_INSENSITIVE, `m` → MULTILINE,
 * `s` → DOTALL.
 * @throws {TypeError} when `flags` holds a character other than `i`, `m`, `s` (the parser refuses those first)
 */
function flagBits(flags: string): number {
  const bits = regexFlagBits(flags);
  if (bits === undefined) {
    const flag = [...flags].find((f) => f !== "i" && f !== "m" && f !== "s");
    throw new TypeError(`Unsupported regex flag '${flag}': expected i, m or s.`);
  }
  return bits;
}

/** Characters that are special in RE2 outside a character class. */
const META = new Set(["\\", ".", "+", "*", "?", "(", ")", "|", "[", "]", "{", "}", "^", "$"]);

/** ASCII punctuation that RE2 reads as itself after a backslash (`\.`, `\$`, `\-`, …). */
function isEscapablePunctuation(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return ch.length === 1 && c >= 0x21 && c <= 0x7e && !/[0-9A-Za-z]/.test(ch);
}

/** True when `text` has a surrogate code unit that is not part of a pair. */
function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Finds whether a pattern is a literal that needs no regex engine: plain text, `^text`, `text$` or
 * `^text$`, where text has no metacharacter except escaped ASCII punctuation (`\.`, `\$`, `\(`).
 * Not a literal (returns `undefined`): any other metacharacter or escape, `^`/`$` together with the `m`
 * flag (line anchors), text with an unpaired surrogate (RE2 matches whole code points), and, with the
 * `i` flag, non-ASCII text (Unicode case folding is left to RE2).
 * @param source - the `$regex` pattern
 * @param flags - the `$options` flags (`i`, `m`, `s`)
 * @returns the literal, or `undefined` when the pattern needs the regex engine; never throws
 * @example analyzeLiteral("^Phish", "") //=> { text: "Phish", anchorStart: true, anchorEnd: false, ignoreCase: false }
 */
export function analyzeLiteral(source: string, flags: string): RegexLiteral | undefined {
  const ignoreCase = flags.includes("i");
  const multiline = flags.includes("m");
  let start = 0;
  let end = source.length;
  const anchorStart = source.startsWith("^");
  if (anchorStart) start = 1;
  let text = "";
  let anchorEnd = false;
  for (let i = start; i < end; i++) {
    const ch = source[i]!;
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === undefined || !isEscapablePunctuation(next)) return undefined;
      text += next;
      i++;
    } else if (ch === "$" && i === end - 1) {
      anchorEnd = true;
      end--;
    } else if (META.has(ch)) {
      return undefined;
    } else {
      text += ch;
    }
  }
  if (multiline && (anchorStart || anchorEnd)) return undefined;
  if (hasLoneSurrogate(text)) return undefined;
  if (ignoreCase && !isAscii(text)) return undefined;
  return { text, anchorStart, anchorEnd, ignoreCase };
}

/** Tests a literal against an ASCII-or-exact value: equality, prefix, suffix or substring. */
function testLiteral(literal: RegexLiteral, text: string, value: string): boolean {
  if (literal.anchorStart && literal.anchorEnd) return value === text;
  if (literal.anchorStart) return value.startsWith(text);
  if (literal.anchorEnd) return value.endsWith(text);
  return value.includes(text);
}

function literalMatcher(literal: RegexLiteral, source: string, bits: number): RegexMatcher {
  if (!literal.ignoreCase) {
    const text = literal.text;
    return {
      literal,
      bytes: matcherBytes(source, 0),
      test: (value) => testLiteral(literal, text, value),
    };
  }
  // ASCII case-insensitive comparison is exact when the compared part of the value is ASCII (no
  // non-ASCII character folds to an ASCII one except U+212A and U+017F, which then go to RE2). An anchored
  // literal of n ASCII characters can only match the first (or last) n code units, so only those are read.
  const lowered = literal.text.toLowerCase();
  const n = lowered.length;
  let engine: Engine | undefined;
  const viaEngine = (value: string): boolean => {
    engine ??= compileEngine(source, bits);
    return engine.test(value);
  };
  return {
    literal,
    // The engine is compiled on a non-ASCII value only: count it.
    bytes: matcherBytes(source, foldedLiteralBytes([...literal.text].length)),
    test(value) {
      if (literal.anchorStart || literal.anchorEnd) {
        if (value.length < n || (literal.anchorStart && literal.anchorEnd && value.length !== n))
          return false;
        const part = literal.anchorStart ? value.slice(0, n) : value.slice(value.length - n);
        return isAscii(part) ? part.toLowerCase() === lowered : viaEngine(value);
      }
      return isAscii(value) ? value.toLowerCase().includes(lowered) : viaEngine(value);
    },
  };
}

/** Capacity of the compiled-matcher cache in entries; least recently used entries are dropped. */
export const REGEX_CACHE_CAPACITY = 256;

/**
 * Capacity of the compiled-matcher cache in estimated bytes (`RegexMatcher.bytes`, which counts the most
 * each engine may cache while matching): 64 MiB. Least recently used entries are dropped first.
 */
export const REGEX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * A compiled pattern: its matcher (`compileRegex`), and the engine alone (`compileRegexEngine`): the same
 * object when the pattern has no fast path, the engine under a chain's matcher, and, for a literal,
 * compiled the first time it is asked for (`referenceBytes` then counts it).
 */
interface Entry {
  readonly matcher: RegexMatcher;
  reference: RegexMatcher | undefined;
  referenceBytes: number;
}

/**
 * Compiled patterns keyed by flag bits and source, bounded in entries and bytes (`cacheStats().regexMatchers`;
 * `clearCaches()` empties it).
 */
const cache = sharedCache<Entry>("regexMatchers", REGEX_CACHE_CAPACITY, REGEX_CACHE_BYTES);

/** The number of cached matchers and their estimated bytes (for tests and diagnostics). */
export function regexCacheStats(): { readonly entries: number; readonly bytes: number } {
  return cache.stats();
}

/** Empties the compiled-matcher cache (for tests and benchmarks). */
export function clearRegexCache(): void {
  cache.clear();
}

/**
 * Compiles a `$regex` pattern with its `$options` flags into a linear-time matcher (docs/semantics.md 1.4, 1.7).
 * Literal patterns (see `analyzeLiteral`) use string search; everything else is compiled by RE2 and
 * matched by `bit-parallel.ts` (re2js itself only for a program past `MAX_POSITIONS`), except that a
 * literal chain (see `analyzeChain`) tests a value by string search when that is exact for it, and an
 * end-anchored pattern of bounded width searches only the end of the value (`suffixWindow`). Results are
 * cached (at most `REGEX_CACHE_CAPACITY` entries and `REGEX_CACHE_BYTES` estimated bytes, least recently
 * used dropped). The program size is not limited here: the parser refuses patterns past the budget of
 * docs/semantics.md 1.7 (`measurePattern`), and only parsed conditions reach evaluation.
 * @param source - the pattern, RE2 syntax (no backreferences, no lookaround)
 * @param flags - `$options`: any of `i` (case-insensitive), `m` (`^`/`$` at line breaks), `s` (`.` matches `\n`)
 * @returns a matcher whose `test(value)` searches `value` (MongoDB `$regex` semantics: not a full match)
 * @throws {RegexSyntaxError} when RE2 refuses the pattern; `.reason` is the engine's explanation
 * @throws {TypeError} when `flags` holds a flag other than `i`, `m`, `s`
 * @example compileRegex("^Phish", "i").test("phishing report") //=> true
 */
export function compileRegex(source: string, flags: string): RegexMatcher {
  return entryOf(source, flags).matcher;
}

/**
 * Compiles a `$regex` pattern to the engine alone: RE2's program matched by `bit-parallel.ts` (re2js itself
 * past `MAX_POSITIONS`), never the literal, literal-chain or suffix-window fast paths of `compileRegex`
 * (the yardstick of those fast paths in their tests; `evaluate` compiles with re2js itself). Same semantics, same cache (a pattern without a
 * fast path has one matcher for both).
 * @param source - the pattern, RE2 syntax
 * @param flags - `$options`: any of `i`, `m`, `s`
 * @returns a matcher whose `test(value)` searches `value`
 * @throws {RegexSyntaxError} when RE2 refuses the pattern
 * @throws {TypeError} when `flags` holds a flag other than `i`, `m`, `s`
 * @example compileRegexEngine("^Phish", "i").test("phishing report") //=> true
 */
export function compileRegexEngine(source: string, flags: string): RegexMatcher {
  const entry = entryOf(source, flags);
  if (entry.reference !== undefined) return entry.reference;
  const bits = flagBits(flags);
  const reference = engineMatcher(source, bits);
  entry.reference = reference;
  entry.referenceBytes = reference.bytes;
  const key = `${bits}/${source}`;
  cache.set(key, entry, entry.matcher.bytes + reference.bytes + 2 * key.length);
  return reference;
}

/** The cached entry of a pattern, built on a miss. */
function entryOf(source: string, flags: string): Entry {
  const bits = flagBits(flags);
  const key = `${bits}/${source}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const entry = build(source, flags, bits);
  cache.set(key, entry, entry.matcher.bytes + entry.referenceBytes + 2 * key.length);
  return entry;
}

/** The engine alone, as a matcher. @throws {RegexSyntaxError} when RE2 refuses the pattern */
function engineMatcher(source: string, bits: number): RegexMatcher {
  let engine: Engine;
  try {
    engine = compileEngine(source, bits);
  } catch (error) {
    if (error instanceof RE2JSException) throw new RegexSyntaxError(source, regexErrorReason(error));
    throw error;
  }
  return { bytes: matcherBytes(source, engine.bytes), test: engine.test };
}

function build(source: string, flags: string, bits: number): Entry {
  const literal = analyzeLiteral(source, flags);
  if (literal !== undefined) {
    return { matcher: literalMatcher(literal, source, bits), reference: undefined, referenceBytes: 0 };
  }
  // A chain is checked on RE2's parse tree; a pattern RE2 refuses is no chain, and the engine throws.
  const chain = analyzeChain(source, flags);
  const engine = engineMatcher(source, bits);
  if (chain === undefined) {
    // An end-anchored pattern of bounded width searches only the end of a value (window.ts).
    const window = suffixWindow(source, flags);
    if (window === undefined) return { matcher: engine, reference: engine, referenceBytes: 0 };
    const matcher: RegexMatcher = { window, bytes: engine.bytes, test: windowed(engine.test, window) };
    return { matcher, reference: engine, referenceBytes: 0 };
  }
  const viaEngine = engine.test;
  const viaChain = chainTester(chain);
  const matcher: RegexMatcher = {
    chain,
    bytes: engine.bytes + chainBytes(chain),
    test: (value) => viaChain(value) ?? viaEngine(value),
  };
  return { matcher, reference: engine, referenceBytes: 0 };
}

/**
 * Parses a `$regex` pattern and measures its program without building it (docs/semantics.md 1.7): the parser's
 * check, before anything is compiled. Literal patterns (see `analyzeLiteral`) are measured without the
 * engine: one instruction per character, one per anchor. Time linear in the length of the pattern.
 * @param source - the pattern
 * @param flags - `$options` flags (`i`, `m`, `s`)
 * @param limit - the most `size` the caller can accept: past it, work that is known before parsing stops
 *   early with a `partial` measure (see `RegexMeasure`)
 * @returns `{ ok: true, instructions, size }` (see `RegexMeasure`; the budget applies to `size`), or
 *   `{ ok: false, reason }` with the engine's reason when the pattern is outside RE2 syntax
 * @throws {TypeError} when `flags` holds a flag other than `i`, `m`, `s`
 * @example measurePattern("a{1000}", "").size //=> 1000
 */
export function measurePattern(source: string, flags: string, limit?: number): RegexMeasure {
  const bits = flagBits(flags);
  const literal = analyzeLiteral(source, flags);
  if (literal !== undefined) {
    // The empty pattern compiles to one no-op instruction.
    const instructions = Math.max(
      1,
      [...literal.text].length + (literal.anchorStart ? 1 : 0) + (literal.anchorEnd ? 1 : 0),
    );
    return { ok: true, instructions, size: instructions };
  }
  return measureRegex(source, bits, limit);
}

/**
 * Checks a pattern against RE2 syntax without throwing and without compiling it.
 * @param source - the pattern
 * @param flags - `$options` flags; must already be valid (`i`, `m`, `s`)
 * @returns `undefined` when RE2 accepts the pattern, else the engine's reason
 */
export function regexSyntaxProblem(source: string, flags: string): string | undefined {
  const measure = measurePattern(source, flags);
  return measure.ok ? undefined : measure.reason;
}
