/**
 * The linear-time regular-expression layer of Search Conditions (DECISIONS.md 1.4, 1.7).
 *
 * Every `$regex` pattern runs on RE2 (the `re2js` port): no backtracking, so no pattern can make matching
 * slower than linear in the length of the value. The native `RegExp` never sees an untrusted pattern.
 * Patterns that are plain literals (`Phish`, `^Phish`, `\.exe$`, `^Closed$`) skip the regex engine
 * entirely and use string search.
 *
 * Semantics are those of RE2 (and of MongoDB's `$regex`, which is a search): a pattern matches when it
 * matches any part of the value. Without the `m` flag, `^` and `$` match only at the start and the very end
 * of the value (RE2: `$` does not match before a final newline).
 */

import { RE2JS, RE2JSException } from "re2js";

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
}

/**
 * The RE2 flag bits for `$options` flags (DECISIONS.md 1.4): `i` → CASE_INSENSITIVE, `m` → MULTILINE,
 * `s` → DOTALL.
 * @throws {TypeError} when `flags` holds a character other than `i`, `m`, `s` (the parser refuses those first)
 */
function flagBits(flags: string): number {
  let bits = 0;
  for (const flag of flags) {
    if (flag === "i") bits |= RE2JS.CASE_INSENSITIVE;
    else if (flag === "m") bits |= RE2JS.MULTILINE;
    else if (flag === "s") bits |= RE2JS.DOTALL;
    else throw new TypeError(`Unsupported regex flag '${flag}': expected i, m or s.`);
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
    return { literal, test: (value) => testLiteral(literal, text, value) };
  }
  // ASCII case-insensitive comparison is exact when the compared part of the value is ASCII (no
  // non-ASCII character folds to an ASCII one except U+212A and U+017F, which then go to RE2). An anchored
  // literal of n ASCII characters can only match the first (or last) n code units, so only those are read.
  const lowered = literal.text.toLowerCase();
  const n = lowered.length;
  let engine: RE2JS | undefined;
  const viaEngine = (value: string): boolean => {
    engine ??= RE2JS.compile(source, bits);
    return engine.test(value);
  };
  return {
    literal,
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

/** The reason RE2 gives for refusing a pattern, without the engine's generic prefix. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp: /, "");
}

/**
 * Thrown by `compileRegex` for a pattern outside RE2 syntax. `reason` is the engine's explanation, e.g.
 * ``invalid escape sequence: `\1` `` (DECISIONS.md 1.4: the issue message quotes it).
 */
export class RegexSyntaxError extends SyntaxError {
  override readonly name = "RegexSyntaxError";
  readonly pattern: string;
  readonly reason: string;

  constructor(pattern: string, reason: string) {
    super(`Invalid regular expression ${JSON.stringify(pattern)}: ${reason}.`);
    this.pattern = pattern;
    this.reason = reason;
  }
}

/** Capacity of the compiled-matcher cache: a fixed bound, least recently used entries are dropped. */
export const REGEX_CACHE_CAPACITY = 256;

/** Module-local LRU of compiled matchers keyed by flag bits and source (a Map keeps insertion order). */
const cache = new Map<string, RegexMatcher>();

/**
 * Compiles a `$regex` pattern with its `$options` flags into a linear-time matcher (DECISIONS.md 1.4, 1.7).
 * Literal patterns (see `analyzeLiteral`) use string search; everything else runs on RE2. Results are
 * cached (at most `REGEX_CACHE_CAPACITY` entries, least recently used dropped).
 * @param source - the pattern, RE2 syntax (no backreferences, no lookaround)
 * @param flags - `$options`: any of `i` (case-insensitive), `m` (`^`/`$` at line breaks), `s` (`.` matches `\n`)
 * @returns a matcher whose `test(value)` searches `value` (MongoDB `$regex` semantics: not a full match)
 * @throws {RegexSyntaxError} when RE2 refuses the pattern; `.reason` is the engine's explanation
 * @throws {TypeError} when `flags` holds a flag other than `i`, `m`, `s`
 * @example compileRegex("^Phish", "i").test("phishing report") //=> true
 */
export function compileRegex(source: string, flags: string): RegexMatcher {
  const bits = flagBits(flags);
  const key = `${bits}/${source}`;
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const matcher = build(source, flags, bits);
  if (cache.size >= REGEX_CACHE_CAPACITY) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(key, matcher);
  return matcher;
}

function build(source: string, flags: string, bits: number): RegexMatcher {
  const literal = analyzeLiteral(source, flags);
  if (literal !== undefined) return literalMatcher(literal, source, bits);
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(source, bits);
  } catch (error) {
    if (error instanceof RE2JSException) throw new RegexSyntaxError(source, reasonOf(error));
    throw error;
  }
  return { test: (value) => engine.test(value) };
}

/**
 * Checks a pattern against RE2 syntax without throwing (for the parser's `invalid_regex` issue).
 * @param source - the pattern
 * @param flags - `$options` flags; must already be valid (`i`, `m`, `s`)
 * @returns `undefined` when the pattern compiles, else the engine's reason
 */
export function regexSyntaxProblem(source: string, flags: string): string | undefined {
  try {
    compileRegex(source, flags);
    return undefined;
  } catch (error) {
    if (error instanceof RegexSyntaxError) return error.reason;
    throw error;
  }
}
