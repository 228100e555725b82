import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nearDateTimePartsArb, pad } from "../../test/arbitraries/dates.js";
import { fcOptions } from "../../test/support/fc.js";
import {
  dateFieldMs,
  formatIsoUtc,
  isoUtcBytesMs,
  isoUtcMs,
  MAX_ISO_EPOCH_MS,
  MIN_ISO_EPOCH_MS,
  parseIsoUtc,
  recordDateValue,
} from "./dates.js";

/**
 * An independent reference for the hand-written scanner: the regex-and-`Date` reader the project started
 * with, kept here so that the scanner is checked against a second implementation of docs/semantics.md 1.4.
 */
function referenceParseIsoUtc(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?Z$/.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = m[7] === undefined ? 0 : Number(m[7]);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

describe("isoUtcMs", () => {
  const digit = fc.constantFrom(..."0123456789");
  const nearIso = fc
    .tuple(nearDateTimePartsArb(9999), fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }))
    .map(([[y, mo, d, h, mi, s], ms]) => {
      const fraction = ms === undefined ? "" : `.${pad(ms, 3)}`;
      return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${fraction}Z`;
    });
  /** A near-ISO string with one character replaced, to probe every separator and digit position. */
  const mutated = fc
    .tuple(
      nearIso,
      fc.nat(),
      fc.oneof(digit, fc.constantFrom("-", ":", "T", "Z", ".", " ", "a", "\u0660", "+")),
    )
    .map(([text, at, ch]) => {
      const i = at % text.length;
      return text.slice(0, i) + ch + text.slice(i + 1);
    });

  it("reads exactly what parseIsoUtc reads (NaN for its undefined)", () => {
    fc.assert(
      fc.property(fc.oneof(nearIso, mutated, fc.string({ maxLength: 26 })), (text) => {
        const expected = referenceParseIsoUtc(text);
        expect(isoUtcMs(text)).toBe(expected === undefined ? Number.NaN : expected);
      }),
      fcOptions(20_000),
    );
  });

  it("round-trips every instant of years 0000-9999 at whole seconds and milliseconds", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("0000-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59.999Z") }),
        (date) => {
          if (Number.isNaN(date.getTime())) return;
          const iso = date.toISOString();
          expect(isoUtcMs(iso)).toBe(date.getTime());
          expect(isoUtcMs(iso.replace(/\.\d{3}Z$/, "Z"))).toBe(Math.floor(date.getTime() / 1000) * 1000);
        },
      ),
      fcOptions(5000),
    );
  });

  it.each([
    ["2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29)],
    ["2023-02-29T00:00:00Z", Number.NaN],
    ["1900-02-29T00:00:00Z", Number.NaN],
    ["2000-02-29T00:00:00Z", Date.UTC(2000, 1, 29)],
    ["2024-04-31T00:00:00Z", Number.NaN],
    ["2024-01-01T24:00:00Z", Number.NaN],
    ["2024-01-01T00:60:00Z", Number.NaN],
    ["2024-01-01T00:00:60Z", Number.NaN],
    ["2024-01-01T00:00:00.5Z", Number.NaN],
    ["2024-01-01T00:00:00.500Z", Date.UTC(2024, 0, 1, 0, 0, 0, 500)],
    ["2024-01-01T00:00:00+00:00", Number.NaN],
    ["2024-01-01 00:00:00Z", Number.NaN],
    ["0000-01-01T00:00:00Z", -62167219200000],
  ])("%s → %d", (text, expected) => {
    expect(isoUtcMs(text)).toBe(expected);
  });

  it("dateFieldMs agrees with recordDateValue on any value", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything({ withDate: true }), fc.date({ noInvalidDate: false })), (value) => {
        const expected = recordDateValue(value);
        expect(dateFieldMs(value)).toBe(expected === undefined ? Number.NaN : expected);
      }),
      fcOptions(2000),
    );
  });
});

describe("parseIsoUtc", () => {
  it("is isoUtcMs with undefined for NaN", () => {
    expect(parseIsoUtc("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoUtc("2024-02-30T00:00:00Z")).toBeUndefined();
  });
});

describe("isoUtcBytesMs: isoUtcMs of the same text, read from its bytes", () => {
  const encoder = new TextEncoder();
  const same = (text: string) => {
    const bytes = encoder.encode(`xx${text}yy`);
    expect(Object.is(isoUtcBytesMs(bytes, 2, bytes.length - 2), isoUtcMs(text))).toBe(true);
  };
  it.each([
    "2024-03-01T12:00:00Z",
    "2024-03-01T12:00:00.250Z",
    "2024-02-29T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2024-02-30T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-03-01T24:00:00Z",
    "2024-03-01T12:60:00Z",
    "2024-03-01 12:00:00Z",
    "2024-03-01T12:00:00",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "2024-03-01T12:00:00.25Z",
    "+024-03-01T12:00:00Z",
  ])("%s", same);
  it("on random ASCII text of the form's lengths, and on formatted instants (fast-check)", () => {
    const chars = fc.constantFrom(..."0123456789-T:.Z+ x");
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: chars, minLength: 20, maxLength: 20 }),
          fc.string({ unit: chars, minLength: 24, maxLength: 24 }),
          fc.integer({ min: MIN_ISO_EPOCH_MS, max: MAX_ISO_EPOCH_MS }).map((ms) => formatIsoUtc(ms)),
        ),
        same,
      ),
      fcOptions(2000),
    );
  });
});
