/**
 * The record stores and the compact hash index: `CompactHashIndex` answers `rowsOf`, `arrayRows`
 * and `size` exactly as `HashIndex` does (Map key equality: `"1"` is not `1`, `0` is `-0`), before and after
 * its buckets are built, with rows added after a build, and when hashes collide; `CompactRecords` returns
 * fresh objects and reads single fields as `JSON.parse` does.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { HashIndex } from "./columns.js";
import { IncidentSet } from "./incident-set.js";
import { CompactHashIndex, CompactRecords, hashKey, type InOrder } from "./record-store.js";

/** Both indexes over the same values. */
function both(values: readonly unknown[]) {
  const reference = new HashIndex("K");
  const compact = new CompactHashIndex("K", (row) => values[row]);
  values.forEach((value, row) => {
    reference.set(row, value);
    compact.set(row, value);
  });
  return { reference, compact };
}

const probes: unknown[] = ["1", 1, 0, -0, true, false, "", "a", 2.5, null, undefined, [1], "é", Number.NaN];

/** Two distinct keys `<prefix><i>` with the same hash (`hashKey`), the first such pair. */
function collidingKeys(prefix: string): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; i <= 3_000_000; i++) {
    const key = `${prefix}${i}`;
    const h = hashKey(key) & 0xfffff;
    const other = seen.get(h);
    if (other !== undefined && hashKey(other) === hashKey(key)) return [other, key];
    seen.set(h, key);
  }
  throw new Error("no collision found");
}

describe("CompactHashIndex", () => {
  it("answers as HashIndex on scalars of every type, arrays and missing values", () => {
    const values = ["1", 1, -0, true, "a", "a", null, undefined, [1], ["a"], { a: 1 }, "é", 2.5, false, 1];
    const { reference, compact } = both(values);
    for (const probe of probes) expect(compact.rowsOf(probe)).toEqual(reference.rowsOf(probe));
    expect(compact.arrayRows).toEqual(reference.arrayRows);
    expect(compact.size).toBe(reference.size);
  });

  it("keeps answering as rows are added after its buckets are built", () => {
    const values: unknown[] = [];
    const compact = new CompactHashIndex("K", (row) => values[row]);
    const reference = new HashIndex("K");
    for (let row = 0; row < 5000; row++) {
      const value = row % 7 === 0 ? row % 13 : `v${row % 997}`;
      values.push(value);
      compact.set(row, value);
      reference.set(row, value);
      if (row === 100) compact.prepare();
      if (row % 499 === 0) {
        for (const probe of [3, "v3", "v996", 0, "missing"]) {
          expect(compact.rowsOf(probe)).toEqual(reference.rowsOf(probe));
        }
      }
    }
    expect(compact.size).toBe(reference.size);
  });

  it("verifies each candidate, so that colliding hashes never answer for each other", () => {
    const pair = collidingKeys("k");
    const { reference, compact } = both([pair[0], pair[1], pair[0]]);
    expect(compact.rowsOf(pair[0])).toEqual([0, 2]);
    expect(compact.rowsOf(pair[1])).toEqual([1]);
    expect(compact.rowsOf(pair[1])).toEqual(reference.rowsOf(pair[1]));
    expect(compact.size).toBe(1); // distinct hashes
    // `probe` reads no record: a superset, each row once; `holds` tells them apart.
    expect([...compact.probe(pair[1])].sort()).toEqual([0, 1, 2]);
    expect([0, 1, 2].map((row) => compact.holds(row, pair[1]))).toEqual([false, true, false]);
  });

  it("answers a set's queries exactly when keys collide (probed rows are checked)", async () => {
    const pair = collidingKeys("n");
    const rows = [pair[0], pair[1], pair[0], "x"].map((key, k) => ({
      IncidentId: k + 1,
      Number: key,
      Severity: k === 2 ? "High" : "Low",
      CreatedUtcTime: `2024-01-0${4 - k}T00:00:00Z`,
    }));
    const set = await IncidentSet.fromNdjson(rows.map((row) => `${JSON.stringify(row)}\n`));
    const objects = new IncidentSet(rows);
    const queries = [
      { Number: pair[0] },
      { Number: pair[1] },
      { Number: { $in: [pair[0], pair[1]] } },
      { Number: { $in: [pair[1], "x"] } },
      { Number: pair[0], Severity: "High" },
      { Number: { $nin: [pair[1]] } },
    ];
    for (const query of queries) {
      expect(set.count(query)).toBe(objects.count(query));
      expect(set.findAll(query)).toEqual(objects.findAll(query));
      expect(set.findFirst(query)).toEqual(objects.findFirst(query));
    }
    expect(set.count({ Number: pair[1] })).toBe(1);
    expect(set.explain({ Number: pair[0] }).columns).toBe("hash Number (2 hits)");
  });

  it("agrees with HashIndex on generated columns", () => {
    const value = fc.oneof(
      fc.constantFrom("a", "b", "1", 1, 0, -0, true, false, null, undefined, "", 2.5),
      fc.string({ maxLength: 3 }),
      fc.integer({ min: -3, max: 3 }),
      fc.array(fc.constantFrom("a", 1), { maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 60 }), fc.array(value, { maxLength: 8 }), (values, asked) => {
        const { reference, compact } = both(values);
        for (const probe of [...asked, ...values]) {
          expect(compact.rowsOf(probe)).toEqual(reference.rowsOf(probe));
        }
        expect(compact.arrayRows).toEqual(reference.arrayRows);
      }),
      fcOptions(300),
    );
  });

  it("buckets every row by its hash over several radix passes, rows ascending within a hash", () => {
    // 200,000 rows: 18 bucket bits, three passes of the sort; keys repeat, so buckets hold runs of rows.
    const values = Array.from({ length: 200_000 }, (_, row) => `k-${(row * 7919) % 5003}`);
    const { reference, compact } = both(values);
    compact.prepare();
    for (const key of ["k-0", "k-1", "k-4999", "k-5002", "k-5003", "absent"]) {
      const expected = values.flatMap((value, row) =>
        (hashKey(value) || 1) === (hashKey(key) || 1) ? [row] : [],
      );
      expect(compact.probe(key)).toEqual(expected);
      expect(compact.rowsOf(key)).toEqual(reference.rowsOf(key));
    }
    expect(compact.size).toBe(reference.size);
  });
});

describe("CompactRecords", () => {
  it("keeps lines and JSON forms, returns fresh objects, and reads single fields", () => {
    const records = new CompactRecords<Record<string, unknown>>();
    const line = new TextEncoder().encode('xx{"a":1,"b":"é","c":[1]}yy');
    records.pushBytes(line, 2, line.length - 2);
    records.push({ a: 2, d: new Date(0) });
    records.push({ a: 3 }, new TextEncoder().encode('\uFEFF{"Sev\\u0065rity":"High"}'));
    expect(records.length).toBe(3);
    expect(records.get(0)).toEqual({ a: 1, b: "é", c: [1] });
    expect(records.get(0)).not.toBe(records.get(0));
    expect(records.get(1)).toEqual({ a: 2, d: "1970-01-01T00:00:00.000Z" });
    expect([records.field(0, "b"), records.field(0, "c"), records.field(0, "z")]).toEqual([
      "é",
      [1],
      undefined,
    ]);
    // A line the byte reader leaves to JSON.parse (a byte order mark, an escaped key).
    expect(records.field(2, "Severity")).toBe("High");
    expect(records.bytes()).toBeGreaterThan(0);
  });

  it("hands a peeked record to the next get of its row once, and parses afresh otherwise", () => {
    const records = new CompactRecords<{ a: number }>();
    records.push({ a: 1 });
    records.push({ a: 2 });
    const peeked = records.peek(0);
    const first = records.get(0);
    expect(first).toBe(peeked);
    const second = records.get(0);
    expect(second).toEqual({ a: 1 });
    expect(second).not.toBe(first);
    records.peek(1);
    expect(records.get(0)).not.toBe(second);
    const other = records.peek(1);
    expect(records.get(1)).toBe(other);
    expect(records.get(1)).not.toBe(other);
  });

  it("grows its chunks, and gives a line longer than a chunk a chunk of its own", () => {
    const records = new CompactRecords<{ t: string }>();
    const long = "x".repeat(9 * 1024 * 1024);
    for (let i = 0; i < 200; i++) records.push({ t: `${i}`.repeat(200) });
    records.push({ t: long });
    records.push({ t: "after" });
    expect(records.get(150)!.t).toBe("150".repeat(200));
    expect(records.get(200)!.t.length).toBe(long.length);
    expect(records.get(201)!.t).toBe("after");
  });
});

describe("CompactRecords.trim", () => {
  it("gives back the unused end of the last chunk, keeps every record, and takes records after it", () => {
    const records = new CompactRecords<{ i: number; t: string }>();
    const line = (i: number) => new TextEncoder().encode(JSON.stringify({ i, t: "y".repeat(1000) }));
    const lines = Array.from({ length: 40 * 1024 }, (_, i) => line(i)); // about 41 MiB
    let used = 0;
    for (const bytes of lines) {
      records.pushBytes(bytes, 0, bytes.length);
      used += bytes.length;
    }
    records.flush();
    const offsets = 10 * 64 * 1024; // the row offsets' arrays (grown to 64Ki rows): 10 bytes a row
    // Chunks of 64 KiB doubling: 32 MiB less 64 KiB of them full, then one of 32 MiB holding the rest.
    expect(records.bytes()).toBe(64 * 1024 * 1024 - 64 * 1024 + offsets);
    records.trim();
    // What is left: the lines, and the end of each full chunk that the next line did not fit (< 1 KiB each).
    const trimmed = records.bytes();
    expect(trimmed).toBeGreaterThanOrEqual(used + offsets);
    expect(trimmed).toBeLessThan(used + offsets + 10 * 1024);
    records.trim(); // a second trim changes nothing
    expect(records.bytes()).toBe(trimmed);
    for (const i of [0, 1, 20_000, 40 * 1024 - 1]) expect(records.get(i)).toEqual({ i, t: "y".repeat(1000) });
    records.push({ i: -1, t: "after" });
    expect(records.get(40 * 1024)).toEqual({ i: -1, t: "after" });
    expect(records.get(40 * 1024 - 1).i).toBe(40 * 1024 - 1);
  });

  it("is how fromNdjson ends: a set's record bytes are its lines, not its last chunk's capacity", async () => {
    const lines = Array.from(
      { length: 40 * 1024 },
      (_, i) => `${JSON.stringify({ IncidentId: i, t: "y".repeat(1000) })}\n`,
    );
    const text = lines.join("");
    const set = await IncidentSet.fromNdjson([text]);
    const offsets = 10 * 64 * 1024;
    const { recordBytes } = set.footprint();
    expect(recordBytes).toBeGreaterThanOrEqual(text.length - lines.length + offsets);
    expect(recordBytes).toBeLessThan(text.length + offsets + 10 * 1024);
    expect(set.findFirst({ IncidentId: 40 * 1024 - 1 })).toEqual({
      IncidentId: 40 * 1024 - 1,
      t: "y".repeat(1000),
    });
  });
});

describe("getAllInOrder", () => {
  /** A bitset over `size` positions with `positions` set. */
  const bitsOf = (size: number, positions: readonly number[]) => {
    const bits = new Uint32Array((size + 31) >>> 5);
    for (const p of positions) bits[p >>> 5]! |= 1 << (p & 31);
    return bits;
  };
  /** A permutation of `0 … size - 1` from a seed (a creation order). */
  const shuffled = (size: number, seed: number) => {
    const order = Int32Array.from({ length: size }, (_, j) => j);
    let s = seed;
    for (let j = size - 1; j > 0; j--) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const k = s % (j + 1);
      [order[j], order[k]] = [order[k]!, order[j]!];
    }
    return order;
  };

  it("reads the rows a bitset of positions selects, in position order, small and large answers alike, on both stores", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer(),
        fc.array(fc.nat(), { maxLength: 300 }),
        (size, seed, picks) => {
          const order = shuffled(size, seed);
          const positions = [...new Set(picks.map((p) => p % size))].sort((a, b) => a - b);
          const records = Array.from({ length: size }, (_, row) => ({ row }));
          const store = new IncidentSet(records, { hashFields: [] });
          const arrays = (store as unknown as { records: { getAllInOrder: GetAllInOrder } }).records;
          const compact = new CompactRecords<{ row: number }>();
          for (const record of records) compact.push(record);
          const bits = bitsOf(size, positions);
          const expected = positions.map((p) => ({ row: order[p]! }));
          const got = arrays.getAllInOrder(inOrder(bits, positions.length, order));
          expect(got).toEqual(expected);
          // The caller's objects from the array store, fresh ones from the compact store.
          for (const [k, record] of got.entries()) expect(record).toBe(records[expected[k]!.row]);
          expect(compact.getAllInOrder(inOrder(bits, positions.length, order))).toEqual(expected);
        },
      ),
      fcOptions(300),
    );
  });

  it("drops its copy in creation order when the order changes, and reads the added rows", () => {
    const records = Array.from({ length: 64 }, (_, row) => ({ row }));
    const set = new IncidentSet(records, { hashFields: [] });
    const store = (set as unknown as { records: { getAllInOrder: GetAllInOrder; push(r: object): void } })
      .records;
    const first = shuffled(64, 7);
    const all = bitsOf(
      64,
      Array.from({ length: 64 }, (_, j) => j),
    );
    // A large answer builds the copy for `first`…
    expect(store.getAllInOrder(inOrder(all, 64, first)).map((r) => r.row)).toEqual([...first]);
    // …which another order (same length, another array) must not reuse,
    const second = shuffled(64, 8);
    expect(store.getAllInOrder(inOrder(all, 64, second)).map((r) => r.row)).toEqual([...second]);
    // nor an order over more rows after an add.
    store.push({ row: 64 });
    const third = Int32Array.from([64, ...shuffled(64, 9)]);
    const every = bitsOf(
      65,
      Array.from({ length: 65 }, (_, j) => j),
    );
    expect(store.getAllInOrder(inOrder(every, 65, third)).map((r) => r.row)).toEqual([...third]);
    // A small answer (under 1/16 of the rows) reads the order directly.
    expect(store.getAllInOrder(inOrder(bitsOf(65, [0, 40]), 2, third)).map((r) => r.row)).toEqual([
      third[0],
      third[40],
    ]);
  });

  it("reports the bytes of its copy in creation order, and drops a copy whose order changed", async () => {
    const records = Array.from({ length: 64 }, (_, row) => ({
      row,
      Severity: row % 8 === 0 ? "Low" : "High",
    }));
    const set = new IncidentSet(records, { hashFields: [], dictionaryFields: ["Severity"] });
    expect(set.footprint().orderedRecordBytes).toBe(0);
    expect(set.findAll({ Severity: "Low" })).toHaveLength(8); // an eighth of the rows: the copy is made
    expect(set.footprint().orderedRecordBytes).toBe(64 * 8);
    set.add({ row: 64, Severity: "High" });
    expect(set.footprint().orderedRecordBytes).toBe(64 * 8); // held until the next findAll
    const store = (set as unknown as { records: { getAllInOrder: GetAllInOrder } }).records;
    const order = Int32Array.from({ length: 65 }, (_, j) => j);
    // A small answer over the new order drops the old copy and makes none.
    expect(store.getAllInOrder(inOrder(bitsOf(65, [3]), 1, order)).map((r) => r.row)).toEqual([3]);
    expect(set.footprint().orderedRecordBytes).toBe(0);
    expect(set.findAll({ Severity: "High" })).toHaveLength(57);
    expect(set.footprint().orderedRecordBytes).toBe(65 * 8);
    // A compact set keeps no copy.
    const compact = await IncidentSet.fromNdjson(
      records.map((r) => `${JSON.stringify(r)}\n`),
      {
        dictionaryFields: ["Severity"],
      },
    );
    expect(compact.findAll({ Severity: "High" })).toHaveLength(56);
    expect(compact.footprint().orderedRecordBytes).toBe(0);
  });
});

type GetAllInOrder = (rows: InOrder) => { row: number }[];

/** `PositionedRows` over `order`: the positions set in `positions`, `count` of them, and the order's ranks. */
function inOrder(positions: Uint32Array, count: number, order: Int32Array): InOrder {
  const rank = new Int32Array(order.length);
  order.forEach((row, j) => {
    rank[row] = j;
  });
  return { positions, count, order, rank };
}
