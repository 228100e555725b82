/**
 * Command parameters that may arrive as JSON text (docs/semantics.md 3.3): the vendor's own request template for
 * TriggerIncidentExternalAction quotes `Search Conditions` and `Trigger Data` as strings, so a string whose
 * content is JSON of the expected kind is read as that value; any other string is an error.
 */

import { describeValue } from "../conditions/issues.js";
import { duplicateKeyMessage, findDuplicateKey } from "../conditions/json-duplicate-keys.js";

/** What a JSON-text parameter may hold once read. */
export type JsonTextKind = "object" | "objectOrArray";

/** The value to use, or the sentence that refuses the string. */
export type JsonTextResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * The deepest nesting of arrays and objects in JSON text, counted without parsing it, stopping as soon as
 * it passes `stopAbove` (so a megabyte of `[[[[…` costs one linear scan and no allocation).
 */
function nestingDepth(text: string, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Reads a parameter that is either already a JSON value or a string holding one (docs/semantics.md 3.3).
 * Values that are not strings are returned unchanged (the command checks them as before).
 * @param name - the parameter's name, for the message (`Search Conditions`)
 * @param value - the parameter's value (present, not null)
 * @param kind - `object`: the string must hold a JSON object; `objectOrArray`: an object or an array
 * @param maxDepth - the parameter's depth limit, which does not count the outer object or array: text
 *   whose brackets nest more than `maxDepth + 1` deep is refused before it is parsed (the command's own
 *   limits then apply, exactly, to what is parsed)
 * @returns `{ ok: true, value }` (the parsed content for a string), or `{ ok: false, message }` such as
 *   `Parameter 'Trigger Data' must be a JSON object, or a string holding one, found the string "a=1".`;
 *   text in which one object repeats a key is refused too (docs/semantics.md 3.1, "Duplicate keys")
 */
export function readJsonTextParam(
  name: string,
  value: unknown,
  kind: JsonTextKind,
  maxDepth: number,
): JsonTextResult {
  if (typeof value !== "string") return { ok: true, value };
  const expected = kind === "object" ? "a JSON object" : "a JSON object or array";
  const refuse = (why: string): JsonTextResult => ({
    ok: false,
    message: `Parameter '${name}' must be ${expected}, or a string holding one, found ${describeValue(value)}${why}.`,
  });
  const text = value.trim();
  if (!(text.startsWith("{") || (kind === "objectOrArray" && text.startsWith("[")))) return refuse("");
  if (nestingDepth(text, maxDepth + 1) > maxDepth + 1) {
    return {
      ok: false,
      message: `Parameter '${name}' must be nested at most ${maxDepth} levels deep, found deeper JSON text.`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse(" (not valid JSON)");
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    return { ok: false, message: duplicateKeyMessage(`Parameter '${name}'`, duplicate) };
  }
  return { ok: true, value: parsed };
}
