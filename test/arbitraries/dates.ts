import fc from "fast-check";

/**
 * The parts of a near-valid date and time, `[year, month, day, hour, minute, second]`, each drawn from a
 * range that straddles its limits (year 0 to `maxYear`, month 0–13, day 0–32, hour 0–25, minute and second
 * 0–61), for the readers of ISO dates (`conditions/dates.ts`) and timeline times (`timeline/sort.ts`).
 */
export function nearDateTimePartsArb(
  maxYear: number,
): fc.Arbitrary<[number, number, number, number, number, number]> {
  return fc.tuple(
    fc.integer({ min: 0, max: maxYear }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 61 }),
  );
}

/** `n` in decimal, zero-padded to `width` digits. */
export const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
