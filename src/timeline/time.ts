/**
 * The `Time` of a timeline entry (docs/semantics.md 2): exactly `yyyy-MM-dd HH:mm:ss`, a wall-clock time in the
 * incident's time zone. ONE reader of the rule, an allocation-free scanner, serves validation
 * (`isValidTimelineTime`, `validateTimelineEntries`, the dataset loader) and sorting (`timelineTimeKey`).
 * Its tests hold it to an independent reference built on date-fns (a property test).
 */

/** The format of `Time` (docs/semantics.md 2), in date-fns tokens. */
export const TIMELINE_TIME_FORMAT = "yyyy-MM-dd HH:mm:ss";

/**
 * Reads a `Time` as the number `yyyyMMddHHmmss` (e.g. `20240229235959`), or `undefined` when it is not a
 * valid `yyyy-MM-dd HH:mm:ss` time (docs/semantics.md 2): exactly 19 characters, ASCII digits only, years
 * 0001–9999, real calendar dates (no roll-over: `2024-02-30` and `2023-02-29` are invalid; Gregorian leap
 * years), hours 00–23, minutes and seconds 00–59. No time zone is involved, so the machine's zone and its
 * daylight-saving gaps play no part. Numbers of valid times order exactly as the times do. Allocation-free.
 * @param text - any value; only strings can be valid; never throws
 * @returns the number, or `undefined`
 * @example timelineTimeKey("2024-02-29 23:59:59") //=> 20240229235959
 * @example timelineTimeKey("2024-02-30 10:00:00") //=> undefined
 */
export function timelineTimeKey(text: unknown): number | undefined {
  if (typeof text !== "string" || text.length !== 19) return undefined;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  return ((((year * 100 + month) * 100 + day) * 100 + hour) * 100 + minute) * 100 + second;
}

/**
 * Whether `text` is a valid `Time` (docs/semantics.md 2): the rule of `timelineTimeKey` (exactly
 * `yyyy-MM-dd HH:mm:ss`, a real calendar date, hours 00–23, minutes and seconds 00–59, years 0001–9999).
 * @param text - any value; only strings can be valid
 * @returns true when valid; never throws
 * @example isValidTimelineTime("2024-02-29 23:59:59") //=> true
 * @example isValidTimelineTime("2024-02-30 10:00:00") //=> false
 */
export function isValidTimelineTime(text: unknown): text is string {
  return timelineTimeKey(text) !== undefined;
}

/** The decimal value of `length` ASCII digits at `start`, or -1 when one of them is not a digit. */
function digits(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
