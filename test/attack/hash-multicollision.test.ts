/**
 * Attack on the hash index of a compact set (`CompactHashIndex`, src/incidents/record-store.ts): its hash is
 * not seeded, so values can be crafted that agree in all 32 bits of it. Strings: FNV-1a states collide for
 * a birthday search of short strings, and `k` such pairs concatenated give 2^k colliding strings
 * (test/support/fnv-multicollision.ts). Numbers: for any high word of a double there is a low word that
 * gives any hash. A lookup verifies each row whose hash matches by reading its value back from its record;
 * before the bound, every lookup of such a hash read every colliding row (1,023 reads for one match among
 * 1,023 colliding rows, 1,023 for none). A hash shared by more than `MAX_HASH_RUN` rows now has its rows
 * grouped by value by the first lookup that reaches it (one read per such row, once), so every other lookup
 * reads at most `MAX_HASH_RUN` rows that do not match (SECURITY.md, "Crafted values cost a bounded number of
 * steps each").
 * Steps are counted (reads of a row's value, record reads), never timed; answers are held to `HashIndex` and
 * to `evaluate`.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import type { SearchConditionsInput } from "../../src/conditions/print.js";
import { HashIndex } from "../../src/incidents/columns.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import {
  CompactHashIndex,
  CompactRecords,
  hashKey,
  hashKeyAscii,
  MAX_HASH_RUN,
} from "../../src/incidents/record-store.js";
import { multicollision } from "../support/fnv-multicollision.js";

const enc = new TextEncoder();

// 1,024 strings with one hash: the first 1,023 are kept, the last is looked up and absent.
const CRAFTED = multicollision(10, "EXT-");
const ABSENT = CRAFTED[CRAFTED.length - 1]!;

/** `count` doubles in [2, 4) (none an integer) whose `hashKey` is `hashKey(target)`. */
function collidingDoubles(count: number, target: number): number[] {
  // hashKey of a double: finish(imul(lo ^ 0x27d4eb2f, 0x85ebca6b) ^ imul(hi, 0xc2b2ae35)); finish is a
  // bijection, so the inner word of `target` is matched by solving for `lo` (0x85ebca6b is odd: invertible).
  let inverse = 1;
  for (let i = 0; i < 5; i++) inverse = Math.imul(inverse, 2 - Math.imul(0x85ebca6b, inverse));
  const words = new Uint32Array(2);
  const view = new Float64Array(words.buffer);
  view[0] = target;
  const inner = Math.imul(words[0]! ^ 0x27d4eb2f, 0x85ebca6b) ^ Math.imul(words[1]!, 0xc2b2ae35);
  const out: number[] = [];
  for (let j = 1; out.length < count; j++) {
    const hi = 0x40000000 + j * 97;
    words[1] = hi;
    words[0] = Math.imul(inner ^ Math.imul(hi, 0xc2b2ae35), inverse) ^ 0x27d4eb2f;
    const value = view[0]!;
    if (!Number.isInteger(value) && hashKey(value) === hashKey(target)) out.push(value);
  }
  return out;
}

const DOUBLES = collidingDoubles(1_024, 2.5);

describe("the crafted values", () => {
  it("are distinct and share one hash, as strings, as ASCII bytes and as doubles", () => {
    expect(new Set(CRAFTED).size).toBe(1_024);
    const h = hashKey(CRAFTED[0]!);
    for (const text of CRAFTED) {
      expect(hashKey(text)).toBe(h);
      const b = enc.encode(text);
      expect(hashKeyAscii(b, 0, b.length)).toBe(h);
    }
    expect(new Set(DOUBLES).size).toBe(1_024);
    for (const x of [...DOUBLES, 2.5]) expect(hashKey(x)).toBe(hashKey(2.5));
  });
});

/** Reads of row values (the index's `read`) by one lookup of each probe, for `n` colliding rows among others. */
function readsPerLookup(family: readonly unknown[], absent: unknown, n: number, pending: number) {
  const values: unknown[] = [];
  for (let i = 0; i < n; i++) values.push(family[i], `other-${i}`, i);
  let reads = 0;
  const index = new CompactHashIndex("f", (row) => {
    reads++;
    return values[row];
  });
  const plain = new HashIndex("f");
  const put = (row: number) => {
    const value = values[row];
    if (typeof value === "string" && row % 2 === 0) {
      const b = enc.encode(value);
      index.setAscii(row, b, 0, b.length);
    } else index.set(row, value);
    plain.set(row, value);
  };
  // All but `pending` rows are in the buckets (as after `fromNdjson`); the rest are added after.
  const built = values.length - 3 * pending;
  for (let row = 0; row < built; row++) put(row);
  index.prepare();
  const buildReads = reads;
  for (let row = built; row < values.length; row++) put(row);
  // The first lookup of the crowded hash groups its rows: one read each (those added after the build are
  // kept by value, and not read).
  reads = 0;
  expect(index.rowsOf(absent)).toEqual([]);
  const firstReads = reads;
  expect(firstReads).toBeLessThanOrEqual(built / 3 + 1);
  for (const probe of [family[0], family[n - 1], absent, family[n >>> 1], "other-3", 7]) {
    reads = 0;
    expect(index.rowsOf(probe)).toEqual(plain.rowsOf(probe));
    const matches = plain.rowsOf(probe).length;
    expect(reads).toBeLessThanOrEqual(MAX_HASH_RUN + matches);
    reads = 0;
    const probed = index.probe(probe);
    expect(reads).toBe(0);
    expect(probed.length).toBeLessThanOrEqual(MAX_HASH_RUN + matches);
  }
  return { buildReads, firstReads };
}

describe("CompactHashIndex against full-hash multicollisions", () => {
  it("reads at most MAX_HASH_RUN rows that do not match per lookup, however many rows share the hash", () => {
    for (const [family, absent] of [
      [CRAFTED, ABSENT],
      [DOUBLES, 2.5],
    ] as const) {
      for (const n of [15, 255, 1_023]) {
        const { buildReads, firstReads } = readsPerLookup(family, absent, n, 0);
        // The build reads no row; the first lookup each row of the crowded hash once, and no other row.
        expect(buildReads).toBe(0);
        expect(firstReads).toBe(n);
      }
      // Rows added after the index was built (`add`) are looked up exactly, never by hash alone.
      readsPerLookup(family, absent, 1_023, 300);
    }
    expect(MAX_HASH_RUN).toBeLessThanOrEqual(16);
  });

  it("once a lookup grouped a crowded hash, a distinct count counts its values", () => {
    const index = new CompactHashIndex("f", (row) => CRAFTED[row]);
    CRAFTED.slice(0, 100).forEach((text, row) => {
      index.set(row, text);
    });
    expect(index.rowsOf(CRAFTED[7])).toEqual([7]);
    expect(index.size).toBe(100);
  });
});

describe("a compact set of lines whose hash-indexed fields are crafted", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const records = Array.from({ length: 4_000 }, (_, i) => ({
    IncidentId: i + 1,
    Number: `N-${i}`,
    ExternalKey: i < 1_023 ? CRAFTED[i]! : `EXT-plain-${i}`,
    Ref: i % 4 === 0 ? DOUBLES[i % 1_000]! : i,
    Severity: i % 3 === 0 ? "High" : "Low",
    CreatedUtcTime: `2024-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
  }));
  const lines = `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
  const options = { hashFields: ["Number", "ExternalKey", "IncidentId", "Ref"] };

  it("reads a bounded number of records per matching row, and answers as evaluate", async () => {
    const spies = [
      vi.spyOn(CompactRecords.prototype, "field"),
      vi.spyOn(CompactRecords.prototype, "get"),
      vi.spyOn(CompactRecords.prototype, "peek"),
    ];
    const readsNow = () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
    const set = await IncidentSet.fromNdjson([enc.encode(lines)], options);
    // The build reads no record; the first lookup of each crowded hash reads its rows once (1,023
    // strings; 1,000 doubles), and no lookup reads them again.
    expect(readsNow()).toBe(0);
    let grouping = 1_023 + 1_000;
    const queries: SearchConditionsInput[] = [
      { ExternalKey: CRAFTED[0] },
      { ExternalKey: CRAFTED[1_022] },
      { ExternalKey: ABSENT },
      { ExternalKey: { $in: [CRAFTED[5], ABSENT, CRAFTED[6]] } },
      { ExternalKey: CRAFTED[9], Severity: "High" },
      { $or: [{ ExternalKey: CRAFTED[12] }, { Number: "N-17" }] },
      { Ref: DOUBLES[4] },
      { Ref: 2.5 },
      { Ref: { $in: [DOUBLES[8], DOUBLES[12], 2.5] } },
    ];
    for (const conditions of queries) {
      const condition = parseSearchConditions(conditions);
      // In the order of incidents: creation time, then id (docs/semantics.md 1.9).
      const expected = records
        .filter((r) => evaluate(condition, r))
        .sort((a, b) => a.CreatedUtcTime.localeCompare(b.CreatedUtcTime) || a.IncidentId - b.IncidentId);
      const before = readsNow();
      expect(set.count(conditions)).toBe(expected.length);
      expect(set.findAll(conditions)).toEqual(expected);
      expect(set.findFirst(conditions) ?? null).toEqual(expected[0] ?? null);
      // Three queries, each reading its matching rows (count, findAll's records, findFirst's check)
      // and at most MAX_HASH_RUN others per operand.
      const operands = 3;
      const reads = readsNow() - before;
      const bound = 3 * (operands * MAX_HASH_RUN + 3 * expected.length);
      expect(reads, JSON.stringify(conditions)).toBeLessThanOrEqual(bound + grouping);
      // What a query read beyond its bound was the one-time grouping.
      grouping -= Math.max(0, reads - bound);
    }
    // `$ne` / `$nin` read the rows of the operand's hash too.
    for (const conditions of [{ ExternalKey: { $ne: CRAFTED[3] } }, { Ref: { $nin: [DOUBLES[0], 2.5] } }]) {
      const condition = parseSearchConditions(conditions);
      expect(set.count(conditions)).toBe(records.filter((r) => evaluate(condition, r)).length);
    }
  });
});
