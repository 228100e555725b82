/**
 * The label an unknown label most likely meant, for the `suggestion` of `unknown_label` and
 * `unknown_field` issues (docs/semantics.md 1.6).
 */
/**
 * The label an unknown label most likely meant (docs/semantics.md 1.6), or undefined: a case-insensitive (and
 * space-insensitive) match first, then the only label it is a prefix of (however short: "Hi" → High), then the
 * nearest label within a small edit distance (at most 1 for short inputs, 3 for long ones). Cost: linear in
 * the label's length for labels much longer than every candidate (they are skipped by length).
 * @param label - the unknown label as written
 * @param labels - the field's labels, in catalogue order (ties go to the first)
 * @returns one of `labels`, or undefined when none is near; never throws
 * @example suggestLabel("Webhok", INGESTION_TYPE_LABELS) //=> "Webhook"
 */
export function suggestLabel(label: string, labels: readonly string[]): string | undefined {
  const folded = fold(label);
  if (folded === "") return undefined;
  const same = labels.find((candidate) => fold(candidate) === folded);
  if (same !== undefined) return same;
  // A prefix of exactly one label, however short ("Hi" → High), names it.
  const prefixed = labels.filter((candidate) => fold(candidate).startsWith(folded));
  if (prefixed.length === 1) return prefixed[0];
  const max = Math.min(3, Math.max(1, Math.floor(folded.length / 3)));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const candidate of labels) {
    const target = fold(candidate);
    if (Math.abs(target.length - folded.length) > max) continue;
    const distance = editDistance(folded, target);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** A label folded for comparison: lower case, without spaces, `_` and `-`. */
function fold(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, "");
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current[j] = value;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
