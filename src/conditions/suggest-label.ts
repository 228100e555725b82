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

/**
 * The catalogue field that a key outside the catalogue is most likely a misspelling of (docs/semantics.md
 * 1.1, "Near misses by spelling"), or undefined. The nearness is the edit-distance part of the labels' own
 * (`suggestLabel`), on names folded the same way (lower case, without spaces, `_` and `-`):
 * - at most `min(3, max(1, floor(n / 3)))` edits (insert, delete, substitute, swap two neighbours), `n` the
 *   folded key's length: 1 edit up to 5 characters, 2 from 6 to 8, 3 from 9 on;
 * - not a prefix (unlike labels: `Cat` or `Conn` are as likely fields of their own as cut-short names);
 * - not a numbered sibling: a key that equals the field once digits are removed (`CustomField3`, `Title2`)
 *   is the next of a series, not a typo;
 * - not a key the fold makes equal to a field (that is the `unknown_field` error of `nearMissField`).
 * Ties go to the first field in catalogue order. Cost: one bounded distance per field of a length within
 * reach; never throws.
 * @param key - the key as written (a field path)
 * @param fields - the catalogue's field names, in catalogue order
 * @example suggestField("Sevrity", Object.keys(DEFAULT_CATALOG.fields)) //=> "Severity"
 * @example suggestField("Custom.Owner", Object.keys(DEFAULT_CATALOG.fields)) //=> undefined
 */
export function suggestField(key: string, fields: readonly string[]): string | undefined {
  const folded = fold(key);
  if (folded === "" || fields.includes(key)) return undefined;
  const max = Math.min(3, Math.max(1, Math.floor(folded.length / 3)));
  const undigited = folded.replace(DIGITS, "");
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const field of fields) {
    const target = fold(field);
    if (target === folded || Math.abs(target.length - folded.length) > max) continue;
    if (target.replace(DIGITS, "") === undigited) continue;
    const distance = editDistance(folded, target);
    if (distance < bestDistance) {
      best = field;
      bestDistance = distance;
    }
  }
  return best;
}

const DIGITS = /[0-9]+/g;

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
