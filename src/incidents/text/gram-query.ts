/**
 * Literal extraction from the RE2 parse (text/index.ts has the map): the trigrams a value must hold for a
 * pattern to match it, read from RE2's parse tree of the pattern (`parseRegexTree`): literals, small
 * character classes, concatenation, alternation and repetition, as an AND/OR query over trigrams (Russ
 * Cox, "Regular Expression Matching with a Trigram Index"). A pattern with no required literal of three
 * characters gives `ALL` (the index cannot narrow it). Values and literals fold alike (fold.ts), so a value
 * the pattern matches, with or without `i`, holds every trigram the query asks for.
 */

import { sharedCache } from "../../conditions/lru.js";
import {
  parseRegexTree,
  REGEX_OP,
  type RegexTreeNode,
  regexFlagBits,
} from "../../conditions/regex/program.js";
import { foldSymbol, OPAQUE } from "./fold.js";

/** A query over trigrams: every value (`all`), all of `grams` and `subs`, or any of `subs`. */
export type GramQuery =
  | { readonly op: "all" }
  | { readonly op: "and"; readonly grams: readonly number[]; readonly subs: readonly GramQuery[] }
  | { readonly op: "or"; readonly subs: readonly GramQuery[] };

/** The query that does not narrow. */
export const ALL: GramQuery = { op: "all" };

function andOf(grams: readonly number[], subs: readonly GramQuery[]): GramQuery {
  const keys = new Set(grams);
  const rest: GramQuery[] = [];
  for (const sub of subs) {
    if (sub.op === "all") continue;
    if (sub.op === "and") {
      for (const gram of sub.grams) keys.add(gram);
      rest.push(...sub.subs);
    } else rest.push(sub);
  }
  if (keys.size === 0 && rest.length === 0) return ALL;
  if (keys.size === 0 && rest.length === 1) return rest[0]!;
  return { op: "and", grams: [...keys], subs: rest };
}

function orOf(subs: readonly GramQuery[]): GramQuery {
  const out: GramQuery[] = [];
  for (const sub of subs) {
    if (sub.op === "all") return ALL;
    if (sub.op === "or") out.push(...sub.subs);
    else out.push(sub);
  }
  if (out.length === 1) return out[0]!;
  // Trigrams every branch requires are required by the OR: AND(common, OR(rest)).
  if (out.every((sub) => sub.op === "and")) {
    const branches = out as { op: "and"; grams: readonly number[]; subs: readonly GramQuery[] }[];
    const common = branches[0]!.grams.filter((gram) => branches.every((b) => b.grams.includes(gram)));
    if (common.length > 0) {
      const rest = branches.map((b) =>
        andOf(
          b.grams.filter((gram) => !common.includes(gram)),
          b.subs,
        ),
      );
      return andOf(common, rest.some((sub) => sub.op === "all") ? [] : [{ op: "or", subs: rest }]);
    }
  }
  return { op: "or", subs: out };
}

/** The trigram keys of a folded symbol string, without those holding `OPAQUE`. */
function gramsOf(symbols: string): number[] {
  const grams: number[] = [];
  for (let k = 0; k + 3 <= symbols.length; k++) {
    const a = symbols.charCodeAt(k);
    const b = symbols.charCodeAt(k + 1);
    const c = symbols.charCodeAt(k + 2);
    if (a !== OPAQUE && b !== OPAQUE && c !== OPAQUE) grams.push((a << 12) | (b << 6) | c);
  }
  return grams;
}

/** Any of the exact strings: OR over them of AND of their trigrams; `ALL` when one has none. */
function exactQuery(exact: readonly string[]): GramQuery {
  const subs: GramQuery[] = [];
  for (const s of exact) {
    const grams = gramsOf(s);
    if (grams.length === 0) return ALL;
    subs.push(andOf(grams, []));
  }
  return orOf(subs);
}

/** At most this many exact strings are tracked per node (then only their trigrams are kept). */
const MAX_EXACT = 16;

/**
 * What a pattern node tells about the values it matches: `exact`, the set of folded strings it can match
 * (when small), or else `match`, a query every matched value satisfies. (With `exact`, `match` is `ALL`.)
 */
interface Info {
  readonly exact?: readonly string[];
  readonly match: GramQuery;
}

const ANYTHING: Info = { match: ALL };

const EMPTY_STRING: Info = { exact: [""], match: ALL };

function full(info: Info): GramQuery {
  return info.exact === undefined ? info.match : exactQuery(info.exact);
}

function foldRunes(runes: ArrayLike<number>): string {
  let out = "";
  for (let k = 0; k < runes.length; k++) out += String.fromCharCode(foldSymbol(runes[k]!));
  return out;
}

function analyze(re: RegexTreeNode): Info {
  const op = re.op;
  switch (op) {
    case REGEX_OP.LITERAL:
      return { exact: [foldRunes(re.runes)], match: ALL };
    case REGEX_OP.EMPTY_MATCH:
    case REGEX_OP.BEGIN_LINE:
    case REGEX_OP.END_LINE:
    case REGEX_OP.BEGIN_TEXT:
    case REGEX_OP.END_TEXT:
    case REGEX_OP.WORD_BOUNDARY:
    case REGEX_OP.NO_WORD_BOUNDARY:
      return EMPTY_STRING;
    case REGEX_OP.CHAR_CLASS: {
      const symbols = new Set<number>();
      const runes = re.runes;
      for (let k = 0; k + 1 < runes.length; k += 2) {
        const lo = runes[k]!;
        const hi = runes[k + 1]!;
        if (hi - lo > 64) return ANYTHING;
        for (let c = lo; c <= hi; c++) symbols.add(foldSymbol(c));
        if (symbols.size > MAX_EXACT) return ANYTHING;
      }
      if (symbols.size === 0) return ANYTHING;
      return { exact: [...symbols].map((s) => String.fromCharCode(s)), match: ALL };
    }
    case REGEX_OP.CAPTURE:
      return analyze(re.subs[0]!);
    case REGEX_OP.QUEST: {
      const sub = analyze(re.subs[0]!);
      if (sub.exact !== undefined && sub.exact.length < MAX_EXACT) {
        return { exact: [...new Set([...sub.exact, ""])], match: ALL };
      }
      return ANYTHING;
    }
    case REGEX_OP.PLUS:
      return { match: full(analyze(re.subs[0]!)) };
    case REGEX_OP.REPEAT: {
      if (re.min === 0 && re.max === 0) return EMPTY_STRING;
      if (re.min === 1 && re.max === 1) return analyze(re.subs[0]!);
      return re.min >= 1 ? { match: full(analyze(re.subs[0]!)) } : ANYTHING;
    }
    case REGEX_OP.CONCAT: {
      let current: string[] = [""];
      const parts: GramQuery[] = [];
      let flushed = false;
      for (const child of re.subs) {
        const info = analyze(child);
        if (info.exact !== undefined && current.length * info.exact.length <= MAX_EXACT) {
          const next = new Set<string>();
          for (const a of current) for (const b of info.exact) next.add(a + b);
          current = [...next];
          continue;
        }
        parts.push(exactQuery(current));
        flushed = true;
        if (info.exact !== undefined) current = [...info.exact];
        else {
          parts.push(info.match);
          current = [""];
        }
      }
      if (!flushed) return { exact: current, match: ALL };
      parts.push(exactQuery(current));
      return { match: andOf([], parts) };
    }
    case REGEX_OP.ALTERNATE: {
      const infos = re.subs.map(analyze);
      if (infos.every((info) => info.exact !== undefined)) {
        const union = new Set<string>();
        for (const info of infos) for (const s of info.exact!) union.add(s);
        if (union.size <= MAX_EXACT) return { exact: [...union], match: ALL };
      }
      return { match: orOf(infos.map(full)) };
    }
    default:
      // `.`, `*`, an empty class: no constraint.
      return ANYTHING;
  }
}

/**
 * Required-trigram queries by flags and pattern (`cacheStats().gramQueries`: 512 entries, 8 MiB, least
 * recently used dropped; an entry weighs its key and its query, `queryBytes`).
 */
const queryCache = sharedCache<GramQuery>("gramQueries", 512, 8 * 1024 * 1024);

/** Estimated bytes of a query: 48 a node, 8 a trigram. */
function queryBytes(query: GramQuery): number {
  if (query.op === "all") return 48;
  let bytes = 48;
  if (query.op === "and") bytes += 8 * query.grams.length;
  for (const sub of query.subs) bytes += queryBytes(sub);
  return bytes;
}

/**
 * The trigrams a string must hold for `$regex` `source` with `$options` `flags` to match it (see the file
 * comment): a query that never excludes a matching value. Case-folded, so one query serves `i` and not.
 * @param source - the pattern (RE2 syntax, already accepted by the parser)
 * @param flags - `$options` (`i`, `m`, `s`)
 * @returns the query; `ALL` when the pattern requires no literal of three characters, or cannot be parsed
 * @example regexGramQuery("^Phish", "i") //=> and of the trigrams of "phish"
 */
export function regexGramQuery(source: string, flags: string): GramQuery {
  const key = `${flags}/${source}`;
  const cached = queryCache.get(key);
  if (cached !== undefined) return cached;
  const bits = regexFlagBits(flags) ?? 0;
  let query: GramQuery;
  try {
    query = full(analyze(parseRegexTree(source, bits)));
  } catch {
    query = ALL;
  }
  queryCache.set(key, query, 2 * key.length + 64 + queryBytes(query));
  return query;
}

/** The number of trigrams a query names (for `explain`). */
export function gramCount(query: GramQuery): number {
  if (query.op === "all") return 0;
  if (query.op === "and") return query.grams.length + query.subs.reduce((n, s) => n + gramCount(s), 0);
  return query.subs.reduce((n, s) => n + gramCount(s), 0);
}
