/**
 * The artifact note result of AddNotesToArtifacts (specification 2.5 and 4.3; docs/semantics.md 3.3): the
 * context data item, its local date in the site's time zone, and the one-row HTML table of `result`.
 *
 * Engine code: pure. The note's time is passed in (epoch milliseconds); nothing here reads a clock.
 */

import { TZDate } from "@date-fns/tz";
import { format } from "date-fns/format";
import escapeHtml from "escape-html";

/**
 * The date-fns pattern of `LastModifiedLocalDate`: the specification's `MM/dd/yyyy hh:mm AM/PM`
 * (12-hour clock, two-digit hour, upper-case `AM`/`PM`), e.g. `03/10/2024 01:00 PM`.
 */
export const LOCAL_DATE_PATTERN = "MM/dd/yyyy hh:mm a";

/** The `Result` of a successful note, and the `Status` column of the HTML table. */
export const NOTE_RESULT_SUCCESS = "Successful";

/**
 * One context data item of AddNotesToArtifacts (specification 2.5). Keys are the specification's, spaces
 * included.
 */
export interface ArtifactNoteContextItem {
  /** The artifact's name, as stored. */
  readonly "Artifact Name": string;
  /** The artifact type's label (docs/semantics.md 3.3: the label even when the request gave the integer id). */
  readonly "Artifact Type": string;
  /** The note text, exactly as added. */
  readonly Note: string;
  /** The note's time in the site's time zone, `MM/dd/yyyy hh:mm AM/PM`. */
  readonly LastModifiedLocalDate: string;
  /** `Successful`. */
  readonly Result: string;
}

/** What `buildArtifactNoteResult` needs: the stored note and where it was stored. */
export interface ArtifactNoteInput {
  readonly artifactName: string;
  /** The label of the artifact's type. */
  readonly artifactTypeLabel: string;
  readonly note: string;
  /** When the note was stored, epoch milliseconds (UTC). */
  readonly time: number;
  /** The site's IANA time zone (`Europe/Berlin`); `undefined` means UTC (docs/semantics.md 3.3). */
  readonly timeZone: string | undefined;
}

/** The success part of the AddNotesToArtifacts answer that depends on the note: `result` and the item. */
export interface ArtifactNoteResult {
  /** The HTML table: one header row, one data row (name, type, note, timestamp, status), every value escaped. */
  readonly result: string;
  readonly contextItem: ArtifactNoteContextItem;
}

/**
 * Tells whether a time zone name can be used for `LastModifiedLocalDate`: an IANA zone name known to the
 * runtime's ICU data (`America/New_York`, `UTC`, `Etc/GMT+5`). Never throws.
 * @example isValidTimeZone("Europe/Berlin") //=> true
 * @example isValidTimeZone("Mars/Olympus_Mons") //=> false
 */
export function isValidTimeZone(name: string): boolean {
  if (typeof name !== "string" || name.length === 0 || name.length > 100) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    // TZDate must agree: an invalid zone makes its time NaN, which `format` refuses.
    format(new TZDate(0, name), LOCAL_DATE_PATTERN);
    return true;
  } catch {
    return false;
  }
}

/**
 * Formats an instant as `MM/dd/yyyy hh:mm AM/PM` in a time zone (specification 2.5, docs/semantics.md 3.3).
 * @param time - epoch milliseconds (UTC)
 * @param timeZone - IANA zone name; `undefined` means UTC
 * @returns e.g. `03/10/2024 01:00 PM`
 * @throws {RangeError} when `time` is not a finite instant or `timeZone` is not a valid zone (datasets are
 *   validated with `isValidTimeZone`, so this does not happen for a validated site)
 * @example formatLocalDate(Date.UTC(2024, 2, 10, 7, 30), "Asia/Kolkata") //=> "03/10/2024 01:00 PM"
 */
export function formatLocalDate(time: number, timeZone: string | undefined): string {
  return format(new TZDate(time, timeZone ?? "UTC"), LOCAL_DATE_PATTERN);
}

/** The column headers of the HTML table, in order (specification 4.3: name, type, note, timestamp, status). */
export const NOTE_RESULT_COLUMNS = [
  "Artifact Name",
  "Artifact Type",
  "Note",
  "LastModifiedLocalDate",
  "Status",
] as const;

/**
 * Renders the `result` HTML table: `<table>` with one header row (`<th>`) and one data row (`<td>`).
 * Every value is HTML-escaped (`escape-html`), so a note of `<script>alert(1)</script>` comes back as text.
 * @param item - the context data item whose values fill the data row
 */
export function renderNoteResultTable(item: ArtifactNoteContextItem): string {
  const cells = [
    item["Artifact Name"],
    item["Artifact Type"],
    item.Note,
    item.LastModifiedLocalDate,
    item.Result,
  ];
  const header = NOTE_RESULT_COLUMNS.map((name) => `<th>${escapeHtml(name)}</th>`).join("");
  const data = cells.map((value) => `<td>${escapeHtml(value)}</td>`).join("");
  return `<table><thead><tr>${header}</tr></thead><tbody><tr>${data}</tr></tbody></table>`;
}

/**
 * Builds the note-dependent part of a successful AddNotesToArtifacts answer (specification 2.5, 4.3).
 * @throws {RangeError} as `formatLocalDate`
 * @example
 * buildArtifactNoteResult({ artifactName: "10.0.0.5", artifactTypeLabel: "IP Address", note: "seen",
 *   time: Date.UTC(2024, 0, 2, 15, 4), timeZone: undefined }).contextItem.LastModifiedLocalDate
 * //=> "01/02/2024 03:04 PM"
 */
export function buildArtifactNoteResult(input: ArtifactNoteInput): ArtifactNoteResult {
  const contextItem: ArtifactNoteContextItem = {
    "Artifact Name": input.artifactName,
    "Artifact Type": input.artifactTypeLabel,
    Note: input.note,
    LastModifiedLocalDate: formatLocalDate(input.time, input.timeZone),
    Result: NOTE_RESULT_SUCCESS,
  };
  return { result: renderNoteResultTable(contextItem), contextItem };
}
