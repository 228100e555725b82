import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { bitsToRows } from "./bitset.js";
import {
  CODE_COMPLEX,
  CODE_MISSING,
  CODE_NULL,
  DATE_COMPLEX,
  DATE_MISSING,
  DATE_NULL,
  DATE_OTHER,
  DATE_VALUE,
  DateColumn,
  DictionaryColumn,
  FIRST_VALUE_CODE,
  HashIndex,
  MAX_CODE_BITSETS,
  ownDataValue,
} from "./columns.js";

describe("DictionaryColumn", () => {
  it("encodes missing, null, complex and scalar values, with a histogram", () => {
    const column = new DictionaryColumn("Severity", 2, 10);
    const values = [undefined, null, ["High"], { a: 1 }, "High", "Low", "High", 1, true, "1"];
    values.forEach((value, row) => {
      column.set(row, value, values.length);
    });
    expect([...column.codes.slice(0, values.length)]).toEqual([
      CODE_MISSING,
      CODE_NULL,
      CODE_COMPLEX,
      CODE_COMPLEX,
      FIRST_VALUE_CODE,
      FIRST_VALUE_CODE + 1,
      FIRST_VALUE_CODE,
      FIRST_VALUE_CODE + 2,
      FIRST_VALUE_CODE + 3,
      FIRST_VALUE_CODE + 4,
    ]);
    expect(column.counts).toEqual([1, 1, 2, 2, 1, 1, 1, 1]);
    const { offsets, rows } = column.rowPostings(values.length);
    expect([...rows.subarray(offsets[FIRST_VALUE_CODE]!, offsets[FIRST_VALUE_CODE + 1]!)]).toEqual([4, 6]);
  });

  it("widens its codes past 253 values and drops itself past the dictionary limit", () => {
    const wide = new DictionaryColumn("CustomField2", 4, 1000);
    for (let row = 0; row < 600; row++) wide.set(row, `v${row}`, 600);
    expect(wide.codes).toBeInstanceOf(Uint16Array);
    expect(wide.values[FIRST_VALUE_CODE + 599]).toBe("v599");
    expect(wide.codes[599]).toBe(FIRST_VALUE_CODE + 599);
    const dropped = new DictionaryColumn("Title", 4, 3);
    for (let row = 0; row < 5; row++) dropped.set(row, `t${row}`, 5);
    expect(dropped.dropped).toBe(true);
    // What a dropped column keeps: its codes and values go, an empty table of value ids (128 words) stays.
    expect(dropped.codes.length).toBe(0);
    expect(dropped.bytes()).toBeLessThanOrEqual(512);
  });

  it("keeps postings in the order given, per code", () => {
    const column = new DictionaryColumn("Status", 4, 10);
    ["Open", "Closed", "Open", "Open"].forEach((value, row) => {
      column.set(row, value, 4);
    });
    const { offsets, rows } = column.postings(Int32Array.from([3, 1, 0, 2]), 4);
    expect([...rows.subarray(offsets[FIRST_VALUE_CODE]!, offsets[FIRST_VALUE_CODE + 1]!)]).toEqual([3, 0, 2]);
  });
});

describe("DictionaryColumn.codeBitsets", () => {
  it("sets row i in the bitset of its code only, and is rebuilt after an add", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom("a", "b", "c", null, undefined), fc.integer({ min: 0, max: 5 })), {
          maxLength: 100,
        }),
        (values) => {
          const column = new DictionaryColumn("F", 4, 4096);
          for (const [row, value] of values.entries()) column.set(row, value, row + 1);
          const size = values.length;
          const bits = column.codeBitsets(size);
          expect(bits).toBeDefined();
          expect(bits!.length).toBe(column.values.length);
          for (let code = 0; code < bits!.length; code++) {
            const expected = values.flatMap((_, row) => (column.codes[row] === code ? [row] : []));
            expect([...bitsToRows(bits![code]!)]).toEqual(expected);
          }
          column.set(size, "z", size + 1);
          const after = column.codeBitsets(size + 1)!;
          expect([...bitsToRows(after[column.codeOf("z")!]!)]).toEqual([size]);
        },
      ),
      fcOptions(200),
    );
  });

  it("keeps none for a column of more codes than MAX_CODE_BITSETS", () => {
    const column = new DictionaryColumn("F", 4, 4096);
    for (let row = 0; row < MAX_CODE_BITSETS; row++) column.set(row, `v${row}`, row + 1);
    expect(column.codeBitsets(MAX_CODE_BITSETS)).toBeUndefined();
  });
});

describe("DateColumn", () => {
  it.each([
    [undefined, DATE_MISSING, Number.NaN],
    [null, DATE_NULL, Number.NaN],
    ["2024-01-01T00:00:00Z", DATE_VALUE, Date.UTC(2024, 0, 1)],
    [new Date("2024-01-01T00:00:00.500Z"), DATE_VALUE, Date.UTC(2024, 0, 1, 0, 0, 0, 500)],
    ["2024-02-30T00:00:00Z", DATE_OTHER, Number.NaN],
    [new Date(Number.NaN), DATE_OTHER, Number.NaN],
    [1704067200000, DATE_OTHER, Number.NaN],
    [{ $date: "2024-01-01T00:00:00Z" }, DATE_OTHER, Number.NaN],
    [["2024-01-01T00:00:00Z"], DATE_COMPLEX, Number.NaN],
    // A forged Date is no date (docs/semantics.md 1.5: it matches no date condition and never throws).
    [Object.create(Date.prototype), DATE_OTHER, Number.NaN],
  ])("%o → state %i", (value, state, ms) => {
    const column = new DateColumn("CreatedUtcTime", 1);
    column.set(0, value, 1);
    expect(column.states[0]).toBe(state);
    expect(column.ms[0]).toBe(ms);
  });
});

describe("HashIndex", () => {
  it("maps scalar values to rows, keeps array rows apart, ignores the rest", () => {
    const index = new HashIndex("Number");
    const values = ["a", "b", "a", 1, ["a"], null, undefined, { a: 1 }, "1"];
    values.forEach((value, row) => {
      index.set(row, value);
    });
    expect(index.rowsOf("a")).toEqual([0, 2]);
    expect(index.rowsOf(1)).toEqual([3]);
    expect(index.rowsOf("1")).toEqual([8]);
    expect(index.rowsOf("zzz")).toEqual([]);
    expect(index.arrayRows).toEqual([4]);
  });
});

describe("ownDataValue", () => {
  it("reads own properties, data or accessor (docs/semantics.md 1.1 revised)", () => {
    const record = Object.create({ inherited: 1 }) as Record<string, unknown>;
    record.own = 2;
    record.undef = undefined;
    let calls = 0;
    Object.defineProperty(record, "getter", {
      get() {
        calls++;
        return 3;
      },
    });
    Object.defineProperty(record, "throwing", {
      get() {
        throw new Error("no");
      },
    });
    Object.defineProperty(record, "setterOnly", { set() {} });
    expect(ownDataValue(record, "own")).toBe(2);
    expect(ownDataValue(record, "inherited")).toBeUndefined();
    expect(ownDataValue(record, "getter")).toBe(3);
    expect(calls).toBe(1);
    expect(ownDataValue(record, "throwing")).toBeUndefined();
    expect(ownDataValue(record, "setterOnly")).toBeUndefined();
    expect(ownDataValue(record, "undef")).toBeUndefined();
    expect(ownDataValue(record, "toString")).toBeUndefined();
  });
});
