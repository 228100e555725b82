/**
 * Attack on the packed trigram lists (src/incidents/text/gram-index.ts, corpus-index.ts): hand-packed lists
 * with gaps of one to five varint bytes up to ids just under 2^31; a sparse value array of 2^21 + 8 ids
 * (four-byte gaps) built by `buildTextIndex`; a single value; and every `textIndex.maxBytes` from 0 to past
 * the whole index (lists without their `meta`, without the corpus, no index at all): every answer equals
 * the reference interpreter's (`evaluate`).
 */

import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { buildTextIndex } from "../../src/incidents/text/corpus-index.js";
import { GramIndex } from "../../src/incidents/text/gram-index.js";

/** The varint bytes of `n` (as the builder writes them). */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A one-key index holding `ids` (ascending), packed as the builder packs them. */
function packed(ids: readonly number[]): GramIndex {
  const bytes: number[] = [];
  let previous = -1;
  for (const id of ids) {
    bytes.push(...varint(id - previous));
    previous = id;
  }
  return new GramIndex(
    new Int32Array([0, ids.length]),
    { bytes: new Uint8Array(bytes), starts: new Uint32Array([0, bytes.length]) },
    (ids.at(-1) ?? 0) + 1,
  );
}

describe("packed trigram lists", () => {
  const TABLE: readonly (readonly number[])[] = [
    [0],
    [0, 1, 2],
    [127, 128, 16_383, 16_384, 2_097_151, 2_097_152],
    [268_435_455, 268_435_456],
    [0, 2 ** 31 - 2],
    [2 ** 31 - 2],
    [2 ** 30, 2 ** 31 - 3, 2 ** 31 - 2],
    [1, 2 ** 28 + 1, 2 ** 29 + 7, 2 ** 31 - 2],
  ];
  for (const ids of TABLE) {
    it(`read back: ${ids.join(", ")}`, () => {
      expect([...packed(ids).idsOf(0)]).toEqual(ids);
    });
  }

  it("a sparse array of 2^21 + 8 ids (gaps of four varint bytes) and a single value", () => {
    const n = 2 ** 21 + 8;
    const values: unknown[] = new Array(n);
    const at = [0, 5, 2 ** 14 + 5, 2 ** 21 + 6, n - 1];
    for (const id of at) values[id] = `xyz ${id}`;
    const index = buildTextIndex(values, { remaining: 1 << 30 }, false)!;
    expect(index).not.toBeNull();
    const key = [...Array(1 << 18).keys()].find((k) => index.grams.length(k) === at.length)!;
    expect([...index.grams.idsOf(key)]).toEqual(at);
    const one = buildTextIndex(["abcd"], { remaining: 1 << 30 }, false)!;
    const keys = [...Array(1 << 18).keys()].filter((k) => one.grams.length(k) > 0);
    expect(keys.length).toBe(2);
    for (const k of keys) expect([...one.grams.idsOf(k)]).toEqual([0]);
  });
});

describe("textIndex.maxBytes from 0 to past the whole index: answers as evaluate", () => {
  const words = ["phish", "Login", "VPN", "dns", "ſ", "é", "K", "mail"];
  const incidents = Array.from({ length: 3000 }, (_, i) => ({
    IncidentId: i,
    Title:
      i % 101 === 0 ? null : `${words[i % 8]}${i % 3 === 0 ? "\n" : " "}${words[(i * 5) % 8]} ${i * 7919}`,
  }));
  const queries: Record<string, unknown>[] = [
    { Title: { $regex: "phish" } },
    { Title: { $regex: "PHISH", $options: "i" } },
    { Title: { $regex: "^VPN" } },
    { Title: { $regex: "1$" } },
    { Title: { $regex: "login dns", $options: "i" } },
    { Title: { $regex: "ſ" } },
    { Title: { $regex: "k", $options: "i" } },
    { Title: { $regex: "mail .*79" } },
    { Title: { $regex: "phish.*Login" } },
    { Title: { $regex: "VPN.*dns" } },
    { Title: { $regex: "VPN.*dns", $options: "s" } },
  ];
  const expected = queries.map((q) => {
    const c = parseSearchConditions(q);
    return incidents.filter((x) => evaluate(c, x)).map((x) => x.IncidentId);
  });

  it("every bound answers the same", () => {
    const whole = new IncidentSet(incidents, { maxDictionary: 10 });
    for (const q of queries) whole.count(q);
    const full = whole.footprint().textIndexBytes;
    expect(full).toBeGreaterThan(0);
    const seen = new Set<number>();
    for (let step = 0; step <= 40; step++) {
      const maxBytes = Math.round((full * 1.2 * step) / 40);
      const set = new IncidentSet(incidents, { maxDictionary: 10, textIndex: { maxBytes } });
      queries.forEach((q, k) => {
        expect(
          set.findAll(q).map((x) => x.IncidentId),
          `${maxBytes} ${JSON.stringify(q)}`,
        ).toEqual(expected[k]);
      });
      const held = set.footprint().textIndexBytes;
      expect(held).toBeLessThanOrEqual(maxBytes);
      seen.add(held);
    }
    // The sweep went through no index, some partial indexes (no meta, no corpus) and the whole one.
    expect(seen.has(0)).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });

  it("a bound the index fills exactly: what a chain query keeps beside it (its ids of values holding a newline) stays within it", () => {
    const probe = new IncidentSet(incidents, { maxDictionary: 10 });
    probe.count({ Title: { $regex: "phish" } });
    const exact = probe.footprint().textIndexBytes;
    const set = new IncidentSet(incidents, { maxDictionary: 10, textIndex: { maxBytes: exact } });
    expect(set.count({ Title: { $regex: "phish" } })).toBe(expected[0]!.length);
    expect(set.footprint().textIndexBytes).toBe(exact);
    queries.forEach((q, k) => {
      expect(
        set.findAll(q).map((x) => x.IncidentId),
        JSON.stringify(q),
      ).toEqual(expected[k]);
      expect(set.footprint().textIndexBytes, JSON.stringify(q)).toBeLessThanOrEqual(exact);
    });
  });
});
