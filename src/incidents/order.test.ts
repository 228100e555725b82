import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import {
  CreationOrder,
  compareOrderKeys,
  isBefore,
  mergeRows,
  mergeSortRows,
  orderKeyOf,
  sortRows,
} from "./order.js";

describe("orderKeyOf / compareOrderKeys (docs/semantics.md 1.9)", () => {
  const sorted = (incidents: object[]) =>
    [...incidents].sort((a, b) => compareOrderKeys(orderKeyOf(a), orderKeyOf(b)));

  it("orders by CreatedUtcTime, then IncidentId; undated and id-less last", () => {
    const a = { IncidentId: 2, CreatedUtcTime: "2024-01-02T00:00:00Z" };
    const b = { IncidentId: 1, CreatedUtcTime: new Date("2024-01-02T00:00:00Z") };
    const c = { IncidentId: 9, CreatedUtcTime: "2024-01-01T00:00:00Z" };
    const undated = { IncidentId: 0 };
    const invalid = { IncidentId: -1, CreatedUtcTime: "2024-02-30T00:00:00Z" };
    const noId = { CreatedUtcTime: "2024-01-02T00:00:00Z" };
    expect(sorted([undated, a, noId, invalid, b, c])).toEqual([c, b, a, noId, invalid, undated]);
  });

  it("reads own properties, data or accessor (docs/semantics.md 1.1 revised); inherited, throwing and hostile count as absent", () => {
    const inherited = Object.create({ CreatedUtcTime: "2024-01-01T00:00:00Z", IncidentId: 1 }) as object;
    expect(orderKeyOf(inherited)).toEqual({ time: Number.POSITIVE_INFINITY, id: Number.POSITIVE_INFINITY });
    const throwing = Object.defineProperty({}, "CreatedUtcTime", {
      get() {
        throw new Error("unreadable");
      },
      enumerable: true,
    });
    expect(orderKeyOf(throwing).time).toBe(Number.POSITIVE_INFINITY);
    const getter = Object.defineProperty({ IncidentId: 3 }, "CreatedUtcTime", {
      get: () => "2024-01-01T00:00:00Z",
      enumerable: true,
    });
    expect(orderKeyOf(getter)).toEqual({ time: Date.parse("2024-01-01T00:00:00Z"), id: 3 });
    expect(orderKeyOf({ CreatedUtcTime: Object.create(Date.prototype) }).time).toBe(Number.POSITIVE_INFINITY);
    const proxy = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error("hostile");
        },
      },
    );
    expect(orderKeyOf(proxy)).toEqual({ time: Number.POSITIVE_INFINITY, id: Number.POSITIVE_INFINITY });
  });

  it("isBefore is strict, so the earlier position wins a tie", () => {
    const key = orderKeyOf({ IncidentId: 1, CreatedUtcTime: "2024-01-01T00:00:00Z" });
    expect(isBefore(key, { ...key })).toBe(false);
    expect(isBefore(key, { ...key, id: 2 })).toBe(true);
  });
});

describe("creation order", () => {
  const keyArb = fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 0, max: 5 }));

  it("sortRows is the stable sort by (time, id, row)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keyArb, keyArb), { maxLength: 200 }), (keys) => {
        const time = Float64Array.from(keys.map(([t]) => t));
        const id = Float64Array.from(keys.map(([, i]) => i));
        const rows = Int32Array.from(keys.map((_, i) => i));
        const expected = [...rows].sort((a, b) => time[a]! - time[b]! || id[a]! - id[b]! || a - b);
        // Infinity - Infinity is NaN: compare explicitly.
        expected.sort((a, b) =>
          time[a] !== time[b]
            ? time[a]! < time[b]!
              ? -1
              : 1
            : id[a] !== id[b]
              ? id[a]! < id[b]!
                ? -1
                : 1
              : a - b,
        );
        expect([...sortRows(rows, time, id)]).toEqual(expected);
      }),
      fcOptions(300),
    );
  });

  it("sortRows of a long list (radix by time, then runs by id) is mergeSortRows's order, row by row", () => {
    // Keys of every kind the radix order must place as `<` does: negative and fractional times, -0 and +0
    // (equal), +Infinity (undated), huge and tiny magnitudes, repeated times (runs sorted by id, then row);
    // NaN sends the list to the merge sort. Rows given in a shuffled order.
    const timeArb = fc.oneof(
      fc.constantFrom(0, -0, Number.POSITIVE_INFINITY, -1, 1, 1.5, -1.5, 1e300, -1e300, 5e-324, 1.7e12),
      fc.integer({ min: -5, max: 5 }).map((k) => 1.7e12 + k * 1000),
      fc.double({ noNaN: true }),
    );
    const idArb = fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 0, max: 3 }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(timeArb, idArb), { minLength: 2048, maxLength: 2600 }),
        fc.nat(),
        fc.boolean(),
        (keys, seed, nan) => {
          const time = Float64Array.from(keys.map(([t]) => t));
          if (nan) time[seed % time.length] = Number.NaN;
          const id = Float64Array.from(keys.map(([, i]) => i));
          const rows = Int32Array.from(keys.map((_, i) => i));
          // A fixed shuffle of the rows (the sort's input need not be ascending).
          for (let i = rows.length - 1, x = seed; i > 0; i--) {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            const j = x % (i + 1);
            [rows[i], rows[j]] = [rows[j]!, rows[i]!];
          }
          expect([...sortRows(rows.slice(), time, id)]).toEqual([...mergeSortRows(rows.slice(), time, id)]);
        },
      ),
      fcOptions(40),
    );
  });

  it("mergeRows merges two sorted runs into the sorted whole", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keyArb, keyArb), { maxLength: 100 }), fc.nat(), (keys, cut) => {
        const time = Float64Array.from(keys.map(([t]) => t));
        const id = Float64Array.from(keys.map(([, i]) => i));
        const all = Int32Array.from(keys.map((_, i) => i));
        const at = keys.length === 0 ? 0 : cut % (keys.length + 1);
        const a = sortRows(all.slice(0, at), time, id);
        const b = sortRows(all.slice(at), time, id);
        expect([...mergeRows(a, b, time, id)]).toEqual([...sortRows(all.slice(), time, id)]);
      }),
      fcOptions(300),
    );
  });
});

describe("CreationOrder.ranksOf", () => {
  it("maps a list of rows to their positions, kept until rows are added, then made again", () => {
    const order = new CreationOrder(4);
    const times = [30, 10, 20, 10];
    times.forEach((ms, row) => {
      order.set(row, ms, row);
    });
    order.update();
    expect([...order.order]).toEqual([1, 3, 2, 0]);
    const postings = Int32Array.from([0, 2, 1, 3, 0]);
    const ranks = order.ranksOf(postings);
    expect([...ranks]).toEqual([3, 2, 0, 1, 3]);
    expect(order.ranksOf(postings)).toBe(ranks); // kept
    const before = order.bytes();
    expect(before).toBeGreaterThanOrEqual(ranks.byteLength);
    // A row added before every other moves them all one position on.
    order.set(4, 5, 4);
    order.update();
    expect([...order.order]).toEqual([4, 1, 3, 2, 0]);
    const again = order.ranksOf(postings);
    expect(again).not.toBe(ranks);
    expect([...again]).toEqual([4, 3, 1, 2, 4]);
  });
});
