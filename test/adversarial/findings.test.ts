/**
 * Findings of the adversarial review in the engine, each kept as a regression test once fixed: it states
 * the guarantee it broke and how to reproduce it by hand.
 */
import { describe, expect, it } from "vitest";
import { compile, evaluate, parseSearchConditions } from "../../src/index.js";
import { countingReads } from "../support/read-counter.js";

/**
 * A proxy over `target` that counts every operation on it (reads, `in` tests, descriptor reads, key
 * listings): the work of reading an array, as a count that a busy machine cannot change.
 */
function countingOperations<T extends object>(target: T): { readonly proxy: T; operations(): number } {
  let operations = 0;
  const proxy = new Proxy(target, {
    get(t, key, receiver) {
      operations++;
      return Reflect.get(t, key, receiver);
    },
    has(t, key) {
      operations++;
      return Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      operations++;
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
    ownKeys(t) {
      operations++;
      return Reflect.ownKeys(t);
    },
  });
  return { proxy, operations: () => operations };
}

describe("evaluate: matching is linear in the record (SECURITY.md 'Matching is linear in the record')", () => {
  // Fixed: `evaluate` read every array element through a per-holder Map keyed by the element's index
  // as a string (newReader/elementsOf in src/conditions/evaluate.ts), so its time grows faster than the
  // array: on the development machine 100,000 elements took 0.2 s and 200,000 took 0.7 s (x3.8 for x2);
  // a sparse array of 10,000,000 holes took 44 s, and one of length 2**32 - 1 ran 64 s and then threw
  // `RangeError: Map maximum size exceeded` out of `evaluate` (the compiled predicate answers each in
  // milliseconds). Reproduce:
  //   const a = []; a.length = 1e7;
  //   evaluate(parseSearchConditions({ X: 1 }), { X: a })   // 44 s; compile(...)({ X: a }) 0.2 s
  // Bounded as counts (operations on the array, through a counting proxy), which a busy machine cannot
  // fail: each element costs a bounded number of operations, whatever the array's length.
  it("reads an array in work proportional to its length (four times the elements, at most 4.4 times the operations)", () => {
    const condition = parseSearchConditions({ Tags: { $in: ["zz", "yy"] } });
    const operationsOn = (length: number) => {
      const tags = countingOperations(Array.from({ length }, () => "aaaa"));
      expect(evaluate(condition, { Tags: tags.proxy })).toBe(false);
      return tags.operations();
    };
    const small = operationsOn(60_000);
    const large = operationsOn(240_000);
    expect(small).toBeGreaterThanOrEqual(60_000); // every element is read: the count sees the reader
    expect(large).toBeLessThanOrEqual(4 * 240_000 + 16);
    expect(large).toBeLessThanOrEqual(4.4 * small); // the quadratic reader took about 14 times the time
  });

  it("answers an array of 300,000 holes within 20 times the compiled predicate's operations on it", () => {
    const condition = parseSearchConditions({ X: 1 });
    const holes: unknown[] = [];
    holes.length = 300_000;
    const compiledRun = countingOperations(holes);
    expect(compile(condition)({ X: compiledRun.proxy })).toBe(false);
    const evaluateRun = countingOperations(holes);
    expect(evaluate(condition, { X: evaluateRun.proxy })).toBe(false);
    expect(compiledRun.operations()).toBeGreaterThan(0);
    expect(evaluateRun.operations()).toBeLessThanOrEqual(20 * compiledRun.operations());
  });
});

describe("evaluate: arrays of any length, read as docs/semantics.md 1.1 says", () => {
  it("answers a sparse array of the largest length at once, through its own elements", () => {
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    expect(evaluate(parseSearchConditions({ X: 1 }), { X: sparse })).toBe(false);
    sparse[4_000_000_000] = 1;
    expect(evaluate(parseSearchConditions({ X: 1 }), { X: sparse })).toBe(true);
    // A hole is no element at all: not `null` (as the compiled predicate reads it).
    expect(evaluate(parseSearchConditions({ X: null }), { X: sparse })).toBe(false);
    expect(evaluate(parseSearchConditions({ "X.4000000000": 1 }), { X: sparse })).toBe(true);
    expect(evaluate(parseSearchConditions({ X: { $size: 2 ** 32 - 1 } }), { X: sparse })).toBe(true);
    // "At once" as a count, which a busy machine cannot fail: each answer reads the array through at most
    // ten property reads and key listings (a counting proxy), not one per index of its length.
    for (const raw of [{ X: 1 }, { X: null }, { "X.4000000000": 1 }, { X: { $size: 2 ** 32 - 1 } }]) {
      const counted = countingReads({ X: sparse });
      evaluate(parseSearchConditions(raw), counted.proxy);
      expect(counted.reads(), JSON.stringify(raw)).toBeLessThanOrEqual(10);
    }
  });

  it("reads an accessor element once, whether reached by traversal or by its index", () => {
    let reads = 0;
    const tags: unknown[] = ["a", "b"];
    Object.defineProperty(tags, 1, {
      get() {
        reads++;
        return "b";
      },
    });
    const condition = parseSearchConditions({
      Tags: "b",
      "Tags.1": "b",
      $or: [{ Tags: "zz" }, { Tags: "b" }],
    });
    expect(evaluate(condition, { Tags: tags })).toBe(true);
    expect(reads).toBe(1);
  });

  it("takes an array whose length cannot be read, or an element that throws, as holding nothing readable", () => {
    const hostile = new Proxy(["a"], {
      get(target, key) {
        if (key === "length") throw new Error("no length");
        return Reflect.get(target, key);
      },
    });
    expect(evaluate(parseSearchConditions({ Tags: "a" }), { Tags: hostile })).toBe(false);
    const throwing: unknown[] = ["a"];
    Object.defineProperty(throwing, 0, {
      get() {
        throw new Error("no element");
      },
    });
    expect(evaluate(parseSearchConditions({ Tags: null }), { Tags: throwing })).toBe(false);
    expect(compile(parseSearchConditions({ Tags: null }))({ Tags: throwing })).toBe(false);
    expect(evaluate(parseSearchConditions({ Tags: "a" }), { Tags: throwing })).toBe(false);
  });
});
