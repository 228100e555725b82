/**
 * Attack on the value tables of the columns (`ValueIds`, src/incidents/columns.ts): strings crafted so that
 * their hashes share their low bits (the hash is not seeded) all start their search at one slot. A lookup
 * visits at most `MAX_VALUE_PROBES` slots and then asks an overflow map, so such values cost a bounded number
 * of steps each, not one per crafted value kept (SECURITY.md, "Crafted values cost a bounded number of steps
 * each"). Steps are counted (`ValueIds.probes`), never timed; the answers are held to a `Map`.
 */

import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { hashAscii, MAX_VALUE_PROBES, ValueIds } from "../../src/incidents/columns.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";

const enc = new TextEncoder();

/** `count` strings whose hashes agree in their low `bits` bits (all zero): one slot for every table size up to 2^bits slots. */
function colliding(count: number, bits: number): string[] {
  const mask = (1 << bits) - 1;
  const out: string[] = [];
  const b = new Uint8Array(32);
  for (let i = 0; out.length < count; i++) {
    const text = `Cat-${i.toString(36)}`;
    const n = enc.encodeInto(text, b).written;
    if ((hashAscii(b, 0, n) & mask) === 0) out.push(text);
  }
  return out;
}

// 1,500 values keep the table at most 4,096 slots (half full at most): 12 bits put them all on one slot.
const CRAFTED = colliding(1_500, 12);

describe("value tables against crafted hashes", () => {
  it("bounds the slots a lookup visits, and answers as a Map", () => {
    const values: string[] = [];
    const ids = new ValueIds(values, true);
    const reference = new Map<string, number>();
    const lookups = { count: 0 };
    const byBytes = (text: string): number => {
      const b = enc.encode(`"${text}"`);
      lookups.count++;
      return ids.getAscii(b, 1, b.length - 1);
    };
    CRAFTED.forEach((text, k) => {
      // By bytes (missed, then entered as the bytes' string), or by the string, in turn.
      lookups.count++;
      expect(k % 2 === 0 ? byBytes(text) : (ids.get(text) ?? -1)).toBe(-1);
      const id = values.length;
      values.push(text);
      if (k % 2 === 0) ids.setMissed(text, id);
      else ids.set(text, id);
      reference.set(text, id);
    });
    expect(ids.size).toBe(CRAFTED.length);
    for (const [text, id] of reference) {
      lookups.count += 1;
      expect(ids.get(text)).toBe(id);
      expect(byBytes(text)).toBe(id);
    }
    for (const absent of ["Cat-absent", CRAFTED[0]!.toUpperCase(), `${CRAFTED[1]}x`]) {
      lookups.count++;
      expect(ids.get(absent)).toBeUndefined();
      expect(byBytes(absent)).toBe(-1);
    }
    // Without the bound a lookup here walks the whole cluster: about 750 slots on average, 1,500 at most.
    expect(ids.probes).toBeLessThanOrEqual(lookups.count * MAX_VALUE_PROBES);
    expect(MAX_VALUE_PROBES).toBeLessThanOrEqual(64);
  });

  it("a set built from lines whose labels are crafted counts and finds as one built from records", async () => {
    const records = Array.from({ length: 30_000 }, (_, i) => ({
      IncidentId: i + 1,
      Category: CRAFTED[(i * 7919) % CRAFTED.length]!,
      Title: CRAFTED[(i * 104_729) % CRAFTED.length]!,
      CreatedUtcTime: "2024-01-01T00:00:00Z",
    }));
    const lines = `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
    const compact = await IncidentSet.fromNdjson([enc.encode(lines)]);
    const plain = new IncidentSet(records);
    for (const value of [CRAFTED[0]!, CRAFTED[777]!, CRAFTED[1_499]!, "Cat-absent"]) {
      for (const conditions of [
        { Category: value },
        { Title: value },
        { Category: { $in: [value, CRAFTED[5]!] } },
      ]) {
        expect(compact.count(conditions)).toBe(plain.count(conditions));
        const condition = parseSearchConditions(conditions);
        expect(compact.count(conditions)).toBe(records.filter((r) => evaluate(condition, r)).length);
        expect(compact.findFirst(conditions)).toEqual(plain.findFirst(conditions));
      }
    }
  });
});
