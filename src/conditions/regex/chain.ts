/**
 * Literal chains: `$regex` patterns that are a few literal strings in order, with anything between them
 * (`(port scan|VPN) .* on`, `^Suspicious.*login$`, `[Pp]hish.*\.exe`), tested with the engine's native
 * string search instead of a regex engine (docs/semantics.md 1.7, "Regular expressions: literal chains").
 *
 * What counts as a chain is read from RE2's own parse tree of the pattern (`parseRegexTree`, the tree the
 * program budget counts), never from its text: after the parser, the pattern is an optional `^`, then
 * segments S1 … Sk separated by `.*` (greedy or lazy; the dot with or without `s`), then an optional `$`,
 * where each segment is a small finite set of strings (literals, alternations of them, small classes,
 * `?` and bounded counted repetition of them, concatenations expanded as a cross product, groups ignored).
 *
 * Why a greedy scan is exact: a search for `S1 .* S2 … .* Sk` succeeds when occurrences o1 … ok of the
 * segments exist, each starting at or after the end of the one before (a gap may hold any characters,
 * the empty string included). Taking for each segment in turn the occurrence that ENDS first among those
 * starting at or after the end of the previous one leaves the most room for the rest, so it finds such
 * occurrences whenever any exist (an exchange argument). `^` only admits an occurrence of S1 at 0, `$` an
 * occurrence of Sk ending at the end of the value (RE2 without `m`: not before a final newline). When a
 * gap's dot does not match `\n`, gaps are not "any characters" on a value holding `\n`: restricting them
 * only removes matches, so the scan's refusal stands, and a value it accepts is left to the engine.
 */

import { REGEX_OP, type RegexTreeNode, regexTreeOf } from "./program.js";

/**
 * A pattern that is a literal chain, as found by `analyzeChain` (docs/semantics.md 1.7).
 *
 * The pattern matches a value when the value holds one string of each segment, in order, each occurrence
 * starting at or after the end of the previous one (anything may lie between them, and before the first
 * and after the last), with the first occurrence at the start of the value when `anchorStart`, and the
 * last ending at its end when `anchorEnd`. This is exact when `gapsMatchNewline` is true or the value holds
 * no `\n` (otherwise a "no" is exact, a "yes" is not), and, with `ignoreCase`, for ASCII values compared
 * in lower case (see `ignoreCase` for the others).
 */
export interface RegexChain {
  /**
   * The segments in order; each is the set of strings one of which must occur (at most
   * `MAX_CHAIN_ALTERNATIVES`, none empty, without lone surrogates, in the order found). With `ignoreCase`
   * they are ASCII and lower case.
   */
  readonly segments: readonly (readonly string[])[];
  /** The first segment must occur at the start of the value (`^` or `\A`, without the `m` flag). */
  readonly anchorStart: boolean;
  /** The last segment must end at the very end of the value (`$` or `\z`, without the `m` flag). */
  readonly anchorEnd: boolean;
  /**
   * The segments are compared with the value lower-cased (`toLowerCase`). Exact for ASCII values. On
   * others (RE2 also folds `k` with U+212A and `s` with U+017F), a refusal is exact unless the value holds
   * U+017F (every character the pattern's segments accept beyond ASCII is the Kelvin sign, which
   * lower-cases to k, or the long s), and an acceptance needs the engine.
   * False: the segments are compared exactly, on any value (case variants, when few, are alternatives).
   */
  readonly ignoreCase: boolean;
  /**
   * Every gap between segments may hold `\n` (its dot has `s`, or `(?s)`). When false, the test above
   * is exact for a value holding `\n` only when it fails (restricted gaps only remove matches): a value
   * holding `\n` that passes it needs the engine.
   */
  readonly gapsMatchNewline: boolean;
}

/** The most strings one segment may stand for (after expanding case variants, classes, `?`, alternation). */
export const MAX_CHAIN_ALTERNATIVES = 16;

/**
 * Strings per segment up to which a chain compares exactly even when ASCII folding would also apply: one
 * search of a 50-character title costs about a fifth of lower-casing it and checking it for non-ASCII
 * characters, and an exact chain decides every value.
 */
const MAX_EXACT_STRINGS = 4;

/** The most UTF-16 code units the strings of one segment may hold together. */
const MAX_SEGMENT_UNITS = 16_384;

/** The engine's flag bit of a literal matched with case folding (re2js `RE2Flags.FOLD_CASE`). */
const FOLD_CASE = 1;

/** The largest code point. */
const MAX_RUNE = 0x10ffff;

/** A finite set of strings, or `undefined` when it is too large or cannot be written in this mode. */
type Strings = readonly string[] | undefined;

/**
 * What a node of the parse tree matches, as a small set of strings in each of the two modes: `exact`
 * (compared as written; `undefined` when the set is too large, or has a lone surrogate or a non-ASCII
 * letter under case folding) and `folded` (ASCII lower case, for ASCII values; `undefined` when some
 * character is non-ASCII or a letter whose other case the pattern does not also accept).
 */
interface Language {
  readonly exact: Strings;
  readonly folded: Strings;
}

const NOTHING: Language = { exact: undefined, folded: undefined };
const EMPTY_STRING: Language = { exact: [""], folded: [""] };

function units(strings: readonly string[]): number {
  let n = 0;
  for (const s of strings) n += s.length;
  return n;
}

/** The strings, or `undefined` when there are too many or they are too long. */
function bounded(strings: readonly string[]): Strings {
  return strings.length <= MAX_CHAIN_ALTERNATIVES && units(strings) <= MAX_SEGMENT_UNITS
    ? strings
    : undefined;
}

function product(a: Strings, b: Strings): Strings {
  if (a === undefined || b === undefined || a.length * b.length > MAX_CHAIN_ALTERNATIVES) return undefined;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return bounded([...out]);
}

function union(a: Strings, b: Strings): Strings {
  if (a === undefined || b === undefined) return undefined;
  return bounded([...new Set([...a, ...b])]);
}

const both = (f: (a: Strings, b: Strings) => Strings, a: Language, b: Language): Language => ({
  exact: f(a.exact, b.exact),
  folded: f(a.folded, b.folded),
});

const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdfff;

/**
 * The characters RE2's simple case folding equates with the ASCII letter `c`: its two cases, and U+212A
 * (Kelvin sign) for `k`, U+017F (long s) for `s`.
 */
function asciiOrbit(c: number): string[] {
  const lower = c | 0x20;
  const orbit = [String.fromCharCode(lower & ~0x20), String.fromCharCode(lower)];
  if (lower === 0x6b) orbit.push("\u212A");
  if (lower === 0x73) orbit.push("\u017F");
  return orbit;
}

/** One character of a literal node: as itself, or (under folding) with its case variants. */
function runeLanguage(c: number, foldCase: boolean): Language {
  let exact: Strings;
  if (isSurrogate(c)) exact = undefined;
  else if (foldCase && isAsciiLetter(c)) exact = asciiOrbit(c);
  else if (foldCase && c > 0x7f)
    exact = undefined; // its orbit is left to the engine
  else exact = [String.fromCodePoint(c)];
  let folded: Strings;
  if (c > 0x7f) folded = undefined;
  else if (isAsciiLetter(c)) folded = foldCase ? [String.fromCharCode(c | 0x20)] : undefined;
  else folded = [String.fromCharCode(c)];
  return { exact, folded };
}

/** A character class (`runes`: sorted, disjoint ranges lo, hi, lo, hi, …, case folding already applied). */
function classLanguage(runes: ArrayLike<number>): Language {
  let count = 0;
  let surrogate = false;
  for (let k = 0; k + 1 < runes.length; k += 2) {
    const lo = runes[k] as number;
    const hi = runes[k + 1] as number;
    count += hi - lo + 1;
    if (lo <= 0xdfff && hi >= 0xd800) surrogate = true;
  }
  let exact: Strings;
  if (count === 0 || count > MAX_CHAIN_ALTERNATIVES || surrogate) exact = undefined;
  else {
    const out: string[] = [];
    for (let k = 0; k + 1 < runes.length; k += 2) {
      for (let c = runes[k] as number; c <= (runes[k + 1] as number); c++) out.push(String.fromCodePoint(c));
    }
    exact = out;
  }
  // Compared in ASCII lower case: the class's ASCII part must hold both cases of each of its letters, and
  // (for a refusal on a non-ASCII value to hold) its other characters must lower-case into it: the Kelvin
  // sign with k, or be the long s (values holding it go to the engine).
  const ascii = new Set<number>();
  let kelvin = false;
  let other = false;
  for (let k = 0; k + 1 < runes.length; k += 2) {
    const lo = runes[k] as number;
    const hi = runes[k + 1] as number;
    for (let c = lo; c <= Math.min(hi, 0x7f); c++) ascii.add(c);
    if (hi > 0x7f) {
      if (lo === hi && lo === 0x212a) kelvin = true;
      else if (!(lo === hi && lo === 0x17f)) other = true;
    }
  }
  let folded: Strings;
  if (ascii.size === 0 || other || (kelvin && !ascii.has(0x6b))) folded = undefined;
  else {
    const lowered = new Set<string>();
    let closed = true;
    for (const c of ascii) {
      if (isAsciiLetter(c) && !ascii.has(c ^ 0x20)) closed = false;
      lowered.add(String.fromCharCode(isAsciiLetter(c) ? c | 0x20 : c));
    }
    folded = closed ? bounded([...lowered]) : undefined;
  }
  return { exact, folded };
}

/** The strings of `strings` repeated `j` times: one `repeat` for a single string, else products. */
function power(strings: Strings, j: number): Strings {
  if (strings === undefined) return undefined;
  if (strings.length === 1) {
    const text = strings[0] as string;
    return text.length * j <= MAX_SEGMENT_UNITS ? [text.repeat(j)] : undefined;
  }
  // Two strings or more: past 4 copies there are more than 16 products (or fewer, all repeated, which
  // this gives up on as well).
  let out: Strings = [""];
  for (let k = 0; k < j && out !== undefined; k++) out = product(out, strings);
  return out;
}

/** `sub{min,max}` (max −1: unbounded, never finite; more than 16 lengths: not a small set either). */
function repeatLanguage(sub: Language, min: number, max: number): Language {
  if (max < 0 || max < min || max - min + 1 > MAX_CHAIN_ALTERNATIVES) return NOTHING;
  let result: Language = { exact: power(sub.exact, min), folded: power(sub.folded, min) };
  let step = result;
  for (let j = min + 1; j <= max; j++) {
    step = both(product, step, sub);
    result = both(union, result, step);
  }
  return result;
}

/** The finite language of a node that holds no `.*`, in both modes. Linear in the tree (bounded sets). */
function language(re: RegexTreeNode): Language {
  switch (re.op) {
    case REGEX_OP.EMPTY_MATCH:
      return EMPTY_STRING;
    case REGEX_OP.LITERAL: {
      const foldCase = (re.flags & FOLD_CASE) !== 0;
      let out: Language = EMPTY_STRING;
      for (let k = 0; k < re.runes.length; k++) {
        out = both(product, out, runeLanguage(re.runes[k] as number, foldCase));
      }
      return out;
    }
    case REGEX_OP.CHAR_CLASS:
      return classLanguage(re.runes);
    case REGEX_OP.CAPTURE:
      return language(re.subs[0] as RegexTreeNode);
    case REGEX_OP.CONCAT: {
      let out: Language = EMPTY_STRING;
      for (const sub of re.subs) out = both(product, out, language(sub));
      return out;
    }
    case REGEX_OP.ALTERNATE: {
      if (re.subs.length === 0) return NOTHING;
      let out: Language = language(re.subs[0] as RegexTreeNode);
      for (let k = 1; k < re.subs.length; k++) out = both(union, out, language(re.subs[k] as RegexTreeNode));
      return out;
    }
    case REGEX_OP.QUEST:
      return both(union, language(re.subs[0] as RegexTreeNode), EMPTY_STRING);
    case REGEX_OP.REPEAT:
      return repeatLanguage(language(re.subs[0] as RegexTreeNode), re.min, re.max);
    default:
      // `.`, `*`, `+`, anchors, word boundaries, an empty class: not a finite set of strings here.
      return NOTHING;
  }
}

/** The pieces of a chain, in order: anchors, gaps (`.*`, whether the dot takes `\n`), and other nodes. */
type Item =
  | { readonly kind: "begin" }
  | { readonly kind: "end" }
  | { readonly kind: "gap"; readonly newline: boolean }
  | { readonly kind: "node"; readonly node: RegexTreeNode };

/** Whether `re` is `x*` (greedy or lazy) of a dot: `.`, `(?s:.)`, `[^\n]` or the class of everything. */
function gapOf(re: RegexTreeNode): Item | undefined {
  if (re.op !== REGEX_OP.STAR) return undefined;
  const sub = re.subs[0] as RegexTreeNode;
  if (sub.op === REGEX_OP.ANY_CHAR) return { kind: "gap", newline: true };
  if (sub.op === REGEX_OP.ANY_CHAR_NOT_NL) return { kind: "gap", newline: false };
  if (sub.op === REGEX_OP.CHAR_CLASS) {
    const r = sub.runes;
    if (r.length === 2 && r[0] === 0 && r[1] === MAX_RUNE) return { kind: "gap", newline: true };
    if (r.length === 4 && r[0] === 0 && r[1] === 9 && r[2] === 11 && r[3] === MAX_RUNE) {
      return { kind: "gap", newline: false };
    }
  }
  return undefined;
}

/** The top-level pieces of the pattern: concatenations and groups opened, everything else kept whole. */
function flatten(re: RegexTreeNode, out: Item[]): void {
  if (re.op === REGEX_OP.CONCAT) {
    for (const sub of re.subs) flatten(sub, out);
  } else if (re.op === REGEX_OP.CAPTURE) {
    flatten(re.subs[0] as RegexTreeNode, out);
  } else if (re.op === REGEX_OP.BEGIN_TEXT) {
    out.push({ kind: "begin" });
  } else if (re.op === REGEX_OP.END_TEXT) {
    out.push({ kind: "end" });
  } else {
    out.push(gapOf(re) ?? { kind: "node", node: re });
  }
}

/**
 * Finds whether a `$regex` pattern is a literal chain (see `RegexChain`, docs/semantics.md 1.7), reading
 * RE2's parse tree of it (`parseRegexTree`). A chain is, after the parser: an optional `^` (or `\A`), then
 * segments separated by `.*` or `.*?` (the dot with or without `s`/`(?s)`; also `[^\n]*`), then an
 * optional `$` (or `\z`). A segment is a concatenation of literals, alternations, character classes, `?`
 * and counted repetition `x{n,m}` (m finite) of those, and groups (capturing or not, which are ignored),
 * standing for at most `MAX_CHAIN_ALTERNATIVES` (16) strings, none of them empty. A `.*` before the first
 * segment or after the last is dropped, with the anchor beside it (`^.*abc` is `abc`, under the rule on
 * `\n` below).
 *
 * The strings are compared exactly (case variants of a letter under case folding, `[Pp]` or `(?i)k`
 * with U+212A, are then alternatives) when each segment is at most 4 strings that way. Otherwise, when
 * every letter of the pattern accepts both its cases and every character it accepts is ASCII, the Kelvin
 * sign beside k, or the long s (the usual case with the `i` flag), they are compared in lower case
 * (`ignoreCase`); otherwise exactly, up to 16 strings per segment.
 *
 * Not a chain (returns `undefined`): `.+`, `.?`, `.{n,m}`, `x*` or `x+` of anything but a dot, a `.`
 * outside `.*`, `^`/`$` with the `m` flag (line anchors) or anywhere but the ends, `\b`, `\B`, a segment
 * that may be empty (`a?`, `(a|)`, `()`), the empty pattern, a segment of more than 16 strings (`\w`,
 * `[a-z]`, `(?i)phishing` compared exactly), a non-ASCII letter under case folding, a lone surrogate, an
 * empty class, and a pattern RE2 refuses or flags other than `i`, `m`, `s`. Never throws.
 * @param source - the `$regex` pattern
 * @param flags - the `$options` flags (`i`, `m`, `s`)
 * @returns the chain, or `undefined` when the pattern needs the regex engine
 * @example analyzeChain("(port scan|VPN) .* on", "")
 *   //=> { segments: [["port scan ", "VPN "], [" on"]], anchorStart: false, anchorEnd: false,
 *   //     ignoreCase: false, gapsMatchNewline: false }
 */
export function analyzeChain(source: string, flags: string): RegexChain | undefined {
  const tree = regexTreeOf(source, flags);
  if (tree === undefined) return undefined;
  const items: Item[] = [];
  flatten(tree, items);
  let first = 0;
  let last = items.length;
  let anchorStart = items[first]?.kind === "begin";
  if (anchorStart) first++;
  let anchorEnd = last > first && items[last - 1]?.kind === "end";
  if (anchorEnd) last--;
  let gapsMatchNewline = true;
  // Leading and trailing gaps: dropped, and with them the anchor beside them.
  while (first < last && items[first]?.kind === "gap") {
    if (anchorStart && !(items[first] as { newline: boolean }).newline) gapsMatchNewline = false;
    anchorStart = false;
    first++;
  }
  while (last > first && items[last - 1]?.kind === "gap") {
    if (anchorEnd && !(items[last - 1] as { newline: boolean }).newline) gapsMatchNewline = false;
    anchorEnd = false;
    last--;
  }
  const segments: Language[] = [];
  let current: Language | undefined;
  for (let k = first; k < last; k++) {
    const item = items[k] as Item;
    if (item.kind === "begin" || item.kind === "end") return undefined;
    if (item.kind === "gap") {
      if (!item.newline) gapsMatchNewline = false;
      if (current !== undefined) segments.push(current);
      current = undefined;
      continue;
    }
    current = both(product, current ?? EMPTY_STRING, language(item.node));
    if (current.exact === undefined && current.folded === undefined) return undefined;
  }
  if (current !== undefined) segments.push(current);
  if (segments.length === 0) return undefined;
  // Exact when each segment is at most MAX_EXACT_STRINGS strings (a few searches, and every value is
  // decided); else folded when it applies (one lower-casing, and the searches of the folded strings);
  // else exact when it applies.
  const fewExact = segments.every((s) => s.exact !== undefined && s.exact.length <= MAX_EXACT_STRINGS);
  const ignoreCase = !fewExact && segments.every((s) => s.folded !== undefined);
  const exact = !ignoreCase;
  const chosen: (readonly string[])[] = [];
  for (const segment of segments) {
    const strings = exact ? segment.exact : segment.folded;
    if (strings === undefined || strings.length === 0 || strings.includes("")) return undefined;
    chosen.push(strings);
  }
  return { segments: chosen, anchorStart, anchorEnd, ignoreCase, gapsMatchNewline };
}

/** The longest string that every string of `strings` contains (`""` when they share none). */
function commonSubstring(strings: readonly string[]): string {
  let shortest = strings[0] as string;
  for (const t of strings) if (t.length < shortest.length) shortest = t;
  // Bounded work: only substrings of the shortest string's first 32 code units are tried.
  const base = shortest.slice(0, 32);
  for (let length = base.length; length > 0; length--) {
    for (let at = 0; at + length <= base.length; at++) {
      const part = base.slice(at, at + length);
      if (strings.every((t) => t.includes(part))) return part;
    }
  }
  return "";
}

/**
 * Strings every matching value holds (after lower-casing under `ignoreCase`), longest first, checked before
 * the scan: for each segment of several strings (whose scan costs one search per string), the longest
 * substring its strings share, when it has three code units or more (`ower` for `[Pp]ower`).
 */
function requiredStrings(chain: RegexChain): string[] {
  const required = new Set<string>();
  for (const strings of chain.segments) {
    if (strings.length === 1) continue;
    const common = commonSubstring(strings);
    if (common.length >= 3) required.add(common);
  }
  return [...required].sort((a, b) => b.length - a.length);
}

/** Code units a value may not hold for the chain to decide it: `\n` (gaps without it), non-ASCII (folded). */
const UNDECIDED_NON_ASCII = /[\u0080-\uffff]/;
const UNDECIDED_EITHER = /[\n\u0080-\uffff]/;

/**
 * Compiles a chain into a test by string search (the greedy scan of the module comment): linear in the
 * value's length times the number of strings of the chain. The returned function answers whether the
 * pattern matches a value, or `undefined` when the chain cannot decide it exactly and the regex engine
 * must: a value holding `\n` that the scan accepts when `gapsMatchNewline` is false; when `ignoreCase`, a
 * non-ASCII value (or one holding `\n`, when `gapsMatchNewline` is false) that the scan accepts, and a
 * value holding U+017F (long s) that it refuses.
 * @param chain - from `analyzeChain`
 */
export function chainTester(chain: RegexChain): (value: string) => boolean | undefined {
  const segments = chain.segments.map((strings) => [...strings]);
  const { anchorStart, anchorEnd, ignoreCase } = chain;
  const required = requiredStrings(chain);
  // Matched by a regular expression of ours (a constant), never a caller's pattern.
  const undecided = chain.gapsMatchNewline ? UNDECIDED_NON_ASCII : UNDECIDED_EITHER;
  const k = segments.length;
  const scan = (v: string): boolean => {
    for (const text of required) if (!v.includes(text)) return false;
    const n = v.length;
    let pos = 0;
    for (let s = 0; s < k; s++) {
      const strings = segments[s] as string[];
      if (s === k - 1 && anchorEnd) {
        // The last segment ends at the end of the value, starting at or after pos (at 0 with `^` alone).
        const start = s === 0 && anchorStart;
        for (const text of strings) {
          const at = n - text.length;
          if (at >= pos && (!start || at === 0) && v.endsWith(text)) return true;
        }
        return false;
      }
      let end = -1;
      if (s === 0 && anchorStart) {
        for (const text of strings) {
          if ((end < 0 || text.length < end) && v.startsWith(text)) end = text.length;
        }
      } else {
        for (const text of strings) {
          const at = v.indexOf(text, pos);
          if (at >= 0 && (end < 0 || at + text.length < end)) end = at + text.length;
        }
      }
      if (end < 0) return false;
      pos = end;
    }
    return true;
  };
  if (ignoreCase) {
    // A refusal on the lower-cased value holds unless it has a long s (U+017F, which RE2 folds with s and
    // `toLowerCase` keeps): the only other non-ASCII character RE2 folds with an ASCII letter, the Kelvin
    // sign, lower-cases to k, and whatever other characters become lies in gaps. An acceptance holds for an
    // ASCII value (without \n when gaps exclude it); any other is the engine's.
    return (value) => {
      const lowered = value.toLowerCase();
      if (!scan(lowered)) return lowered.includes("\u017F") ? undefined : false;
      return undecided.test(value) ? undefined : true;
    };
  }
  if (chain.gapsMatchNewline) return scan;
  // Gaps restricted to lines only remove matches: a value the scan refuses is refused; one it accepts
  // is the engine's when it holds \n.
  return (value) => (!scan(value) ? false : value.includes("\n") ? undefined : true);
}

/**
 * Tests one value against a chain (see `chainTester`, which a caller testing many values should keep).
 * @returns whether the pattern matches `value`, or `undefined` when the regex engine must decide
 */
export function testChain(chain: RegexChain, value: string): boolean | undefined {
  return chainTester(chain)(value);
}

/** An estimate of the bytes a chain keeps alive (its strings and arrays). */
export function chainBytes(chain: RegexChain): number {
  let bytes = 128;
  // The strings are kept twice (the chain and its tester), with the required strings at most once more.
  for (const strings of chain.segments) bytes += 64 + 32 * strings.length + 6 * units(strings);
  return bytes;
}
