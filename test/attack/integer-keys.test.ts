/**
 * Attack on the engine's tables keyed by numbers: the hash index of an in-memory set (`HashIndex`, for
 * `IncidentId`, `Number`, `ExternalKey`) and the value tables of its columns (`ValueIds`, for a label or
 * text field holding numbers). V8 hashes a number key without a seed (an int32 by a fixed integer mix, any
 * other double by a fixed mix of its bits), so numbers crafted to share the low bits of that hash land in
 * one bucket of a `Map` and each insert walks all those before it (test/support/v8-number-hash.ts). Before
 * the fix, building a set of 6,000 such values took 15 to 53 times as long as building one of 6,000 plain
 * ones (two runs at a load average of 5 to 7 on two cores: `IncidentId` int32s 24–28×, doubles 16–53×, a
 * column's values 15–34×; 12–16× at 4,000), quadratic in the number of crafted values (SECURITY.md, "Tables
 * keyed by numbers are hashed with a secret").
 *
 * The builds are timed, which the attack tests otherwise never do: before the fix the cost was inside V8's
 * `Map`, whose steps cannot be counted from outside, and a test of the public path must fail on that code.
 * So each check is a ratio of two timings in one process, crafted against plain keys of the same count and
 * shape, each the median of several rounds run alternately (a busy machine slows both alike), with a
 * generous bound: at most 4 times, where the old code gave 15 to 53 times.
 *
 * A compact set's rows added after its build (`add`, kept by value until a rebuild) are timed the same way
 * (9.7× before the fix).
 *
 * The tables that now keep numbers (`NumberKeys`, under `ScalarMap`, src/incidents/number-keys.ts) hash them
 * with a secret drawn per table, and count the slots they visit: those are asserted by count, for the
 * crafted numbers and for plainly structured ones, next to keys crafted against a secret the test knows,
 * which the same count catches (so the count can fail).
 */

import { describe, expect, it } from "vitest";
import { HashIndex, ValueIds } from "../../src/incidents/columns.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { NumberKeys, ScalarMap } from "../../src/incidents/number-keys.js";
import {
  collidingDoubles,
  collidingInts,
  inverse32,
  unshiftXor32,
  v8DoubleHash,
  v8IntHash,
} from "../support/v8-number-hash.js";

const enc = new TextEncoder();

/** Crafted keys per set: enough that a quadratic build stands far above the linear one. */
const N = 6_000;
const CRAFTED_INTS = collidingInts(N);
const CRAFTED_DOUBLES = collidingDoubles(N);
// Plain keys of the same kinds: distinct, spread, unremarkable.
const PLAIN_INTS = Array.from({ length: N }, (_, i) => Math.imul(i + 1, 0x9e3779b1) >>> 1);
const PLAIN_DOUBLES = Array.from({ length: N }, (_, i) => (i + 1) * 1.000_001e10 + 0.5);

/** The bound on crafted / plain build time (the old code: 15 to 53). */
const MAX_RATIO = 4;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >>> 1]!;

/**
 * Median time of `crafted` over median time of `plain`, each run `rounds` times, alternately (which goes
 * first alternates too), after one warm-up run of each.
 */
async function pairedRatio(
  crafted: () => unknown,
  plain: () => unknown,
  rounds = 7,
): Promise<{ ratio: number; crafted: number; plain: number }> {
  const time = async (f: () => unknown): Promise<number> => {
    const start = performance.now();
    await f();
    return performance.now() - start;
  };
  await time(crafted);
  await time(plain);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(await time(crafted));
      b.push(await time(plain));
    } else {
      b.push(await time(plain));
      a.push(await time(crafted));
    }
  }
  return { ratio: median(a) / median(b), crafted: median(a), plain: median(b) };
}

const CREATED = "2024-01-01T00:00:00Z";

describe("the crafted numbers", () => {
  it("are distinct and share the low 16 bits of V8's hash, as int32s and as doubles", () => {
    expect(new Set(CRAFTED_INTS).size).toBe(N);
    expect(new Set(CRAFTED_DOUBLES).size).toBe(N);
    const low = v8IntHash(CRAFTED_INTS[0]!) & 0xffff;
    for (const k of CRAFTED_INTS) {
      expect(Number.isInteger(k) && k >= 0 && k <= 0x7fffffff).toBe(true);
      expect(v8IntHash(k) & 0xffff).toBe(low);
    }
    for (const x of CRAFTED_DOUBLES) {
      expect(Number.isFinite(x) && (x | 0) !== x).toBe(true);
      expect(v8DoubleHash(x) & 0xffff).toBe(low);
      // They survive JSON: a line can carry them.
      expect(JSON.parse(JSON.stringify(x))).toBe(x);
    }
  });
});

describe("an in-memory set built from crafted numbers", () => {
  // `Ref` is no catalogue field, so numbers are valid operands of it; as a label field it keeps a column.
  const label = { dictionaryFields: ["Ref"], maxDictionary: 8_192 };
  const text = { dictionaryFields: ["Ref"], maxDictionary: 16 };
  const cases: [string, string, readonly number[], readonly number[], object][] = [
    ["IncidentId, int32s (the hash index)", "IncidentId", CRAFTED_INTS, PLAIN_INTS, {}],
    ["IncidentId, doubles (the hash index)", "IncidentId", CRAFTED_DOUBLES, PLAIN_DOUBLES, {}],
    ["Ref, int32s (a label column's values)", "Ref", CRAFTED_INTS, PLAIN_INTS, label],
    ["Ref, doubles (a text column's values)", "Ref", CRAFTED_DOUBLES, PLAIN_DOUBLES, text],
  ];
  for (const [name, field, crafted, plain, options] of cases) {
    it(`builds in time linear in the crafted values: ${name}`, async () => {
      const records = (keys: readonly number[]) =>
        keys.map((key, i) => ({ IncidentId: i + 1, CreatedUtcTime: CREATED, [field]: key }));
      const craftedRecords = records(crafted);
      const plainRecords = records(plain);
      const { ratio, ...ms } = await pairedRatio(
        () => new IncidentSet(craftedRecords, options),
        () => new IncidentSet(plainRecords, options),
      );
      console.log(
        `${name}: crafted/plain ${ratio.toFixed(2)} (${ms.crafted.toFixed(1)} / ${ms.plain.toFixed(1)} ms)`,
      );
      expect(ratio).toBeLessThanOrEqual(MAX_RATIO);
      // And it answers: each crafted value finds its row.
      const set = new IncidentSet(craftedRecords, options);
      for (const i of [0, 1, N >>> 1, N - 1]) {
        expect(set.findFirst({ [field]: crafted[i]! })).toBe(craftedRecords[i]);
        expect(set.count({ [field]: crafted[i]! })).toBe(1);
      }
    });
  }

  it("builds from lines in time linear in the crafted values: Ref, int32s (fromNdjson)", async () => {
    const records = (keys: readonly number[]) =>
      keys.map((key, i) => ({ IncidentId: i + 1, CreatedUtcTime: CREATED, Ref: key }));
    const lines = (keys: readonly number[]) =>
      enc.encode(
        `${records(keys)
          .map((r) => JSON.stringify(r))
          .join("\n")}\n`,
      );
    const craftedLines = lines(CRAFTED_INTS);
    const plainLines = lines(PLAIN_INTS);
    const { ratio, ...ms } = await pairedRatio(
      () => IncidentSet.fromNdjson([craftedLines], label),
      () => IncidentSet.fromNdjson([plainLines], label),
    );
    console.log(
      `fromNdjson Ref: crafted/plain ${ratio.toFixed(2)} (${ms.crafted.toFixed(1)} / ${ms.plain.toFixed(1)} ms)`,
    );
    expect(ratio).toBeLessThanOrEqual(MAX_RATIO);
    const set = await IncidentSet.fromNdjson([craftedLines], label);
    const expected = records(CRAFTED_INTS);
    for (const i of [0, N - 1]) expect(set.findFirst({ Ref: CRAFTED_INTS[i]! })).toEqual(expected[i]);
  });
});

/**
 * `count` int32 keys whose `NumberKeys` hash under the known secret `[seed, mulA]` has its top 14 bits all
 * equal: one first slot in every table of up to 2^14 slots. (What an attacker could do who knew the secret.)
 */
function craftedAgainst(secret: readonly number[], count: number): number[] {
  const [seed, mulA] = [secret[0]! | 0, secret[1]! | 1];
  const out: number[] = [];
  for (let j = 1; out.length < count; j++) {
    // The finalizer's output: top 14 bits fixed, the rest j; undone step by step.
    let h = (0x2a5 << 18) | j;
    h = unshiftXor32(h, 16);
    h = Math.imul(h, inverse32(0xc2b2ae35));
    h = unshiftXor32(h, 13);
    h = Math.imul(h, inverse32(0x85ebca6b));
    h = unshiftXor32(h, 16);
    out.push(Math.imul(h, inverse32(mulA)) ^ seed);
  }
  return out;
}

/** Slots visited per operation: `keys` set, then each looked up, then each of `absent` looked up. */
function probesPerOperation(table: NumberKeys, keys: readonly number[], absent: readonly number[]): number {
  let wrong = 0;
  keys.forEach((key, id) => {
    if (table.idOrSet(key, id) !== id) wrong++;
  });
  keys.forEach((key, id) => {
    if (table.get(key) !== id) wrong++;
  });
  for (const key of absent) if (table.get(key) !== -1) wrong++;
  expect(wrong).toBe(0);
  expect(table.size).toBe(keys.length);
  return table.probes / (2 * keys.length + absent.length);
}

describe("a compact set given crafted numbers after its build", () => {
  it("adds in time linear in the crafted values: IncidentId, int32s (rows kept by value until a rebuild)", async () => {
    // The hash index of a compact set keeps the rows added after its build by value until a lookup rebuilds
    // it (`CompactHashIndex`, "pending"): that table was a `Map`.
    const first = enc.encode(`${JSON.stringify({ IncidentId: 0, CreatedUtcTime: CREATED })}\n`);
    const added = (keys: readonly number[]) =>
      keys.map((key) => ({ IncidentId: key, CreatedUtcTime: CREATED }));
    const craftedRecords = added(CRAFTED_INTS);
    const plainRecords = added(PLAIN_INTS);
    const build = async (records: readonly object[]) => {
      const set = await IncidentSet.fromNdjson<object>([first]);
      for (const record of records) set.add(record);
      return set;
    };
    const { ratio, ...ms } = await pairedRatio(
      () => build(craftedRecords),
      () => build(plainRecords),
    );
    console.log(
      `compact add IncidentId: crafted/plain ${ratio.toFixed(2)} (${ms.crafted.toFixed(1)} / ${ms.plain.toFixed(1)} ms)`,
    );
    expect(ratio).toBeLessThanOrEqual(MAX_RATIO);
    const set = await build(craftedRecords);
    for (const i of [0, N >>> 1, N - 1])
      expect(set.findFirst({ IncidentId: CRAFTED_INTS[i]! })).toEqual(craftedRecords[i]);
  });
});

describe("NumberKeys against crafted numbers (slots counted)", () => {
  // Linear probing at most half full: about 1.6 slots per operation on average over these operations, for
  // any keys the secret was not known to; 2.5 leaves room for an unlucky draw of the secret (the worst of
  // 300 draws per family below was 1.65, the mean 1.59).
  const BOUND = 2.5;
  const more = collidingInts(2 * N).slice(N);
  const moreDoubles = collidingDoubles(2 * N).slice(N);
  const families: [string, readonly number[], readonly number[]][] = [
    ["int32s crafted against V8", CRAFTED_INTS, more],
    ["doubles crafted against V8", CRAFTED_DOUBLES, moreDoubles],
    ["consecutive integers", PLAIN_INTS.map((_, i) => i + 1), PLAIN_INTS.map((_, i) => -i - 1)],
    ["a stride of 2^16", PLAIN_INTS.map((_, i) => i * 65_536), PLAIN_INTS.map((_, i) => i * 65_536 + 1)],
    [
      "integers beyond 2^32",
      PLAIN_INTS.map((_, i) => 2 ** 32 + i * 2 ** 20),
      PLAIN_INTS.map((_, i) => 2 ** 33 + i + 0.5),
    ],
    ["halves", PLAIN_INTS.map((_, i) => i + 0.5), PLAIN_INTS.map((_, i) => i + 0.25)],
  ];
  for (const [name, keys, absent] of families) {
    it(`visits a bounded number of slots per operation: ${name}`, () => {
      for (let draw = 0; draw < 5; draw++) {
        expect(probesPerOperation(new NumberKeys(), keys, absent)).toBeLessThanOrEqual(BOUND);
      }
    });
  }

  it("the count catches keys crafted against a known secret (so it can fail)", () => {
    const secret = [0x1234_5678, 0x2545_f491, 0x9e37_79b9 | 0, 0x7feb_352d];
    const known = craftedAgainst(secret, N);
    const absent = collidingInts(N);
    expect(new Set(known).size).toBe(N);
    // All in one cluster: thousands of slots per operation under the secret they were crafted against…
    expect(probesPerOperation(new NumberKeys(secret), known, absent)).toBeGreaterThan(1_000);
    // …and an ordinary count under any other.
    expect(probesPerOperation(new NumberKeys(), known, absent)).toBeLessThanOrEqual(BOUND);
  });
});

describe("number keys keep Map's equality (SameValueZero)", () => {
  const keys: unknown[] = [
    0,
    -0,
    Number.NaN,
    1,
    -1,
    "1",
    "0",
    true,
    false,
    0.5,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 53,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    ...CRAFTED_INTS.slice(0, 50),
    ...CRAFTED_DOUBLES.slice(0, 50),
  ];
  const probes = [...keys, 2, "NaN", Number.NaN * 0, 1 + Number.EPSILON, -(2 ** 53), null, undefined];

  it("ScalarMap answers as a Map, size and order of values included", () => {
    const map = new ScalarMap<number>();
    const reference = new Map<unknown, number>();
    keys.forEach((key, i) => {
      map.set(key, i);
      reference.set(key, i);
    });
    expect(map.size).toBe(reference.size);
    for (const key of probes) expect(map.get(key), String(key)).toBe(reference.get(key));
    // Numbers first, then the others, each in insertion order (what `CompactHashIndex` counts by).
    const numbersFirst = [...reference].sort(
      ([a], [b]) => Number(typeof a !== "number") - Number(typeof b !== "number"),
    );
    expect([...map.values()]).toEqual(numbersFirst.map(([, v]) => v));
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get(0)).toBeUndefined();
  });

  it("HashIndex and ValueIds answer as a Map", () => {
    const index = new HashIndex("f");
    const values: unknown[] = [];
    const ids = new ValueIds(values);
    const rows = new Map<unknown, number[]>();
    const idOf = new Map<unknown, number>();
    keys.forEach((key, row) => {
      index.set(row, key);
      index.set(keys.length + row, key);
      const list = rows.get(key) ?? [];
      list.push(row, keys.length + row);
      rows.set(key, list);
      if (ids.get(key) === undefined) {
        ids.set(key, values.length);
        idOf.set(key, values.length);
        values.push(key);
      }
    });
    expect(index.size).toBe(rows.size);
    expect(ids.size).toBe(idOf.size);
    for (const key of probes) {
      expect(index.rowsOf(key), String(key)).toEqual(rows.get(key) ?? []);
      expect(ids.get(key), String(key)).toBe(idOf.get(key));
    }
  });
});
