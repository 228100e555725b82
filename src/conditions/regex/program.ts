/**
 * The size of a `$regex` program, known before the program is built (docs/semantics.md 1.7; docs/semantics.md
 * section 1.7, "Regular expressions").
 *
 * RE2 refuses a program past its memory budget (`max_mem`) while it compiles it, and its parser refuses
 * counted repetition whose nested product exceeds 1,000. Neither is enough here: a 1,000-character pattern
 * such as `(?:|a){1000}` repeated compiles to hundreds of thousands of instructions, and building them
 * costs seconds and hundreds of megabytes before anything can refuse it. So the pattern is only PARSED
 * (cheap: linear in its length), the size of the program the engine would build is computed from the
 * parse tree without expanding anything, and only a pattern within the budget is ever compiled.
 *
 * The count is the engine's own (`re2js`, the JavaScript port of RE2), instruction for instruction: it
 * follows the engine's simplifier (counted repetition expanded: `x{n,m}` is n copies of x and m−n
 * optional copies) and its compiler (one instruction per literal character, character class, `.` or
 * empty-width assertion, two per capturing group, one per `*`, `+`, `?` and per alternative beyond the
 * first, one for an empty expression), without the two instructions every program has (its failure and
 * its match state). `a{1000}` is 1,000. A test compares the count with the size of the compiled program for
 * thousands of generated patterns. Where RE2 itself differs (it compiles a character class to a UTF-8
 * byte automaton, so `.` is about 24 instructions there) the engine's count is the one that decides the
 * memory and time that matching costs here.
 */

import { RE2JS, RE2JSSyntaxException, RE2Set } from "re2js";

/** The fields of the engine's parse-tree node that the count reads (re2js 2.10 `Regexp`). */
export interface EngineRegexp {
  readonly op: number;
  readonly flags: number;
  readonly subs: readonly EngineRegexp[];
  readonly runes: ArrayLike<number>;
  readonly min: number;
  readonly max: number;
}

/** The engine's node kinds, by name (re2js `Regexp.Op`). */
export type OpName =
  | "NO_MATCH"
  | "EMPTY_MATCH"
  | "LITERAL"
  | "CHAR_CLASS"
  | "ANY_CHAR_NOT_NL"
  | "ANY_CHAR"
  | "BEGIN_LINE"
  | "END_LINE"
  | "BEGIN_TEXT"
  | "END_TEXT"
  | "WORD_BOUNDARY"
  | "NO_WORD_BOUNDARY"
  | "CAPTURE"
  | "STAR"
  | "PLUS"
  | "QUEST"
  | "REPEAT"
  | "CONCAT"
  | "ALTERNATE";

/** The engine's flag bit for a non-greedy repetition (re2js `RE2Flags.NON_GREEDY`). */
const NON_GREEDY = 32;

/** Thrown from the parse hook to stop `RE2JS.compile` right after parsing, carrying the parse tree. */
class Parsed {
  constructor(readonly tree: EngineRegexp) {}
}

/**
 * The engine's parse-tree prototype and node kinds. `re2js` exports no parser: its `RE2JS.compile` parses,
 * then calls `maxCap()` on the parse tree, then simplifies and compiles. The hook replaces `maxCap` for the
 * duration of one call so that compilation stops right after parsing. The version of `re2js` is pinned, and
 * `program.test.ts` fails if the hook no longer works.
 */
const engine = (() => {
  const probe = new RE2Set();
  probe.add("a");
  const sample = (probe as unknown as { regexps: readonly EngineRegexp[] }).regexps[0];
  const proto = sample === undefined ? undefined : Object.getPrototypeOf(sample);
  const ops = proto?.constructor?.Op as Record<string, number> | undefined;
  if (proto === undefined || typeof proto.maxCap !== "function" || ops === undefined) {
    throw new Error("incident-query: unsupported re2js version (no parse tree to size regex programs).");
  }
  const byName = (name: OpName): number => {
    const code = ops[name];
    if (typeof code !== "number") throw new Error(`incident-query: unsupported re2js version (no ${name}).`);
    return code;
  };
  return { proto: proto as { maxCap: () => number }, op: byName };
})();

const OP = {
  NO_MATCH: engine.op("NO_MATCH"),
  EMPTY_MATCH: engine.op("EMPTY_MATCH"),
  LITERAL: engine.op("LITERAL"),
  CHAR_CLASS: engine.op("CHAR_CLASS"),
  ANY_CHAR_NOT_NL: engine.op("ANY_CHAR_NOT_NL"),
  ANY_CHAR: engine.op("ANY_CHAR"),
  BEGIN_LINE: engine.op("BEGIN_LINE"),
  END_LINE: engine.op("END_LINE"),
  BEGIN_TEXT: engine.op("BEGIN_TEXT"),
  END_TEXT: engine.op("END_TEXT"),
  WORD_BOUNDARY: engine.op("WORD_BOUNDARY"),
  NO_WORD_BOUNDARY: engine.op("NO_WORD_BOUNDARY"),
  CAPTURE: engine.op("CAPTURE"),
  STAR: engine.op("STAR"),
  PLUS: engine.op("PLUS"),
  QUEST: engine.op("QUEST"),
  REPEAT: engine.op("REPEAT"),
  CONCAT: engine.op("CONCAT"),
  ALTERNATE: engine.op("ALTERNATE"),
} as const;

/**
 * Parses a pattern with the engine's parser only (no simplification, no compilation).
 * @param source - the pattern, RE2 syntax
 * @param bits - RE2JS flag bits
 * @returns the engine's parse tree
 * @throws {RE2JSSyntaxException} when the engine refuses the pattern (its message is the reason)
 */
function parseOnly(source: string, bits: number): EngineRegexp {
  const { proto } = engine;
  const original = proto.maxCap;
  let outermost = true;
  proto.maxCap = function (this: EngineRegexp): number {
    if (outermost) {
      outermost = false;
      throw new Parsed(this);
    }
    return original.call(this);
  };
  try {
    RE2JS.compile(source, bits);
  } catch (error) {
    if (error instanceof Parsed) return error.tree;
    throw error;
  } finally {
    proto.maxCap = original;
  }
  // Unreachable while the hook works: compile() always calls maxCap() on the parse tree first.
  throw new Error("incident-query: unsupported re2js version (the parse hook did not run).");
}

/**
 * The RE2 flag bits (`RE2JS.CASE_INSENSITIVE`, `MULTILINE`, `DOTALL`) for `$options` flags (docs/semantics.md
 * 1.4): any of `i`, `m`, `s`, in any order (a repeated flag changes nothing).
 * @returns the bits, or undefined when `flags` holds a character other than `i`, `m`, `s`
 * @example regexFlagBits("is") //=> RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL
 */
export function regexFlagBits(flags: string): number | undefined {
  let bits = 0;
  for (const flag of flags) {
    if (flag === "i") bits |= RE2JS.CASE_INSENSITIVE;
    else if (flag === "m") bits |= RE2JS.MULTILINE;
    else if (flag === "s") bits |= RE2JS.DOTALL;
    else return undefined;
  }
  return bits;
}

/**
 * The engine's parse tree of a pattern with its `$options` flags (`parseRegexTree`), or undefined when a flag
 * is not `i`, `m` or `s` or the engine refuses the pattern: for the analyses that only apply to patterns the
 * engine accepts (literal chains, suffix windows). Never throws.
 */
export function regexTreeOf(source: string, flags: string): RegexTreeNode | undefined {
  const bits = regexFlagBits(flags);
  if (bits === undefined) return undefined;
  try {
    return parseOnly(source, bits);
  } catch {
    return undefined;
  }
}

/** A node of the engine's parse tree (re2js `Regexp`), as `parseRegexTree` returns it. */
export type RegexTreeNode = EngineRegexp;

/** The engine's parse-tree node kinds by name (re2js `Regexp.Op`), for walkers of `parseRegexTree`. */
export const REGEX_OP: Readonly<Record<OpName, number>> = OP;

/**
 * Parses a pattern with the engine's parser only (no simplification, no compilation): the tree that
 * `measureRegex` counts, for other walkers of the same tree (the required-literal extraction of the
 * incident set's text index). Linear in the length of the pattern.
 * @param source - the pattern, RE2 syntax
 * @param bits - RE2JS flag bits (`RE2JS.CASE_INSENSITIVE`, `MULTILINE`, `DOTALL`)
 * @returns the engine's parse tree (read only: the engine may share it)
 * @throws {RE2JSSyntaxException} when the engine refuses the pattern
 */
export function parseRegexTree(source: string, bits: number): RegexTreeNode {
  return parseOnly(source, bits);
}

/**
 * What the engine's simplifier turns a node into, as far as the count needs it: its kind after
 * simplification (`kind`: the simplified node's op, which decides how an enclosing `*`/`+`/`?` or
 * concatenation treats it), greediness, and what compiling it emits (`insts`: instructions added;
 * `fail`: the fragment can never match; `nullable`: it can match the empty string).
 */
interface Shape {
  readonly kind: number;
  readonly nonGreedy: boolean;
  readonly insts: number;
  readonly fail: boolean;
  readonly nullable: boolean;
}

const NO_MATCH: Shape = { kind: OP.NO_MATCH, nonGreedy: false, insts: 0, fail: true, nullable: false };
const EMPTY: Shape = { kind: OP.EMPTY_MATCH, nonGreedy: false, insts: 1, fail: false, nullable: true };

/** An instruction matching one character (a literal rune, a class, `.`), of the given weight. */
const rune = (insts: number): Shape => ({
  kind: OP.CHAR_CLASS,
  nonGreedy: false,
  insts,
  fail: false,
  nullable: false,
});
const RUNE = rune(1);

/** The largest code point. */
const MAX_RUNE = 0x10ffff;

/**
 * The weight of a character class: 1 in the engine's own count; in the budget, one per range of code points
 * (`[a-z0-9]` is 2, `\pL` several hundred), as RE2 compiles each range to at least one instruction. The two
 * classes the simplifier turns into `.` (`[^\n]`, and everything) weigh 1.
 */
function classWeight(runes: ArrayLike<number>, weighted: boolean): number {
  if (!weighted) return 1;
  const n = runes.length;
  if (n === 2 && runes[0] === 0 && runes[1] === MAX_RUNE) return 1;
  if (n === 4 && runes[0] === 0 && runes[1] === 9 && runes[2] === 11 && runes[3] === MAX_RUNE) return 1;
  return Math.max(1, n >> 1);
}

/** A concatenation or alternation without parts: the compiler emits one no-op. */
const LEAF_NOP = (op: number): Shape => ({
  kind: op,
  nonGreedy: false,
  insts: 1,
  fail: false,
  nullable: true,
});

/** `*`, `+` or `?` (op) applied to a simplified sub-expression: the simplifier's rules, then the compiler's. */
function repeatOf(op: number, nonGreedy: boolean, sub: Shape): Shape {
  if (sub.kind === OP.EMPTY_MATCH) return sub;
  if (sub.kind === OP.NO_MATCH) return op === OP.PLUS ? sub : EMPTY;
  if (sub.kind === op && sub.nonGreedy === nonGreedy) return sub; // (?:a*)* is a*
  if (op === OP.STAR) {
    // a* on a fragment that cannot match is a no-op; on a nullable one it is (a+)?: two instructions.
    if (sub.fail) return { kind: op, nonGreedy, insts: sub.insts + 1, fail: false, nullable: true };
    return { kind: op, nonGreedy, insts: sub.insts + (sub.nullable ? 2 : 1), fail: false, nullable: true };
  }
  if (op === OP.PLUS) {
    if (sub.fail) return { kind: op, nonGreedy, insts: sub.insts, fail: true, nullable: false };
    return { kind: op, nonGreedy, insts: sub.insts + 1, fail: false, nullable: sub.nullable };
  }
  return { kind: op, nonGreedy, insts: sub.insts + 1, fail: false, nullable: true };
}

/** A concatenation of `count` copies of each part, in order (the simplifier's rules, then the compiler's). */
function concatOf(parts: readonly { readonly shape: Shape; readonly count: number }[]): Shape {
  let insts = 0;
  let fail = false;
  let nullable = true;
  let kept = 0;
  let last: Shape = EMPTY;
  for (const { shape, count } of parts) {
    if (count === 0 || shape.kind === OP.EMPTY_MATCH) continue;
    if (shape.kind === OP.NO_MATCH) return NO_MATCH;
    insts += shape.insts * count;
    fail ||= shape.fail;
    nullable &&= shape.nullable;
    kept += count;
    last = shape;
  }
  if (kept === 0) return EMPTY;
  if (kept === 1) return last;
  return { kind: OP.CONCAT, nonGreedy: false, insts, fail, nullable };
}

/** `x{min,max}` (max −1: unbounded) as the simplifier expands it, counted without expanding it. */
function countedRepeat(min: number, max: number, nonGreedy: boolean, sub: Shape): Shape {
  if (max === -1) {
    if (min === 0) return repeatOf(OP.STAR, nonGreedy, sub);
    if (min === 1) return repeatOf(OP.PLUS, nonGreedy, sub);
    return concatOf([
      { shape: sub, count: min - 1 },
      { shape: repeatOf(OP.PLUS, nonGreedy, sub), count: 1 },
    ]);
  }
  if (min === 1 && max === 1) return sub;
  const parts: { shape: Shape; count: number }[] = [];
  if (min > 0) parts.push({ shape: sub, count: min });
  if (max > min) parts.push({ shape: optionalChain(max - min, nonGreedy, sub), count: 1 });
  return parts.length === 0 ? NO_MATCH : concatOf(parts);
}

/** The simplifier's `(x(x(x)?)?)?` of `n` optional copies of x, counted in closed form. */
function optionalChain(n: number, nonGreedy: boolean, sub: Shape): Shape {
  const first = repeatOf(OP.QUEST, nonGreedy, sub);
  if (n === 1 || first.kind !== OP.QUEST) {
    if (n === 1) return first;
    // x is empty, or cannot match: every level collapses to the same shape.
    return sub.kind === OP.NO_MATCH ? EMPTY : first;
  }
  // Each further level is (x·previous)?: the copy of x, the previous levels, one instruction.
  const step = concatOf([
    { shape: sub, count: 1 },
    { shape: first, count: 1 },
  ]);
  if (step.kind === OP.NO_MATCH) return EMPTY;
  return {
    kind: OP.QUEST,
    nonGreedy,
    insts: first.insts + (n - 1) * (sub.insts + 1),
    fail: false,
    nullable: true,
  };
}

/** The shape of a parse-tree node; one visit per node (the parse tree shares no nodes), so linear. */
function shapeOf(re: EngineRegexp, weighted: boolean): Shape {
  const op = re.op;
  switch (op) {
    case OP.NO_MATCH:
      return NO_MATCH;
    case OP.EMPTY_MATCH:
      return EMPTY;
    case OP.LITERAL: {
      const n = re.runes.length;
      return { kind: OP.LITERAL, nonGreedy: false, insts: Math.max(n, 1), fail: false, nullable: n === 0 };
    }
    case OP.CHAR_CLASS:
      return re.runes.length === 0 ? NO_MATCH : rune(classWeight(re.runes, weighted));
    case OP.ANY_CHAR_NOT_NL:
    case OP.ANY_CHAR:
      return RUNE;
    case OP.BEGIN_LINE:
    case OP.END_LINE:
    case OP.BEGIN_TEXT:
    case OP.END_TEXT:
    case OP.WORD_BOUNDARY:
    case OP.NO_WORD_BOUNDARY:
      return { kind: op, nonGreedy: false, insts: 1, fail: false, nullable: true };
    case OP.CAPTURE: {
      const sub = shapeOf(re.subs[0] as EngineRegexp, weighted);
      return { kind: op, nonGreedy: false, insts: sub.insts + 2, fail: sub.fail, nullable: sub.nullable };
    }
    case OP.STAR:
    case OP.PLUS:
    case OP.QUEST:
      return repeatOf(op, (re.flags & NON_GREEDY) !== 0, shapeOf(re.subs[0] as EngineRegexp, weighted));
    case OP.REPEAT: {
      if (re.min === 0 && re.max === 0) return EMPTY;
      const sub = shapeOf(re.subs[0] as EngineRegexp, weighted);
      return countedRepeat(re.min, re.max, (re.flags & NON_GREEDY) !== 0, sub);
    }
    case OP.CONCAT:
      return re.subs.length === 0
        ? LEAF_NOP(op)
        : concatOf(re.subs.map((s) => ({ shape: shapeOf(s, weighted), count: 1 })));
    case OP.ALTERNATE: {
      if (re.subs.length === 0) return LEAF_NOP(op);
      let insts = 0;
      let branches = 0;
      let live = 0;
      let nullable = false;
      let only: Shape = NO_MATCH;
      for (const s of re.subs) {
        const shape = shapeOf(s, weighted);
        if (shape.kind === OP.NO_MATCH) continue;
        branches += 1;
        only = shape;
        insts += shape.insts;
        if (!shape.fail) {
          live += 1;
          nullable ||= shape.nullable;
        }
      }
      if (branches === 0) return NO_MATCH;
      if (branches === 1) return only;
      return {
        kind: OP.ALTERNATE,
        nonGreedy: false,
        insts: insts + Math.max(live - 1, 0),
        fail: live === 0,
        nullable,
      };
    }
    default:
      // Lookbehind and anything newer: never produced without the engine's opt-in flags.
      throw new Error(`incident-query: unsupported re2js regexp node ${op}.`);
  }
}

/** The code points the engine's case folding covers (re2js `Unicode.MIN_FOLD`, `MAX_FOLD`). */
const MIN_FOLD = 0x41;
const MAX_FOLD = 0x1e943;

/**
 * Code points of case folding that count as one instruction of the budget. Under case folding the engine's
 * parser folds an explicit class range that only partly covers the folding code points one code point at a
 * time (about 0.2 µs each): `(?i)[\x{100}-\x{1e943}]` takes 20 ms to parse and compiles to a handful of
 * instructions. That work is counted, and known before parsing.
 */
export const FOLD_CODE_POINTS_PER_INSTRUCTION = 50;

/** Reads one character of a class at `j`: its code point (−1: a class escape, −2: unknown) and the end. */
function classChar(source: string, j: number): [number, number] {
  if (source[j] !== "\\") {
    const cp = source.codePointAt(j) ?? -2;
    return [cp, j + (cp > 0xffff ? 2 : 1)];
  }
  const e = source[j + 1];
  if (e === undefined) return [-2, j + 1];
  if (e === "x") {
    if (source[j + 2] === "{") {
      const close = source.indexOf("}", j + 3);
      if (close < 0) return [-2, source.length];
      const cp = Number.parseInt(source.slice(j + 3, close), 16);
      return [Number.isNaN(cp) ? -2 : cp, close + 1];
    }
    const cp = Number.parseInt(source.slice(j + 2, j + 4), 16);
    return [Number.isNaN(cp) ? -2 : cp, j + 4];
  }
  if (e >= "0" && e <= "7") {
    let k = j + 1;
    while (k < j + 4 && (source[k] ?? "") >= "0" && (source[k] ?? "") <= "7") k++;
    return [Number.parseInt(source.slice(j + 1, k), 8), k];
  }
  const named: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
  if (named[e] !== undefined) return [named[e] as number, j + 2];
  if (e === "p" || e === "P") {
    if (source[j + 2] !== "{") return [-1, j + 3];
    const close = source.indexOf("}", j + 3);
    return [-1, close < 0 ? source.length : close + 1];
  }
  if ("dDwWsS".includes(e)) return [-1, j + 2];
  const cp = source.codePointAt(j + 1) ?? -2;
  return [cp, j + 1 + (cp > 0xffff ? 2 : 1)];
}

/** Code points the folding of the class range lo–hi iterates (0 when it covers all folding ones or none). */
function sweepOf(lo: number, hi: number): number {
  if (lo < 0 || hi < 0) return MAX_FOLD - MIN_FOLD + 1;
  if (lo <= MIN_FOLD && hi >= MAX_FOLD) return 0;
  const from = Math.max(lo, MIN_FOLD);
  const to = Math.min(hi, MAX_FOLD);
  return to >= from ? to - from + 1 : 0;
}

/**
 * An upper bound of the code points the engine's parser folds one at a time for `source` (see
 * `FOLD_CODE_POINTS_PER_INSTRUCTION`), from a scan of its text: explicit ranges in character classes, when
 * case folding may be on (the `i` flag, or an inline `(?i)` anywhere). Linear in the length of the pattern.
 * @param source - the pattern
 * @param ignoreCase - whether `$options` has `i`
 */
export function foldCodePoints(source: string, ignoreCase: boolean): number {
  if (!ignoreCase && !/\(\?[a-zA-Z-]*i/.test(source)) return 0;
  let sweep = 0;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    if (c === "\\") {
      if (source[i + 1] === "Q") {
        const end = source.indexOf("\\E", i + 2);
        i = end < 0 ? n : end + 2;
      } else i += 2;
      continue;
    }
    if (c !== "[") {
      i += 1;
      continue;
    }
    let j = i + 1;
    if (source[j] === "^") j += 1;
    let first = true;
    while (j < n && (source[j] !== "]" || first)) {
      first = false;
      if (source.startsWith("[:", j)) {
        const end = source.indexOf(":]", j + 2);
        j = end < 0 ? j + 1 : end + 2;
        continue;
      }
      const [lo, afterLo] = classChar(source, j);
      j = afterLo;
      if (lo !== -1 && source[j] === "-" && j + 1 < n && source[j + 1] !== "]") {
        const [hi, afterHi] = classChar(source, j + 1);
        sweep += sweepOf(lo, hi);
        j = afterHi;
      }
    }
    i = j + 1;
  }
  return sweep;
}

/**
 * The outcome of `measureRegex`: the program's size, or the engine's reason for refusing the pattern.
 * - `instructions`: the engine's own count (the compiled program's size less its two fixed instructions).
 * - `size`: the count the budget of docs/semantics.md 1.7 uses: `instructions`, except that a character class
 *   counts once per range of code points it holds (RE2 compiles each range to at least one instruction;
 *   the ranges are what parsing, compiling and matching a class cost), plus one per
 *   `FOLD_CODE_POINTS_PER_INSTRUCTION` code points that case folding iterates (`foldCodePoints`). Never less
 *   than `instructions`.
 * - `partial`: the pattern was not parsed, because its folding alone exceeds the caller's limit; `size` is
 *   then that lower bound, `instructions` 0, and the pattern's syntax is unchecked.
 */
export type RegexMeasure =
  | { readonly ok: true; readonly instructions: number; readonly size: number; readonly partial?: true }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses a `$regex` pattern and counts the instructions of the program the engine would build for it,
 * without building it (docs/semantics.md 1.7). Linear in the length of the pattern; allocates only the parse
 * tree. The count excludes the two instructions every program has, so `a{1000}` is 1,000, `a|b*` is 3.
 * @param source - the pattern, RE2 syntax
 * @param bits - RE2JS flag bits (`i`, `m`, `s` of `$options`); `i` folds case, which changes a class's ranges
 * @param limit - when the folding work alone (known before parsing) exceeds this size, the pattern is not
 *   parsed and a `partial` measure is returned (default: no limit)
 * @returns `{ ok: true, instructions, size }`, or `{ ok: false, reason }` with the engine's reason (without its
 *   generic `error parsing regexp: ` prefix) when the pattern is outside RE2 syntax
 * @throws {Error} only if the installed re2js no longer exposes its parse tree (a packaging defect)
 * @example measureRegex("(?:|a){1000}", 0) //=> { ok: true, instructions: 3000, size: 3000 }
 */
export function measureRegex(source: string, bits: number, limit = Number.POSITIVE_INFINITY): RegexMeasure {
  const fold = Math.floor(
    foldCodePoints(source, (bits & RE2JS.CASE_INSENSITIVE) !== 0) / FOLD_CODE_POINTS_PER_INSTRUCTION,
  );
  if (fold > limit) return { ok: true, instructions: 0, size: fold, partial: true };
  let tree: EngineRegexp;
  try {
    tree = parseOnly(source, bits);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) {
      return { ok: false, reason: error.message.replace(/^error parsing regexp: /, "") };
    }
    throw error;
  }
  return { ok: true, instructions: shapeOf(tree, false).insts, size: shapeOf(tree, true).insts + fold };
}

type DfaConstructor = new (prog: object, maxMem: number) => object;
let dfaConstructor: DfaConstructor | undefined;

/**
 * The engine's lazy DFA constructor (re2js 2.10 `DFA(prog, maxMem)`), found on a probe the first time it is
 * needed: the probe compiles a pattern, re2js's first compilation, about 5 ms that a process whose conditions
 * hold no `$regex` should not pay at start (docs/cli.md, "Start-up").
 */
function engineDfa(): DfaConstructor {
  if (dfaConstructor !== undefined) return dfaConstructor;
  const probe = RE2JS.compile("a+b") as unknown as { re2Input?: { dfa?: object; prog?: object } };
  const dfa = probe.re2Input?.dfa;
  const ctor = dfa?.constructor as DfaConstructor | undefined;
  if (typeof ctor !== "function" || probe.re2Input?.prog === undefined) {
    throw new Error("incident-query: unsupported re2js version (no DFA to bound).");
  }
  dfaConstructor = ctor;
  return ctor;
}

/**
 * Bounds the memory the engine's matcher may keep for one compiled pattern. The engine builds a DFA lazily
 * and caches its states, up to 8 MiB per pattern by default, for as long as the pattern is kept; past its
 * budget the DFA starts over, and when that happens too often the engine matches with its NFA instead
 * (still linear in the value's length). With a cache of compiled patterns, the default would let values
 * chosen by a caller grow the cache by 8 MiB per pattern; this gives the DFA a smaller budget instead.
 * @param compiled - a pattern compiled by `RE2JS.compile`, not yet used
 * @param bytes - the DFA's budget, in the engine's estimate of bytes
 */
export function limitDfaMemory(compiled: RE2JS, bytes: number): void {
  const re2 = (compiled as unknown as { re2Input?: { lazyDFA: object | null; prog: object } }).re2Input;
  if (re2 === undefined) throw new Error("incident-query: unsupported re2js version (no DFA to bound).");
  re2.lazyDFA = new (engineDfa())(re2.prog, bytes);
}
