/**
 * Duplicate keys in JSON text (docs/semantics.md 3.1, "Duplicate keys"). `JSON.parse` keeps the last of two equal keys of
 * one object and says nothing, so `{"Type": "Phishing", "Type": "Malware"}` would run the Malware
 * playbooks while a reader of the request (a person, a proxy, a log, another parser that keeps the first)
 * sees Phishing. The reference server, the JSON-text command parameters and the CLI refuse such text
 * instead, naming the key and where it is (RFC 8259 section 4: names SHOULD be unique; I-JSON, RFC 7493
 * section 2.3: MUST).
 */

import { formatPath, type PathSegment } from "./issues.js";

/** Where the first repeated key is: the path of its second occurrence, and the key. */
export interface DuplicateKey {
  /** Keys and array indexes from the root to the repeated member (the key is the last segment). */
  readonly path: readonly PathSegment[];
  /** The repeated key, decoded (`"\u0054ype"` is `Type`). */
  readonly key: string;
}

interface Frame {
  /** The keys seen so far, for an object; `undefined` for an array. */
  readonly keys: Set<string> | undefined;
  /** The current member's key (object) or element index (array). */
  at: PathSegment;
  /** Object only: the next string is a key. */
  expectKey: boolean;
}

/**
 * Finds the first key that occurs twice in one object of `text`, which must be valid JSON (call it after
 * `JSON.parse` succeeded: the scan trusts the grammar). One linear pass without recursion, at any depth;
 * keys are compared after decoding their escapes, as `JSON.parse` compares them.
 * @param text - valid JSON text
 * @returns the first repeated key in text order, or `undefined` when every object's keys are distinct
 * @example
 * findDuplicateKey('{"a": {"b": 1, "\\u0062": 2}}') //=> { path: ["a", "b"], key: "b" }
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i + 1);
      const top = stack[stack.length - 1];
      if (top?.keys !== undefined && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) return { path: [...stack.slice(0, -1).map((f) => f.at), key], key };
        top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b) stack.push({ keys: new Set(), at: "", expectKey: true });
    else if (c === 0x5b) stack.push({ keys: undefined, at: 0, expectKey: false });
    else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top !== undefined) {
        if (top.keys === undefined) top.at = (top.at as number) + 1;
        else top.expectKey = true;
      }
    }
    i++;
  }
  return undefined;
}

/** The index of the quote that closes the string whose content starts at `from` (valid JSON). */
function stringEnd(text: string, from: number): number {
  let i = from;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q === -1) return text.length;
    let k = q - 1;
    while (k >= from && text.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    i = q + 1;
  }
}

/**
 * The sentence that refuses JSON text repeating a key in one object (docs/semantics.md 3.1, "Duplicate
 * keys"), written once for every reader that refuses such text (the commands' parameters, the server's
 * body, the CLI's inputs, the readers of records in src/node): `Parameter 'Trigger Data' repeats the key
 * 'ticket' in one object (at ticket): each key may appear once.` Long keys and paths are cut.
 * @param subject - what repeats it (`Parameter 'Trigger Data'`, `The Search Conditions`, `the record`)
 * @param duplicate - the repeated key and its path
 * @param verb - `repeats` (default), or `repeat` after a plural subject
 */
export function duplicateKeyMessage(subject: string, duplicate: DuplicateKey, verb = "repeats"): string {
  const key = duplicate.key.length > 100 ? `${duplicate.key.slice(0, 100)}…` : duplicate.key;
  const path = duplicate.path.length > 40 ? [...duplicate.path.slice(0, 40), "…"] : duplicate.path;
  return `${subject} ${verb} the key '${key}' in one object (at ${formatPath(path)}): each key may appear once.`;
}
