/**
 * An independent reference for the `Time` rule of timeline entries (docs/semantics.md 2), built on date-fns:
 * parse `yyyy-MM-dd HH:mm:ss` in UTC, check `isValid`, and format back, which refuses every variant date-fns
 * would tolerate (single-digit fields, trailing text, roll-over dates). The project's own reader
 * (`timelineTimeKey`, an allocation-free scanner) must accept exactly what this accepts; a property test
 * holds them together. About 60× slower than the scanner, so it lives here, in the tests only.
 */
import { TZDate, tz } from "@date-fns/tz";
import { format, isValid, parse } from "date-fns";

const FORMAT = "yyyy-MM-dd HH:mm:ss";
const UTC = tz("UTC");
const REFERENCE_DATE = new TZDate(0, "UTC");

/** Whether `text` is a valid timeline `Time`, decided by date-fns (see the module comment). */
export function referenceIsValidTimelineTime(text: unknown): boolean {
  if (typeof text !== "string" || text.length !== FORMAT.length) return false;
  const date = parse(text, FORMAT, REFERENCE_DATE, { in: UTC });
  return isValid(date) && format(date, FORMAT, { in: UTC }) === text;
}
