import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import {
  assertNever,
  type Condition,
  type ConditionKind,
  type FieldOperatorNode,
  type NotNode,
  type RangeNode,
} from "./ast.js";
import { evaluate } from "./evaluate.js";
import {
  type BoundOperatorName,
  type BoundSide,
  type BoundSpec,
  boundComparison,
  boundOf,
  boundOperator,
  negationOf,
  OPERATORS,
  type OperatorName,
  operatorOf,
  RangeGrouping,
  type SingleOperatorKind,
} from "./operators.js";
import { parseSearchConditions } from "./parse.js";

/** Every node kind (the `satisfies` makes a new kind a compile error here too). */
const KINDS = Object.keys({
  and: true,
  or: true,
  nor: true,
  not: true,
  eq: true,
  ne: true,
  range: true,
  in: true,
  nin: true,
  all: true,
  regex: true,
  exists: true,
  size: true,
  type: true,
  mod: true,
  bits: true,
  elemMatch: true,
} satisfies Record<ConditionKind, true>) as ConditionKind[];

/** A valid operator object (or condition object) for each operator, and the node kind it must parse to. */
const SAMPLES: Readonly<Record<OperatorName, unknown>> = {
  $and: { $and: [{ A: 1 }, { B: 1 }] },
  $or: { $or: [{ A: 1 }] },
  $nor: { $nor: [{ A: 1 }] },
  $eq: { A: { $eq: 1 } },
  $ne: { A: { $ne: 1 } },
  $gt: { A: { $gt: 1 } },
  $gte: { A: { $gte: 1 } },
  $lt: { A: { $lt: 1 } },
  $lte: { A: { $lte: 1 } },
  $in: { A: { $in: [1] } },
  $nin: { A: { $nin: [1] } },
  $all: { A: { $all: [1] } },
  $regex: { A: { $regex: "a" } },
  $options: { A: { $options: "i", $regex: "a" } },
  $exists: { A: { $exists: true } },
  $size: { A: { $size: 1 } },
  $not: { A: { $not: { $eq: 1 } } },
  $type: { A: { $type: "number" } },
  $mod: { A: { $mod: [2, 0] } },
  $bitsAllSet: { A: { $bitsAllSet: 5 } },
  $bitsAnySet: { A: { $bitsAnySet: [0, 2] } },
  $bitsAllClear: { A: { $bitsAllClear: 5 } },
  $bitsAnyClear: { A: { $bitsAnyClear: [0, 2] } },
  $elemMatch: { A: { $elemMatch: { $gte: 1 } } },
};

describe("the operator table: operator ↔ node kind (docs/semantics.md 1.1, 1.3)", () => {
  it.each(Object.values(OPERATORS).map((spec) => [spec.name, spec.node] as const))(
    "%s parses to a %s node",
    (name, kind) => {
      expect(parseSearchConditions(SAMPLES[name]).kind).toBe(kind);
    },
  );

  it.each(KINDS.filter((kind): kind is SingleOperatorKind => kind !== "range").map((kind) => [kind]))(
    "the %s node is written with an operator whose row produces it",
    (kind) => {
      expect(OPERATORS[operatorOf(kind)].node).toBe(kind);
    },
  );

  it("every node kind is produced by some row", () => {
    const produced = new Set(Object.values(OPERATORS).map((spec) => spec.node));
    expect(KINDS.filter((kind) => !produced.has(kind))).toEqual([]);
  });
});

describe("the operator table: range bounds (docs/semantics.md 1.3, 1.4)", () => {
  const BOUNDS: readonly [BoundSide, boolean, BoundOperatorName, BoundSpec["comparison"]][] = [
    ["lower", false, "$gt", ">"],
    ["lower", true, "$gte", ">="],
    ["upper", false, "$lt", "<"],
    ["upper", true, "$lte", "<="],
  ];

  it.each(BOUNDS)("%s, inclusive %s ↔ %s (%s)", (side, inclusive, name, comparison) => {
    expect(boundOperator(side, inclusive)).toBe(name);
    expect(boundOf(name)).toEqual({ side, inclusive, comparison });
    expect(boundComparison(side, inclusive)).toBe(comparison);
  });

  const COMPARE: Readonly<Record<BoundSpec["comparison"], (a: number, b: number) => boolean>> = {
    ">": (a, b) => a > b,
    ">=": (a, b) => a >= b,
    "<": (a, b) => a < b,
    "<=": (a, b) => a <= b,
  };

  it("each bound's comparison is what its operator matches on numbers", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BOUNDS.map(([, , name]) => name)),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -3, max: 3 }),
        (name, operand, value) => {
          const condition = parseSearchConditions({ A: { [name]: operand } });
          expect(evaluate(condition, { A: value })).toBe(COMPARE[boundOf(name).comparison](value, operand));
        },
      ),
      fcOptions(300),
    );
  });
});

describe("the operator table: negation pairs (docs/semantics.md 1.3, 1.5)", () => {
  it.each([
    ["$eq", "$ne"],
    ["$ne", "$eq"],
    ["$in", "$nin"],
    ["$nin", "$in"],
  ] as const)("%s is negated by %s", (name, negation) => {
    expect(negationOf(name)).toBe(negation);
  });

  it.each(
    (Object.keys(OPERATORS) as OperatorName[])
      .filter((name) => !["$eq", "$ne", "$in", "$nin"].includes(name))
      .map((name) => [name]),
  )("%s has no negation operator", (name) => {
    expect(negationOf(name)).toBeUndefined();
  });

  const value = fc.constantFrom<unknown>(1, 2, "a", null, true, [1, 2], [], [null], [[1]]);
  const record = fc.oneof(
    value.map((v) => ({ A: v })),
    fc.constant({}),
  );

  it("an operator and its negation split every record, missing fields and arrays included", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("$eq", "$in"),
        fc.constantFrom<unknown>(1, "a", null, true),
        record,
        (name, operand, incident) => {
          const negation = negationOf(name)!;
          const written = name === "$in" ? [operand] : operand;
          const condition = parseSearchConditions({ A: { [name]: written } });
          const negated = parseSearchConditions({ A: { [negation]: written } });
          expect(evaluate(negated, incident)).toBe(!evaluate(condition, incident));
        },
      ),
      fcOptions(300),
    );
  });
});

describe("RangeGrouping: the ranges of one operator object (docs/semantics.md 1.3)", () => {
  /** The ranges an operator object parses to, each as the operators of its bounds (lower first). */
  function rangesOf(object: Record<string, unknown>): string[][] {
    const condition: Condition = parseSearchConditions({ A: object });
    const nodes = condition.kind === "and" ? condition.children : [condition];
    return nodes.flatMap((node) =>
      node.kind === "range"
        ? [
            [
              ...(node.lower === undefined ? [] : [boundOperator("lower", node.lower.inclusive)]),
              ...(node.upper === undefined ? [] : [boundOperator("upper", node.upper.inclusive)]),
            ],
          ]
        : [],
    );
  }

  it.each<[string, Record<string, unknown>, string[][]]>([
    ["a lower and an upper bound merge", { $gt: 1, $lt: 5 }, [["$gt", "$lt"]]],
    ["in either key order", { $lte: 5, $gte: 1 }, [["$gte", "$lte"]]],
    ["two bounds of one side stay two ranges", { $gt: 1, $gte: 2 }, [["$gt"], ["$gte"]]],
    ["the first range takes the first upper bound", { $gt: 1, $gte: 2, $lt: 5 }, [["$gt", "$lt"], ["$gte"]]],
    ["operand types do not merge", { $gt: 1, $lt: "z" }, [["$gt"], ["$lt"]]],
    [
      "per operand type",
      { $gt: 1, $gte: "a", $lt: 5, $lte: "z" },
      [
        ["$gt", "$lt"],
        ["$gte", "$lte"],
      ],
    ],
  ])("%s", (_name, object, expected) => {
    expect(rangesOf(object)).toEqual(expected);
  });

  it("add returns the range a bound starts, undefined when it joins the first range of its type", () => {
    const grouping = new RangeGrouping();
    const one = { operand: { type: "number", value: 1 }, inclusive: false } as const;
    const two = { operand: { type: "number", value: 2 }, inclusive: true } as const;
    const first = grouping.add("lower", one);
    const second = grouping.add("lower", two);
    expect(first?.bounds).toEqual({ lower: one });
    expect(second?.bounds).toEqual({ lower: two });
    expect(grouping.add("upper", two)).toBeUndefined();
    expect(first?.bounds).toEqual({ lower: one, upper: two });
    expect(second?.bounds).toEqual({ lower: two });
  });
});

describe("AST types make the impossible states unrepresentable", () => {
  it("a range has a bound; $not holds only field operators of one object", () => {
    expectTypeOf<NotNode["child"]["kind"]>().toEqualTypeOf<FieldOperatorNode["kind"] | "and">();
    // @ts-expect-error a range without a bound is not a RangeNode
    const noBound: RangeNode = { kind: "range", path: ["A"], fieldKind: "open" };
    // @ts-expect-error `or` never stands under `$not`
    const orUnderNot: NotNode = { kind: "not", child: { kind: "or", children: [] } };
    const eq = { kind: "eq", path: ["A"], fieldKind: "open", operand: { type: "null" } } as const;
    // @ts-expect-error an `and` under `$not` holds two or more operators
    const oneOperatorAnd: NotNode = { kind: "not", child: { kind: "and", children: [eq] } };
    expect([noBound, orUnderNot, oneOperatorAnd]).toHaveLength(3);
  });

  it("assertNever throws when a value outside the union reaches it at run time", () => {
    expect(() => assertNever("mod" as never)).toThrowError('Unexpected value in an exhaustive switch: "mod"');
  });
});
