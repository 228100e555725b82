/**
 * Attack on the memory of shaped lines (src/incidents/record-shapes.ts): hostile files whose shapes,
 * separators and value dictionaries cost more than they save (every line a new order of keys, values seen
 * once, keys seen once, lines kept as they are after their keys were kept). The shaped store holds at most
 * what the same store without shapes holds (the lines as they are) plus a fixed slack (docs/performance.md,
 * "Compact sets"): bytes, never seconds, are bound.
 */

import { describe, expect, it } from "vitest";
import { hashAscii } from "../../src/incidents/columns.js";
import { LineShapes, MAX_PROBES } from "../../src/incidents/record-shapes.js";
import { CompactRecords } from "../../src/incidents/record-store.js";

const enc = new TextEncoder();

/** Two-character keys, `n` of them. */
function keys(n: number): string[] {
  const a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const out: string[] = [];
  for (const x of a) for (const y of a) out.push(x + y);
  return out.slice(0, n);
}

/** A fixed pseudo-random sequence in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `count` of `n` keys in a new pseudo-random order. */
function shuffled(all: readonly string[], n: number, rand: () => number): string[] {
  const a = all.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, n);
}

/** Bytes shaping may hold beyond the lines as they are (twice the shapes' slack of 1 MiB, and more). */
const SLACK = 4 * 1024 * 1024;

/**
 * Shapes every line: the bytes kept (shaped or as they are) plus the shapes' own bytes are at most the
 * lines' bytes plus `SLACK`; every line rebuilt byte for byte, and read back through a store.
 */
function expectBounded(lines: Iterable<string>): void {
  const shapes = new LineShapes();
  const records = new CompactRecords<object>({ shapes: true });
  let raw = 0;
  let kept = 0;
  let row = 0;
  for (const line of lines) {
    const b = enc.encode(line);
    raw += b.length;
    const n = shapes.encode(b, 0, b.length, row);
    kept += n < 0 ? b.length : n;
    if (n >= 0) {
      const copy = shapes.out.slice(0, n);
      expect(shapes.text(shapes.decode(copy, 0, n, row))).toBe(line);
    }
    if (row < 50) {
      records.pushBytes(b, 0, b.length);
      expect(records.get(row)).toEqual(JSON.parse(line));
    }
    row++;
  }
  expect(kept + shapes.bytes(), `kept ${kept}, shapes ${shapes.bytes()}`).toBeLessThanOrEqual(raw + SLACK);
}

describe("shaped lines under hostile files hold at most the lines' bytes and a slack", () => {
  const K = keys(3000);

  it("every line a new order of 600 keys, values from a dictionary", () => {
    const rand = rng(1);
    expectBounded(
      (function* () {
        for (let l = 0; l < 1500; l++)
          yield `{${shuffled(K, 600, rand)
            .map((k) => `"${k}":1`)
            .join(",")}}`;
      })(),
    );
  });

  it("every line a new order of 400 keys, every value seen once (dictionaries fill)", () => {
    const rand = rng(2);
    let u = 0;
    expectBounded(
      (function* () {
        for (let l = 0; l < 1500; l++)
          yield `{${shuffled(K, 400, rand)
            .map((k) => `"${k}":"${(u++).toString(36).padStart(20, "x")}"`)
            .join(",")}}`;
      })(),
    );
  });

  it("every line a key seen once, 2,000 bytes long", () => {
    expectBounded(
      (function* () {
        for (let l = 0; l < 5000; l++) yield `{"${"k".repeat(2000)}${l}":1}`;
      })(),
    );
  });

  it("every line a key seen once and a longer value (the line kept as it is, its key kept before)", () => {
    expectBounded(
      (function* () {
        for (let l = 0; l < 5000; l++) yield `{"${"k".repeat(1000)}${l}":"${"v".repeat(3500)}${l}"}`;
      })(),
    );
  });

  it("keys crafted to share their hash's low 12 bits: each lookup visits at most MAX_PROBES slots", () => {
    // 1,500 keys whose separators `,"key":` hash alike in the low 12 bits (a table of 4,096 slots).
    const crafted: string[] = [];
    const target = hashAscii(enc.encode(',"c0":'), 0, 6) & 0xfff;
    const sep = new Uint8Array(32);
    for (let i = 0; crafted.length < 1500; i++) {
      const key = `c${i.toString(36)}`;
      const n = enc.encodeInto(`,"${key}":`, sep).written;
      if ((hashAscii(sep, 0, n) & 0xfff) === target) crafted.push(key);
    }
    const rand = rng(3);
    const shapes = new LineShapes();
    const members = 600;
    const lines = 200;
    for (let l = 0; l < lines; l++) {
      const line = `{"x":0,${shuffled(crafted, members, rand)
        .map((k) => `"${k}":1`)
        .join(",")}}`;
      const b = enc.encode(line);
      const n = shapes.encode(b, 0, b.length, l);
      if (n >= 0) expect(shapes.text(shapes.decode(shapes.out.slice(0, n), 0, n, l))).toBe(line);
    }
    // Per line at most one separator lookup per member and the tail's (64 slots each); without the bound,
    // about 86 a lookup here (a cluster of 1,430 keys).
    const separators = (shapes as unknown as { separators: { probes: number } }).separators.probes;
    expect(separators).toBeLessThanOrEqual(lines * (members + 2) * 64);
    // Per line: a separator and a dictionary lookup per member, the tail's and the shape's.
    expect(shapes.probeCount()).toBeLessThanOrEqual(lines * (2 * (members + 1) + 2) * 64);
    expect(MAX_PROBES).toBeLessThanOrEqual(64);
  });
});
