/**
 * The chain proof (text/index.ts has the map): a literal chain (`RegexChain`, such as `(port scan|VPN) .*
 * on`: segments in order, anything between them) answered from the trigram lists, segment after segment,
 * by the literal proof (literal-proof.ts) of each of its strings within the values holding the segments
 * before.
 */

import type { RegexChain } from "../../conditions/regex/chain.js";
import type { RegexLiteral } from "../../conditions/regex/matcher.js";
import type { BudgetTimer } from "../search-budget.js";
import type { TextIndex } from "./corpus-index.js";
import { exclude, NO_IDS, unite } from "./id-lists.js";
import { type LiteralProof, type PlacedProof, proveLiteral } from "./literal-proof.js";

/**
 * Answers a literal chain (`RegexChain`: segments in order, anything between them) from the trigram lists,
 * as `proveLiteral` answers a literal: each string of the first segment is proved where it first occurs,
 * each string of a later segment only within the values holding the segments before (`proveLiteral` with `within`). A value
 * is accepted when, segment after segment, some string of it is proved to first occur at or after the end
 * of the previous segment's earliest proved end (its first occurrence then leaves the most room: the
 * greedy argument of `RegexChain`); the anchors apply to the first and the last segment. When the gaps
 * cannot hold `\n` (no `s`), a value holding one is left undecided. Every other value holding the trigrams of
 * some string of every segment is undecided; a value lacking them for one segment cannot match. Exact as
 * `proveLiteral` is, for ASCII and other values alike (the lists record places in UTF-16 units of the
 * value itself, and `ignoreCase` folds as RE2's simple folding does); docs/semantics.md 1.7.
 * @returns undefined when a string of a segment cannot be proved from the lists (see `proveLiteral`), or the
 *   segments hold more than `MAX_CHAIN_PROOFS` (32) strings together
 * @throws {SearchTimeoutError} from `timer`
 */
export function proveChain(
  index: TextIndex,
  chain: RegexChain,
  timer: BudgetTimer,
  values?: readonly unknown[],
): LiteralProof | undefined {
  const { segments } = chain;
  const last = segments.length - 1;
  let proofs = 0;
  for (const segment of segments) proofs += segment.length;
  if (last < 0 || proofs > MAX_CHAIN_PROOFS) return undefined;
  let held: Int32Array | undefined;
  // The values proved so far, ascending, with where their proved segments end.
  let proved: Int32Array = NO_IDS;
  let ends: Int32Array = NO_IDS;
  for (let s = 0; s <= last; s++) {
    let segmentHeld: Int32Array = NO_IDS;
    let segmentProved: Int32Array = NO_IDS;
    let segmentEnds: Int32Array = NO_IDS;
    for (const text of segments[s]!) {
      const literal: RegexLiteral = {
        text,
        anchorStart: chain.anchorStart && s === 0,
        anchorEnd: chain.anchorEnd && s === last,
        ignoreCase: chain.ignoreCase,
      };
      const proof = proveLiteral(index, literal, timer, values, held);
      if (proof === undefined) return undefined;
      segmentHeld = unite(segmentHeld, unite(proof.accepted, proof.undecided));
      const [ids, after] =
        s === 0 ? placedEnds(proof, text.length) : follow(proved, ends, proof, text.length);
      [segmentProved, segmentEnds] = earliestEnds(segmentProved, segmentEnds, ids, after);
    }
    timer.tick(segmentHeld.length);
    held = segmentHeld;
    proved = segmentProved;
    ends = segmentEnds;
    if (held.length === 0) break;
  }
  let accepted = proved;
  if (last > 0 && !chain.gapsMatchNewline) {
    const newlines = index.newlineIds();
    accepted = newlines === undefined ? NO_IDS : exclude(accepted, newlines);
  }
  const all = held ?? NO_IDS;
  // `accepted` is a subset of `all`: of the same length, it is all of it.
  const undecided = accepted.length === all.length ? NO_IDS : exclude(all, accepted);
  return { held: all.length, accepted, undecided };
}

/**
 * The most strings (of all segments together) a chain is proved for (`proveChain`): each costs a pass over
 * lists, so a chain of more is answered as any other pattern (its candidates tested one by one).
 */
const MAX_CHAIN_PROOFS = 32;

/** The accepted values of a first segment's proof, with where the literal ends in each. */
function placedEnds(proof: PlacedProof, length: number): [Int32Array, Int32Array] {
  const ends = new Int32Array(proof.at.length);
  for (let k = 0; k < ends.length; k++) ends[k] = proof.at[k]! + length;
  return [proof.accepted, ends];
}

/**
 * The values proved for the segments before (`ids`, with where they end) whose literal of this segment
 * (`proof`) first occurs at or after that end, with where it ends: both lists ascending, walked together.
 */
function follow(
  ids: Int32Array,
  ends: Int32Array,
  proof: PlacedProof,
  length: number,
): [Int32Array, Int32Array] {
  const { accepted, at } = proof;
  const outIds = new Int32Array(Math.min(ids.length, accepted.length));
  const outEnds = new Int32Array(outIds.length);
  let n = 0;
  let i = 0;
  for (let k = 0; k < accepted.length && i < ids.length; k++) {
    const id = accepted[k]!;
    while (i < ids.length && ids[i]! < id) i++;
    if (i < ids.length && ids[i] === id && at[k]! >= ends[i]!) {
      outIds[n] = id;
      outEnds[n++] = at[k]! + length;
    }
  }
  return [outIds.subarray(0, n), outEnds.subarray(0, n)];
}

/** The union of two ascending id lists with their ends, keeping the earlier end of an id in both. */
function earliestEnds(
  a: Int32Array,
  aEnds: Int32Array,
  b: Int32Array,
  bEnds: Int32Array,
): [Int32Array, Int32Array] {
  if (a.length === 0) return [b, bEnds];
  if (b.length === 0) return [a, aEnds];
  const ids = new Int32Array(a.length + b.length);
  const ends = new Int32Array(ids.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : 0x7fffffff;
    const y = j < b.length ? b[j]! : 0x7fffffff;
    if (x < y) {
      ids[n] = x;
      ends[n++] = aEnds[i++]!;
    } else if (y < x) {
      ids[n] = y;
      ends[n++] = bEnds[j++]!;
    } else {
      ids[n] = x;
      ends[n++] = Math.min(aEnds[i++]!, bEnds[j++]!);
    }
  }
  return [ids.subarray(0, n), ends.subarray(0, n)];
}
