/**
 * The words `match` says of a record, shared by the text reader's path (match.ts) and the byte reader's
 * (match-scan.ts, in this thread or a worker), so that both say the same thing of the same line.
 */

import { constants } from "node:buffer";
import type { RecordRules } from "./match-scan.js";
import { describeShape, notUtf8, parseRecord, tooLong } from "./records.js";

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
