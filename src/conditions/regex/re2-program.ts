/**
 * What the bit-parallel matcher (bit-parallel.ts) reads of a program compiled by re2js (pinned at 2.10):
 * its instructions and their kinds, the empty-width assertions and the contexts of a place in a value that
 * satisfy them, the code points of a rune instruction (case folding included), and the prefilter's required
 * text. The only module that knows re2js's internal shapes.
 */

import { RE2JS } from "re2js";
import { sharedCache } from "../lru.js";
import { parseRegexTree, REGEX_OP } from "./program.js";

/** The instruction of a compiled re2js program (re2js 2.10 `Inst`), as far as the matcher reads it. */
export interface EngineInst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  readonly runes: ArrayLike<number>;
  matchRune(rune: number): boolean;
}

/** A compiled re2js program (re2js 2.10 `Prog`). */
export interface EngineProg {
  readonly inst: readonly EngineInst[];
  readonly start: number;
}

const INST_NAMES = [
  "ALT",
  "ALT_MATCH",
  "CAPTURE",
  "EMPTY_WIDTH",
  "FAIL",
  "MATCH",
  "NOP",
  "RUNE",
  "RUNE1",
  "RUNE_ANY",
  "RUNE_ANY_NOT_NL",
] as const;

/**
 * re2js's instruction kinds, read from its `Inst` class on a probe (the version is pinned), when one of them
 * is first read: the probe compiles a pattern, re2js's first compilation, about 5 ms that a process whose
 * conditions hold no `$regex` should not pay at start (docs/cli.md, "Start-up").
 */
export const INST: Readonly<Record<(typeof INST_NAMES)[number], number>> = lazyNumbers(INST_NAMES, () => {
  const probe = RE2JS.compile("a") as unknown as { re2Input?: { prog?: EngineProg } };
  const ctor = probe.re2Input?.prog?.inst[0]?.constructor as unknown as Record<string, unknown> | undefined;
  return (name) => {
    const value = ctor?.[name];
    if (typeof value !== "number")
      throw new Error(`incident-query: unsupported re2js version (no Inst.${name}).`);
    return value;
  };
});

/**
 * An object of the named numbers `read` gives, read when the first of them is: until then each property is
 * a getter that reads them all and puts them in its place (as data properties).
 * @param probe - called once, on the first read; returns the reader of each name (which may throw)
 */
function lazyNumbers<K extends string>(
  names: readonly K[],
  probe: () => (name: K) => number,
): Readonly<Record<K, number>> {
  const table = {} as Record<K, number>;
  const fill = (): void => {
    const read = probe();
    const values = names.map(read);
    names.forEach((name, i) => {
      Object.defineProperty(table, name, { value: values[i], enumerable: true, writable: false });
    });
  };
  for (const name of names) {
    Object.defineProperty(table, name, {
      configurable: true,
      enumerable: true,
      get() {
        fill();
        return table[name];
      },
    });
  }
  return table;
}

/** Empty-width assertion bits, as re2js's `Utils.EMPTY_*` (an `EMPTY_WIDTH` instruction's `arg`), in its order. */
export const [BEGIN_LINE, END_LINE, BEGIN_TEXT, END_TEXT, WORD_BOUNDARY, NO_WORD_BOUNDARY] = [
  1, 2, 4, 8, 16, 32,
] as const;

/** The largest code point. */
export const MAX_RUNE = 0x10ffff;

/** True for `[0-9A-Za-z_]` (RE2's word characters; ASCII only, as re2js). */
function isWordUnit(unit: number): boolean {
  return (
    (unit >= 97 && unit <= 122) || (unit >= 65 && unit <= 90) || (unit >= 48 && unit <= 57) || unit === 95
  );
}

/**
 * The assertions that hold between the code unit `before` and the code unit `after` (−1: the start or the
 * end of the value), as re2js's `Utils.emptyOpContext`.
 */
export function contextOf(before: number, after: number): number {
  let ctx = 0;
  if (before < 0) ctx |= BEGIN_TEXT | BEGIN_LINE;
  else if (before === 10) ctx |= BEGIN_LINE;
  if (after < 0) ctx |= END_TEXT | END_LINE;
  else if (after === 10) ctx |= END_LINE;
  ctx |= isWordUnit(before) !== isWordUnit(after) ? WORD_BOUNDARY : NO_WORD_BOUNDARY;
  return ctx;
}

/** Every context a value can present (each kind of neighbour on either side). */
export const ALL_CONTEXTS: readonly number[] = (() => {
  const kinds = [-1, 10, 97, 32];
  const seen = new Set<number>();
  for (const before of kinds) for (const after of kinds) seen.add(contextOf(before, after));
  return [...seen];
})();

/**
 * Case-folding orbits of single runes (a rune and every rune RE2 folds it with), as sorted ranges, by rune
 * (`cacheStats().regexCaseOrbits`: 1,024 runes, 1 MiB; an orbit weighs its ranges and the entry).
 */
const orbits = sharedCache<Int32Array>("regexCaseOrbits", 1024, 1024 * 1024);

/**
 * The runes RE2 folds `rune` with, as sorted ranges: re2js's own parser folds the class `[rune X]` (X, a
 * code point that folds with nothing, keeps the parser from turning a one-rune class into a literal; it
 * is removed again).
 */
function orbitOf(rune: number): Int32Array {
  let ranges = orbits.get(String(rune));
  if (ranges === undefined) {
    const sentinel = rune === MAX_RUNE ? MAX_RUNE - 1 : MAX_RUNE;
    const tree = parseRegexTree(
      `[\\x{${rune.toString(16)}}\\x{${sentinel.toString(16)}}]`,
      RE2JS.CASE_INSENSITIVE,
    );
    const kept: number[] = [rune, rune];
    if (tree.op === REGEX_OP.CHAR_CLASS) {
      for (let i = 0; i + 1 < tree.runes.length; i += 2) {
        for (let r = tree.runes[i] as number; r <= (tree.runes[i + 1] as number); r++) {
          if (r !== sentinel) kept.push(r, r);
        }
      }
    }
    ranges = normalizeRanges(kept);
    orbits.set(String(rune), ranges, 4 * ranges.length + 96);
  }
  return ranges;
}

/** Sorted, merged copy of the ranges `[lo0, hi0, lo1, hi1, …]`. */
function normalizeRanges(runes: ArrayLike<number>): Int32Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < runes.length; i += 2) pairs.push([runes[i] as number, runes[i + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) out[last] = Math.max(out[last] as number, hi);
    else out.push(lo, hi);
  }
  return Int32Array.from(out);
}

/** True when `rune` lies in one of the sorted `ranges`. */
export function inRanges(ranges: Int32Array, rune: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rune < (ranges[2 * mid] as number)) hi = mid - 1;
    else if (rune > (ranges[2 * mid + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The code points an instruction matches, as sorted ranges (`undefined`: not a rune instruction). */
export function rangesOf(inst: EngineInst): Int32Array | undefined {
  switch (inst.op) {
    case INST.RUNE1:
      return Int32Array.from([inst.runes[0] as number, inst.runes[0] as number]);
    case INST.RUNE_ANY:
      return Int32Array.from([0, MAX_RUNE]);
    case INST.RUNE_ANY_NOT_NL:
      return Int32Array.from([0, 9, 11, MAX_RUNE]);
    case INST.RUNE: {
      if (inst.runes.length === 1) {
        const rune = inst.runes[0] as number;
        // Folding: the orbit, restricted to what the engine's own instruction accepts.
        const orbit = orbitOf(rune);
        const kept: number[] = [];
        for (let i = 0; i < orbit.length; i += 2) {
          for (let r = orbit[i] as number; r <= (orbit[i + 1] as number); r++) {
            if (r === rune || inst.matchRune(r)) kept.push(r, r);
          }
        }
        if (kept.length === 0) kept.push(rune, rune);
        return normalizeRanges(kept);
      }
      return normalizeRanges(inst.runes);
    }
    default:
      return undefined;
  }
}

/** re2js's prefilter of a pattern (re2js 2.10 `Prefilter`): strings every match contains. */
export interface EnginePrefilter {
  readonly type: number;
  readonly str: string;
  readonly subs: readonly EnginePrefilter[];
}

/** re2js's prefilter kinds (`Prefilter.Type`). */
const EXACT = 1;
const AND = 2;
const OR = 3;

/**
 * A necessary condition for a match, as strings the value must contain: re2js's own prefilter (the
 * strings its `test` looks for first, with `indexOf`, before matching), kept when it is a string, all of
 * some strings, or any of some strings; `undefined` otherwise.
 */
export type RequiredText = { readonly all: readonly string[] } | { readonly any: readonly string[] };

/** The required text of re2js's prefilter of a pattern, or undefined (see `RequiredText`). */
export function requiredText(prefilter: EnginePrefilter | null | undefined): RequiredText | undefined {
  if (prefilter === null || prefilter === undefined) return undefined;
  const exact = (p: EnginePrefilter) => p.type === EXACT && typeof p.str === "string" && p.str.length > 0;
  if (exact(prefilter)) return { all: [prefilter.str] };
  if (prefilter.type === AND && prefilter.subs.length > 0 && prefilter.subs.every(exact)) {
    return { all: prefilter.subs.map((p) => p.str) };
  }
  if (prefilter.type === OR && prefilter.subs.length > 0 && prefilter.subs.every(exact)) {
    return { any: prefilter.subs.map((p) => p.str) };
  }
  return undefined;
}

/** True when `value` holds the required text (each `includes` is linear: V8's string search). */
export function holds(required: RequiredText, value: string): boolean {
  if ("all" in required) {
    for (const text of required.all) if (!value.includes(text)) return false;
    return true;
  }
  for (const text of required.any) if (value.includes(text)) return true;
  return false;
}
