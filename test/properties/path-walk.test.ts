/**
 * The walk of a dotted path costs at most the size of the record times the length of the path, in every
 * engine (docs/semantics.md 1.7, "The walk of a dotted path"). Records nest arrays and objects keyed "0"
 * (the shape where a numeric segment both indexes an array and reads the field of each element, so the
 * routes double every level or two), grown to 30 levels, under paths of up to 62 segments, mostly `0`.
 * Cost is a count, never a time: the values `evaluate`'s walk examines (`walkSteps`), and the reads of the
 * record (counting Proxies) by `compile` (closures and generated code) and by `IncidentSet.findAll`.
 * Each property fails when a cost exceeds a fixed multiple of size × length, and checks that the engines
 * agree. Replay a failure with `FC_SEED=<seed> npx vitest run test/properties/path-walk.test.ts`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/conditions/compile.js";
import { evaluate, walkSteps } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { countingRecord, type ReadCounter, valueCount } from "../support/counting-proxy.js";
import { fcOptions } from "../support/fc.js";
import { switched } from "../support/tiers.js";

/** One level of nesting around an inner value. */
type Level = "issue" | "pair" | "indexed" | "array" | "nested" | "keys";

const wrap: Record<Level, (inner: unknown) => unknown> = {
  issue: (inner) => [{ 0: inner }],
  pair: (inner) => [{ 0: inner }, { 0: 1 }],
  indexed: (inner) => ({ 0: [inner] }),
  array: (inner) => [inner],
  nested: (inner) => [[inner]],
  keys: (inner) => [{ 0: inner, 1: 3 }, 4],
};

/** A record `{ a: … }` of `levels` (outermost first) around `2`. */
function recordOf(levels: readonly Level[]): Record<string, unknown> {
  let value: unknown = 2;
  for (let i = levels.length - 1; i >= 0; i--) value = wrap[levels[i]!](value);
  return { a: value };
}

/** The operators tested at the end of the path (each decides on every value the walk reaches). */
const OPERATORS: readonly unknown[] = [
  2,
  null,
  { $ne: 2 },
  { $exists: true },
  { $in: [2, null] },
  { $type: "number" },
  { $size: 1 },
  { $elemMatch: { $eq: 2 } },
  { $gt: 5 },
];

/** The issue's shape most of the time, the others mixed in; a path of mostly `0`, up to 2 × depth + 2. */
const caseArb = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<Level>("issue") },
      { weight: 1, arbitrary: fc.constantFrom<Level>("pair", "indexed", "array", "nested", "keys") },
    ),
    { minLength: 1, maxLength: 30 },
  )
  .chain((levels) =>
    fc.record({
      levels: fc.constant(levels),
      path: fc.array(
        fc.oneof({ weight: 8, arbitrary: fc.constant("0") }, { weight: 1, arbitrary: fc.constant("1") }),
        { minLength: 1, maxLength: 2 * levels.length + 2 },
      ),
      operator: fc.constantFrom(...OPERATORS),
    }),
  );

/** Values examined per value of the record and segment of the path: one for itself, one as an element. */
const STEPS_PER_VALUE_AND_SEGMENT = 2;
/**
 * Reads of the record per value and segment: `Object.hasOwn` and `get` of the value's field, of its index
 * in its array and of the array's index, plus an array's `length`; with a constant for the first segment
 * and the record itself.
 */
const READS_PER_VALUE_AND_SEGMENT = 8;

describe("the walk of a dotted path is linear in size × length (docs/semantics.md 1.7)", () => {
  it("evaluate examines at most 2 values per value of the record and segment, and agrees with compile", () => {
    fc.assert(
      fc.property(caseArb, ({ levels, path, operator }) => {
        const record = recordOf(levels);
        const segments = ["a", ...path];
        const bound = STEPS_PER_VALUE_AND_SEGMENT * valueCount(record) * segments.length;
        const steps = walkSteps(record, segments);
        expect(steps, `steps ${steps} > ${bound}`).toBeLessThanOrEqual(bound);
        const condition = parseSearchConditions({ [segments.join(".")]: operator });
        expect(compile(condition, { codegen: false, cache: false })(record)).toBe(
          evaluate(condition, record),
        );
      }),
      fcOptions(300),
    );
  });

  it("compile reads the record at most 8 times per value and segment (closures and generated code)", () => {
    fc.assert(
      fc.property(caseArb, ({ levels, path, operator }) => {
        const record = recordOf(levels);
        const segments = ["a", ...path];
        const bound = READS_PER_VALUE_AND_SEGMENT * valueCount(record) * segments.length;
        const condition = parseSearchConditions({ [segments.join(".")]: operator });
        const expected = evaluate(condition, record);
        for (const predicate of [
          compile(condition, { codegen: false, cache: false }),
          switched(compile(condition, { cache: false })),
        ]) {
          const counter: ReadCounter = { reads: 0 };
          expect(predicate(countingRecord(record, counter)), predicate.mode).toBe(expected);
          expect(counter.reads, `${predicate.mode}: reads ${counter.reads} > ${bound}`).toBeLessThanOrEqual(
            bound,
          );
        }
      }),
      fcOptions(120),
    );
  });

  it("IncidentSet.findAll reads each record at most 8 times per value and segment", () => {
    fc.assert(
      fc.property(caseArb, ({ levels, path, operator }) => {
        const record = recordOf(levels);
        const segments = ["a", ...path];
        const condition = parseSearchConditions({ [segments.join(".")]: operator });
        const counter: ReadCounter = { reads: 0 };
        const plain = { a: 1 };
        const counted = countingRecord(record, counter);
        const set = new IncidentSet<object>([plain, counted]);
        counter.reads = 0;
        const found = set.findAll(condition);
        expect(found.includes(counted)).toBe(evaluate(condition, record));
        const bound = READS_PER_VALUE_AND_SEGMENT * valueCount(record) * segments.length;
        expect(counter.reads, `reads ${counter.reads} > ${bound}`).toBeLessThanOrEqual(bound);
      }),
      fcOptions(120),
    );
  });
});
