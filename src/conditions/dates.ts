/**
 * The one strict reader of ISO-8601 UTC timestamps, shared by the parser (operands), the evaluator and
 * the compiled predicates (record values in catalogue date fields), and the incident set (normalising
 * `CreatedUtcTime`). Pure and allocation-light: it runs once per record in hot loops, so it is a
 * hand-written check rather than a general date library.
 *
 * Format (DECISIONS.md 1.4): `yyyy-MM-ddTHH:mm:ssZ`, optionally `yyyy-MM-ddTHH:mm:ss.SSSZ`.
 */

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?Z$/;

/** The expected format, as shown in error messages. */
export const ISO_UTC_FORMAT = "yyyy-MM-ddTHH:mm:ssZ";

/**
 * Reads an ISO-8601 UTC timestamp.
 * @param text - e.g. `"2024-03-01T12:00:00Z"` or `"2024-03-01T12:00:00.250Z"`
 * @returns epoch milliseconds, or `undefined` when `text` is not exactly of the format or names an
 *   impossible calendar date or time (`2024-02-30T00:00:00Z`, `…T24:00:00Z`); never throws
 */
export function parseIsoUtc(text: string): number | undefined {
  if (text.length < 20 || text.length > 24) return undefined;
  const m = ISO_UTC.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The smallest and largest epoch milliseconds whose ISO form has a four-digit year (0000–9999). */
export const MIN_ISO_EPOCH_MS = -62167219200000;
export const MAX_ISO_EPOCH_MS = 253402300799999;

/**
 * The value of a record field in a catalogue date field, as epoch milliseconds (DECISIONS.md 1.5): a valid
 * JS `Date`, or a string of the ISO-8601 UTC format. Anything else is not a date.
 * @returns epoch ms, or `undefined` when the value is not a date; never throws
 */
export function recordDateValue(value: unknown): number | undefined {
  if (typeof value === "string") return parseIsoUtc(value);
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/**
 * Formats epoch milliseconds in the canonical form of a `$date` operand: `yyyy-MM-ddTHH:mm:ssZ`, with
 * `.SSS` only when the milliseconds are not zero.
 * @throws {RangeError} when `ms` is outside `MIN_ISO_EPOCH_MS`…`MAX_ISO_EPOCH_MS`
 */
export function formatIsoUtc(ms: number): string {
  if (!(ms >= MIN_ISO_EPOCH_MS && ms <= MAX_ISO_EPOCH_MS)) {
    throw new RangeError(`${ms} is outside the years 0000-9999.`);
  }
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}
