/**
 * The words the readers say of a record, shared by the CLI's text reader (src/cli/records.ts, the `match`
 * and `timeline` commands) and the byte reader (block-scanner.ts, in this thread or a worker), so that both
 * say the same thing of the same line.
 */

import { constants } from "node:buffer";
import { describeValue } from "../conditions/issues.js";
import { duplicateKeyMessage, findDuplicateKey } from "../conditions/json-duplicate-keys.js";
import type { RecordRules } from "./block-scanner.js";

/** A record parsed from its line's text, or why it is invalid (one sentence, without the position). */
export type ParsedRecord =
  | { readonly ok: true; readonly value: unknown; readonly record: number; readonly line: number }
  | { readonly ok: false; readonly record: number; readonly line: number; readonly message: string };

/** A short description of a JSON value's shape: `a JSON object with the keys sites, users`. */
export function describeShape(value: unknown): string {
  if (Array.isArray(value)) return `a JSON array of ${value.length} value${value.length === 1 ? "" : "s"}`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    if (keys.length === 0) return "an empty JSON object";
    const shown = keys.slice(0, 8).join(", ");
    return `a JSON object with the key${keys.length === 1 ? "" : "s"} ${shown}${keys.length > 8 ? ", …" : ""}`;
  }
  return describeValue(value);
}

/** The first line of a JSON.parse error, without its (possibly long) quoted source. */
function jsonError(error: unknown): string {
  const message = String((error as Error).message ?? error).split("\n")[0] ?? "";
  return message.length > 160 ? `${message.slice(0, 160)}…` : message;
}

/**
 * The message for a record whose line is not valid UTF-8 (read with `skipInvalid`, the CLI's `--skip-invalid`;
 * without it, invalid UTF-8 ends the input): `byte` is the first bad byte, 1-based in the (inflated) input (docs/cli.md,
 * Encoding).
 */
export function notUtf8(byte: number): string {
  return `not valid UTF-8 (byte ${byte} of the input)`;
}

/** The message for a record longer than `--max-line-length` (`max` characters). */
export function tooLong(max: number): string {
  return `longer than ${max} characters (--max-line-length)`;
}

/**
 * A record parsed from `text`, or why it is invalid: `JSON.parse` keeps the last of two equal keys of one
 * object silently, so a record that repeats one is refused (docs/semantics.md 3.1, "Duplicate keys"), as
 * `IncidentSet.fromNdjson` refuses such a line.
 */
export function parseRecord(text: string, record: number, line: number): ParsedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, record, line, message: `not valid JSON: ${jsonError(error)}` };
  }
  const duplicate = typeof value === "object" && value !== null ? findDuplicateKey(text) : undefined;
  if (duplicate !== undefined)
    return { ok: false, record, line, message: duplicateKeyMessage("the record", duplicate) };
  return { ok: true, value, record, line };
}

/**
 * Why a matching incident is not printed: its JSON text would be longer than a string can be (an incident
 * of numbers such as `1e20`, which print as 21 digits, under a `--max-line-length` near that length). The
 * incident is then an invalid record (65, with its line), never an unexpected error (70).
 */
export const TOO_LONG_TO_PRINT = `A matching incident cannot be printed: its JSON text is longer than the longest string JavaScript holds (${constants.MAX_STRING_LENGTH} characters).`;

/** The message for a record that is not an incident (not a JSON object). */
export function notAnIncident(value: unknown): string {
  return `Expected an incident (a JSON object), found ${describeShape(value)}.`;
}

/** The rules of `BlockScanner` for `match`. */
export const MATCH_RULES: RecordRules = {
  parseRecord: (text, record, line) => parseRecord(text, record, line),
  notAnIncident,
  tooLongToPrint: TOO_LONG_TO_PRINT,
  tooLong,
  notUtf8,
};
