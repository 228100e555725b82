/**
 * Attack on the engine's tables keyed by numbers: the hash index of an in-memory set (`HashIndex`, for
 * `IncidentId`, `Number`, `ExternalKey`) and the value tables of its columns (`ValueIds`, for a label or
 * text field holding numbers). V8 hashes a number key without a seed (an int32 by a fixed integer mix, any
 * other double by a fixed mix of its bits), so numbers crafted to share the low bits of that hash land in
 * one bucket of a `Map` and each insert walks all those before it (test/support/v8-number-hash.ts). Before
 * the fix, building a set of 6,000 such values took 15 to 53 times as long as building one of 6,000 plain ones
 * (28× for `IncidentId` int32s, 53× for doubles, 15–20× for a column's values, at a load average of 5 on two
 * cores; 12–16× at 4,000), quadratic in the number of crafted values (SECURITY.md, "Other tables checked").
 *
 * The builds are timed, which the attack tests otherwise never do: before the fix the cost was inside V8's
 * `Map`, whose steps cannot be counted from outside, and a test of the public path must fail on that code.
 * So each check is a ratio of two timings in one process, crafted against plain keys of the same count and
 * shape, each the median of several rounds run alternately (a busy machine slows both alike), with a
 * generous bound: at most 4 times, where the old code gave 15 to 53 times.
 */

import { describe, expect, it } from "vitest";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { collidingDoubles, collidingInts, v8DoubleHash, v8IntHash } from "../support/v8-number-hash.js";

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
  const cases: [string, string, readonly number[], readonly number[], object][] = [
    ["IncidentId, int32s (the hash index)", "IncidentId", CRAFTED_INTS, PLAIN_INTS, {}],
    ["IncidentId, doubles (the hash index)", "IncidentId", CRAFTED_DOUBLES, PLAIN_DOUBLES, {}],
    ["Severity, int32s (a label column's values)", "Severity", CRAFTED_INTS, PLAIN_INTS, {}],
    [
      "Title, doubles (a text column's values)",
      "Title",
      CRAFTED_DOUBLES,
      PLAIN_DOUBLES,
      { maxDictionary: 16 },
    ],
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

  it("builds from lines in time linear in the crafted values: Severity, int32s (fromNdjson)", async () => {
    const lines = (keys: readonly number[]) =>
      enc.encode(
        `${keys.map((key, i) => JSON.stringify({ IncidentId: i + 1, CreatedUtcTime: CREATED, Severity: key })).join("\n")}\n`,
      );
    const craftedLines = lines(CRAFTED_INTS);
    const plainLines = lines(PLAIN_INTS);
    const { ratio, ...ms } = await pairedRatio(
      () => IncidentSet.fromNdjson([craftedLines]),
      () => IncidentSet.fromNdjson([plainLines]),
    );
    console.log(
      `fromNdjson Severity: crafted/plain ${ratio.toFixed(2)} (${ms.crafted.toFixed(1)} / ${ms.plain.toFixed(1)} ms)`,
    );
    expect(ratio).toBeLessThanOrEqual(MAX_RATIO);
  });
});
