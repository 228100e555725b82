/**
 * The one strict reader of ISO-8601 UTC timestamps, shared by the parser (operands), the evaluator and
 * the compiled predicates (record values in catalogue date fields), and the incident set (normalising
 * `CreatedUtcTime`). Pure and allocation-light: it runs once per record in hot loops, so it is a
 * hand-written check rather than a general date library.
 *
 * Format (docs/semantics.md 1.4): `yyyy-MM-ddTHH:mm:ssZ`, optionally `yyyy-MM-ddTHH:mm:ss.SSSZ`.
 */

/** The expected format, as shown in error messages. */
export const ISO_UTC_FORMAT = "yyyy-MM-ddTHH:mm:ssZ";

/**
 * Reads an ISO-8601 UTC timestamp.
 * @param text - e.g. `"2024-03-01T12:00:00Z"` or `"2024-03-01T12:00:00.250Z"`
 * @returns epoch milliseconds, or `undefined` when `text` is not exactly of the format or names an
 *   impossible calendar date or time (`2024-02-30T00:00:00Z`, `…T24:00:00Z`); never throws
 */
export function parseIsoUtc(text: string): number | undefined {
  const ms = isoUtcMs(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Days from 1970-01-01 to a proleptic Gregorian civil date (H. Hinnant's algorithm), any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Two ASCII digits at `i` as a number, or -1 when either is not a digit. */
function digits2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Reads an ISO-8601 UTC timestamp `yyyy-MM-ddTHH:mm:ssZ` or `yyyy-MM-ddTHH:mm:ss.SSSZ` with a hand-written
 * scanner, without a regex or a `Date` allocation, because it runs once per record in hot loops (compiled
 * predicates, incident-set columns). `parseIsoUtc` is the same reader with `undefined` for `NaN`.
 * @param text - the record value
 * @returns epoch milliseconds, or `NaN` when `text` is not exactly of the format or names an impossible
 *   date or time (docs/semantics.md 1.4); never throws
 * @example isoUtcMs("2024-03-01T12:00:00Z") //=> 1709294400000
 */
export function isoUtcMs(text: string): number {
  const n = text.length;
  if (n !== 20 && n !== 24) return Number.NaN;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(n - 1) !== 90 // Z
  ) {
    return Number.NaN;
  }
  let ms = 0;
  if (n === 24) {
    if (text.charCodeAt(19) !== 46) return Number.NaN; // .
    const a = digits2(text, 20);
    const c = text.charCodeAt(22) - 48;
    if (a < 0 || c < 0 || c > 9) return Number.NaN;
    ms = a * 10 + c;
  }
  return instantOf(
    digits2(text, 0),
    digits2(text, 2),
    digits2(text, 5),
    digits2(text, 8),
    digits2(text, 11),
    digits2(text, 14),
    digits2(text, 17),
    ms,
  );
}

/** Two ASCII digits at `b[i]` as a number, or -1 when either is not a digit. */
function byteDigits2(b: Uint8Array, i: number): number {
  const x = b[i]! - 48;
  const y = b[i + 1]! - 48;
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

/**
 * True when the bytes from `start` hold the separators of `YYYY-MM-DDTHH:MM:SS` (`-` at 4 and 7, `T` at 10,
 * `:` at 13 and 16) and the byte at `zAt` is `Z` (ASCII codes; the digits are not checked here).
 * @param b - the bytes
 * @param start - the offset of the year's first digit
 * @param zAt - the offset of the `Z` (after the seconds, or after the milliseconds)
 */
export function hasIsoSeparators(b: Uint8Array, start: number, zAt: number): boolean {
  return (
    b[start + 4] === 45 &&
    b[start + 7] === 45 &&
    b[start + 10] === 84 &&
    b[start + 13] === 58 &&
    b[start + 16] === 58 &&
    b[zAt] === 90
  );
}

/**
 * `isoUtcMs` of the text whose UTF-8 bytes are `b[start, end)`, without building the string (the byte
 * reader of NDJSON lines; an ASCII byte is its character's code).
 * @returns epoch milliseconds, or `NaN` exactly where `isoUtcMs` of that text is `NaN`; never throws
 */
export function isoUtcBytesMs(b: Uint8Array, start: number, end: number): number {
  const n = end - start;
  if (n !== 20 && n !== 24) return Number.NaN;
  if (!hasIsoSeparators(b, start, end - 1)) return Number.NaN;
  let ms = 0;
  if (n === 24) {
    if (b[start + 19] !== 46) return Number.NaN;
    const a = byteDigits2(b, start + 20);
    const c = b[start + 22]! - 48;
    if (a < 0 || c < 0 || c > 9) return Number.NaN;
    ms = a * 10 + c;
  }
  return instantOf(
    byteDigits2(b, start),
    byteDigits2(b, start + 2),
    byteDigits2(b, start + 5),
    byteDigits2(b, start + 8),
    byteDigits2(b, start + 11),
    byteDigits2(b, start + 14),
    byteDigits2(b, start + 17),
    ms,
  );
}

/** The instant of the read parts of a timestamp (-1: not two digits), or `NaN` when they name none. */
function instantOf(
  hi: number,
  lo: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return Number.NaN;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return Number.NaN;
  const year = hi * 100 + lo;
  const leap = month === 2 && (year % 4 === 0 && year % 100 !== 0 ? true : year % 400 === 0);
  if (day > DAYS_IN_MONTH[month]! + (leap ? 1 : 0)) return Number.NaN;
  return (
    daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms
  );
}

/**
 * A record value in a catalogue `date` field as epoch ms (docs/semantics.md 1.5): an ISO-8601 UTC string or a
 * valid JS `Date`; `NaN` for anything else. Same answers as `recordDateValue`, `NaN` for its `undefined`.
 * Never throws (a forged `Date` is not a date).
 */
export function dateFieldMs(value: unknown): number {
  if (typeof value === "string") return isoUtcMs(value);
  if (typeof value !== "object" || value === null) return Number.NaN;
  const ms = recordDateValue(value);
  return ms === undefined ? Number.NaN : ms;
}

/** The smallest and largest epoch milliseconds whose ISO form has a four-digit year (0000–9999). */
export const MIN_ISO_EPOCH_MS = -62167219200000;
export const MAX_ISO_EPOCH_MS = 253402300799999;

const dateTime = Date.prototype.getTime;

/**
 * The value of a record field in a catalogue date field, as epoch milliseconds (docs/semantics.md 1.5): a valid
 * JS `Date`, or a string of the ISO-8601 UTC format. Anything else is not a date. A `Date` is read through
 * the intrinsic `Date.prototype.getTime` (an own or overridden `getTime` is never called); an object that
 * only looks like a `Date` (`Object.create(Date.prototype)`, a `Date` behind a Proxy) is not a date.
 * @returns epoch ms, or `undefined` when the value is not a date; never throws
 */
export function recordDateValue(value: unknown): number | undefined {
  if (typeof value === "string") return parseIsoUtc(value);
  try {
    if (!(value instanceof Date)) return undefined;
    const ms = dateTime.call(value);
    return Number.isNaN(ms) ? undefined : ms;
  } catch {
    return undefined;
  }
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
