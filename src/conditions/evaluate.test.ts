import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hostileRecordArb, incidentArb } from "../../test/arbitraries/incidents.js";
import { fcOptions } from "../../test/support/fc.js";
import type {
  Condition,
  FieldKind,
  FieldNode,
  NotNode,
  Operand,
  OrderedOperand,
  RangeBound,
  RangeBounds,
} from "./ast.js";
import { formatIsoUtc } from "./dates.js";
import { evaluateNode, resolveFieldPath } from "./evaluate.js";

// Builders of AST nodes (the parser is tested elsewhere; these tests pin the interpreter alone, through
// evaluateNode: the public evaluate accepts only parsed conditions and is tested in parsed-condition.test.ts).
const S = (value: string): OrderedOperand => ({ type: "string", value });
const N = (value: number): OrderedOperand => ({ type: "number", value });
const B = (value: boolean): Operand => ({ type: "boolean", value });
const NULL: Operand = { type: "null" };
const D = (iso: string): OrderedOperand => ({ type: "date", value: Date.parse(iso) });
const target = (field: string, fieldKind: FieldKind = "open") => ({ path: field.split("."), fieldKind });
const eq = (field: string, operand: Operand, kind?: FieldKind): FieldNode => ({
  kind: "eq",
  ...target(field, kind),
  operand,
});
const ne = (field: string, operand: Operand, kind?: FieldKind): FieldNode => ({
  kind: "ne",
  ...target(field, kind),
  operand,
});
const inn = (field: string, operands: Operand[], kind?: FieldKind): FieldNode => ({
  kind: "in",
  ...target(field, kind),
  operands,
  fromPipe: false,
});
const nin = (field: string, operands: Operand[], kind?: FieldKind): FieldNode => ({
  kind: "nin",
  ...target(field, kind),
  operands,
});
const all = (field: string, operands: Operand[], kind?: FieldKind): FieldNode => ({
  kind: "all",
  ...target(field, kind),
  operands,
});
const bound = (operand: OrderedOperand, inclusive = false): RangeBound => ({ operand, inclusive });
const range = (field: string, bounds: RangeBounds, kind?: FieldKind): FieldNode => ({
  kind: "range",
  ...target(field, kind),
  ...bounds,
});
const gt = (field: string, operand: OrderedOperand, kind?: FieldKind) =>
  range(field, { lower: bound(operand) }, kind);
const lte = (field: string, operand: OrderedOperand, kind?: FieldKind) =>
  range(field, { upper: bound(operand, true) }, kind);
const regex = (field: string, source: string, flags = ""): FieldNode => ({
  kind: "regex",
  ...target(field),
  source,
  flags,
});
const exists = (field: string, value: boolean): FieldNode => ({
  kind: "exists",
  ...target(field),
  exists: value,
});
const size = (field: string, n: number): FieldNode => ({ kind: "size", ...target(field), size: n });
const and = (...children: Condition[]): Condition => ({ kind: "and", children });
const or = (...children: Condition[]): Condition => ({ kind: "or", children });
const nor = (...children: Condition[]): Condition => ({ kind: "nor", children });
// The parser puts only field operators of one path under `not`; the reference is checked on any child.
const not = (child: Condition): Condition => ({ kind: "not", child }) as NotNode;

const T0 = "2024-03-01T12:00:00Z";
const withGetter = Object.defineProperty({ Other: 1 }, "Title", {
  enumerable: true,
  get() {
    throw new Error("getter invoked");
  },
});

type Row = [string, Condition, object, boolean];
const rows: Row[] = [
  // Equality: exact and case-sensitive strings, numbers numerically, booleans, null.
  ["string equality", eq("Title", S("Phish"), "text"), { Title: "Phish" }, true],
  ["string equality is case-sensitive", eq("Title", S("Phish"), "text"), { Title: "phish" }, false],
  ["string equality is exact", eq("Title", S("Phish"), "text"), { Title: "Phish " }, false],
  ["number equality", eq("Score", N(5)), { Score: 5.0 }, true],
  ["number 0 equals -0", eq("Score", N(0)), { Score: -0 }, true],
  ["number does not equal its string", eq("Score", N(5)), { Score: "5" }, false],
  ["string does not equal a number", eq("Score", S("5")), { Score: 5 }, false],
  ["boolean equality", eq("Flag", B(true)), { Flag: true }, true],
  ["boolean does not equal 1", eq("Flag", B(true)), { Flag: 1 }, false],
  ["null matches null", eq("Owner", NULL), { Owner: null }, true],
  ["null matches missing", eq("Owner", NULL), {}, true],
  ["null matches undefined (absent)", eq("Owner", NULL), { Owner: undefined }, true],
  ["null matches an array holding null", eq("Owner", NULL), { Owner: ["a", null] }, true],
  ["null does not match a value", eq("Owner", NULL), { Owner: "" }, false],
  ["NaN in a record equals no number operand", eq("Score", N(0)), { Score: Number.NaN }, false],
  ["NaN in a record equals a NaN operand", eq("Score", N(Number.NaN)), { Score: Number.NaN }, true],
  // Dates.
  [
    "date field: Date equals $date",
    eq("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: new Date(T0) },
    true,
  ],
  ["date field: ISO string equals $date", eq("CreatedUtcTime", D(T0), "date"), { CreatedUtcTime: T0 }, true],
  [
    "date field: ISO string with ms equals $date",
    eq("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: "2024-03-01T12:00:00.000Z" },
    true,
  ],
  [
    "date field: offset string is not a date",
    eq("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: "2024-03-01T13:00:00+01:00" },
    false,
  ],
  [
    "date field: invalid Date is not a date",
    eq("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: new Date(Number.NaN) },
    false,
  ],
  [
    "date field: epoch number is not a date",
    eq("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: Date.parse(T0) },
    false,
  ],
  ["open field: ISO string is not a date", eq("SeenAt", D(T0)), { SeenAt: T0 }, false],
  ["open field: Date equals $date", eq("SeenAt", D(T0)), { SeenAt: new Date(T0) }, true],
  ["date in an array", eq("SeenAt", D(T0)), { SeenAt: [new Date(0), new Date(T0)] }, true],
  // Ranges with type bracketing.
  ["number range", gt("Score", N(5)), { Score: 6 }, true],
  ["number range excludes the bound", gt("Score", N(5)), { Score: 5 }, false],
  ["inclusive bound", lte("Score", N(5)), { Score: 5 }, true],
  ["number range ignores strings", gt("Score", N(5)), { Score: "6" }, false],
  ["number range ignores null", lte("Score", N(5)), { Score: null }, false],
  ["number range ignores booleans", lte("Score", N(5)), { Score: false }, false],
  ["number range ignores missing", lte("Score", N(5)), {}, false],
  ["NaN lies in no range", lte("Score", N(5)), { Score: Number.NaN }, false],
  ["infinity is a number", gt("Score", N(5)), { Score: Number.POSITIVE_INFINITY }, true],
  ["string range", gt("Owner", S("b")), { Owner: "c" }, true],
  ["string range is case-sensitive (code units)", gt("Owner", S("b")), { Owner: "B" }, false],
  ["string range ignores numbers", gt("Owner", S("1")), { Owner: 2 }, false],
  ["string range: code-unit order", gt("Owner", S("\uffff")), { Owner: "😀" }, false],
  [
    "date range over Date",
    gt("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: new Date("2024-03-02") },
    true,
  ],
  [
    "date range over ISO string",
    gt("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: "2024-03-02T00:00:00Z" },
    true,
  ],
  [
    "date range: invalid date string",
    gt("CreatedUtcTime", D(T0), "date"),
    { CreatedUtcTime: "2024-02-30T00:00:00Z" },
    false,
  ],
  ["date range: open field ISO string", gt("SeenAt", D(T0)), { SeenAt: "2024-03-02T00:00:00Z" }, false],
  ["date range ignores numbers", gt("SeenAt", D(T0)), { SeenAt: Date.parse("2030-01-01") }, false],
  ["two bounds on a scalar", range("Score", { lower: bound(N(1)), upper: bound(N(3)) }), { Score: 2 }, true],
  [
    "two bounds on a scalar outside",
    range("Score", { lower: bound(N(1)), upper: bound(N(3)) }),
    { Score: 3 },
    false,
  ],
  [
    "two bounds met by different elements (MongoDB)",
    range("Score", { lower: bound(N(1)), upper: bound(N(3)) }),
    { Score: [0, 5] },
    true,
  ],
  // $in, $nin, $ne.
  ["$in", inn("Severity", [S("High"), S("Critical")], "enum"), { Severity: "Critical" }, true],
  ["$in miss", inn("Severity", [S("High"), S("Critical")], "enum"), { Severity: "Low" }, false],
  ["$in empty", inn("Severity", [], "enum"), { Severity: "Low" }, false],
  ["$in null matches missing", inn("Owner", [NULL, S("x")]), {}, true],
  ["$in over array", inn("Tags", [S("vip")]), { Tags: ["a", "vip"] }, true],
  ["$nin", nin("Severity", [S("High")], "enum"), { Severity: "Low" }, true],
  ["$nin miss", nin("Severity", [S("High")], "enum"), { Severity: "High" }, false],
  ["$nin matches missing", nin("Severity", [S("High")], "enum"), {}, true],
  ["$nin empty matches", nin("Severity", [], "enum"), { Severity: "High" }, true],
  ["$nin over array: an element equals", nin("Tags", [S("vip")]), { Tags: ["a", "vip"] }, false],
  ["$nin null refuses missing", nin("Owner", [NULL]), {}, false],
  ["$ne", ne("Status", S("Closed"), "enum"), { Status: "Open" }, true],
  ["$ne miss", ne("Status", S("Closed"), "enum"), { Status: "Closed" }, false],
  ["$ne matches missing", ne("Status", S("Closed"), "enum"), {}, true],
  ["$ne over array: no element equals", ne("Tags", S("vip")), { Tags: ["a", "b"] }, true],
  ["$ne over array: an element equals", ne("Tags", S("vip")), { Tags: ["a", "vip"] }, false],
  ["$ne over empty array", ne("Tags", S("vip")), { Tags: [] }, true],
  ["$ne null: present value", ne("Owner", NULL), { Owner: "x" }, true],
  ["$ne null: missing", ne("Owner", NULL), {}, false],
  // $all and $size look at the array.
  ["$all subset", all("Tags", [S("a"), S("b")]), { Tags: ["b", "c", "a"] }, true],
  ["$all missing one", all("Tags", [S("a"), S("b")]), { Tags: ["a", "c"] }, false],
  ["$all on a scalar is equality (MongoDB)", all("Tags", [S("a")]), { Tags: "a" }, true],
  ["$all on a scalar with two operands", all("Tags", [S("a"), S("b")]), { Tags: "a" }, false],
  ["$all empty matches nothing", all("Tags", []), { Tags: [] }, false],
  ["$all on missing", all("Tags", [S("a")]), {}, false],
  ["$size", size("Tags", 2), { Tags: ["a", "b"] }, true],
  ["$size other length", size("Tags", 2), { Tags: ["a"] }, false],
  ["$size 0", size("Tags", 0), { Tags: [] }, true],
  ["$size on a scalar", size("Tags", 1), { Tags: "a" }, false],
  ["$size on a string's length", size("Tags", 1), { Tags: "a" }, false],
  ["$size on array-like object", size("Tags", 1), { Tags: { length: 1, 0: "a" } }, false],
  ["$size on missing", size("Tags", 0), {}, false],
  // Regex: strings only.
  ["regex searches", regex("Title", "Phish"), { Title: "Re: Phishing" }, true],
  ["regex anchored", regex("Title", "^Phish"), { Title: "Re: Phishing" }, false],
  ["regex flag i", regex("Title", "^phish", "i"), { Title: "Phishing" }, true],
  ["regex on number", regex("Score", "5"), { Score: 5 }, false],
  ["regex on Date", regex("SeenAt", "2024"), { SeenAt: new Date(T0) }, false],
  ["regex on string element", regex("Tags", "^v"), { Tags: [1, "vip"] }, true],
  ["regex on missing", regex("Title", ""), {}, false],
  ["regex on null", regex("Title", ""), { Title: null }, false],
  // $exists.
  ["$exists true", exists("Owner", true), { Owner: 0 }, true],
  ["$exists true with null", exists("Owner", true), { Owner: null }, true],
  ["$exists true missing", exists("Owner", true), {}, false],
  ["$exists false", exists("Owner", false), {}, true],
  ["$exists false present", exists("Owner", false), { Owner: null }, false],
  ["$exists false for undefined", exists("Owner", false), { Owner: undefined }, true],
  // Paths.
  ["nested path", eq("Custom.Owner", S("alice")), { Custom: { Owner: "alice" } }, true],
  ["nested path through array of objects", eq("A.B", N(2)), { A: [{ B: 1 }, { B: 2 }] }, true],
  ["nested path into arrays of arrays", eq("A.B", N(2)), { A: [{ B: [1, 2] }] }, true],
  ["nested arrays are not entered", eq("A.B", N(1)), { A: [[{ B: 1 }]] }, false],
  ["element of nested array is not a match", eq("A", N(1)), { A: [[1], 2] }, false],
  ["numeric segment indexes an array", eq("A.1", S("y")), { A: ["x", "y"] }, true],
  ["numeric segment other index", eq("A.0", S("y")), { A: ["x", "y"] }, false],
  ["numeric segment is a key of an object", eq("A.1", S("y")), { A: { 1: "y" } }, true],
  ["non-canonical index is not an index", eq("A.01", S("y")), { A: ["x", "y"] }, false],
  ["array length is not a field", eq("A.length", N(2)), { A: ["x", "y"] }, false],
  ["string length is not a field", eq("A.length", N(1)), { A: "x" }, false],
  ["path through a scalar is missing", exists("A.B", false), { A: 5 }, true],
  ["path through array of scalars is missing", eq("A.B", NULL), { A: [1, 2] }, true],
  ["path through empty array is missing", exists("A.B", false), { A: [] }, true],
  ["path partly missing in array: null matches (9.0)", eq("A.B", NULL), { A: [{ B: 1 }, { C: 1 }] }, true],
  ["path present in every element: null does not match", eq("A.B", NULL), { A: [{ B: 1 }, { B: 2 }] }, false],
  ["$size through a path", size("A.B", 2), { A: [{ B: [1, 2] }] }, true],
  // Own data properties only.
  ["inherited property is missing", exists("toString", false), {}, true],
  ["own property named like an inherited one", eq("toString", S("x")), { toString: "x" }, true],
  ["prototype chain is not read", eq("Title", S("x")), Object.create({ Title: "x" }) as object, false],
  [
    "__proto__ own key (JSON.parse) is data",
    eq("Custom.Owner", S("a")),
    JSON.parse('{"Custom":{"__proto__":{"Owner":"a"}}}'),
    false,
  ],
  [
    "null-prototype record",
    eq("Title", S("x")),
    Object.assign(Object.create(null) as object, { Title: "x" }),
    true,
  ],
  ["a throwing getter counts as missing", exists("Title", false), withGetter, true],
  ["a throwing getter counts as missing (eq)", eq("Title", NULL), withGetter, true],
  // Logic.
  ["and", and(eq("A", N(1)), eq("B", N(2))), { A: 1, B: 2 }, true],
  ["and miss", and(eq("A", N(1)), eq("B", N(2))), { A: 1, B: 3 }, false],
  ["empty and matches all", and(), {}, true],
  ["or", or(eq("A", N(1)), eq("B", N(2))), { A: 0, B: 2 }, true],
  ["or miss", or(eq("A", N(1)), eq("B", N(2))), { A: 0, B: 0 }, false],
  ["nor", nor(eq("A", N(1)), eq("B", N(2))), { A: 0, B: 0 }, true],
  ["nor miss", nor(eq("A", N(1)), eq("B", N(2))), { A: 1 }, false],
  ["not matches missing", not(regex("Title", "x")), {}, true],
  ["not regex", not(regex("Title", "x")), { Title: "xyz" }, false],
  ["not over a range and", not(and(gt("Score", N(1)), lte("Score", N(3)))), { Score: 2 }, false],
  ["not over a range and outside", not(and(gt("Score", N(1)), lte("Score", N(3)))), { Score: 9 }, true],
];

describe("evaluateNode (docs/semantics.md 1.5)", () => {
  it.each(rows)("%s", (_name, condition, record, expected) => {
    expect(evaluateNode(condition, record)).toBe(expected);
  });

  it.each([null, undefined, 0, "Title", [{ Title: "x" }]])("reads %j as an empty record", (record) => {
    expect(evaluateNode(eq("Title", S("x")), record as object)).toBe(false);
    expect(evaluateNode(eq("Title", NULL), record as object)).toBe(true);
    expect(evaluateNode(exists("0", false), record as object)).toBe(true);
  });
});

describe("resolveFieldPath", () => {
  it.each([
    [{ a: 1 }, ["a"], [1]],
    [{ a: { b: [1] } }, ["a", "b"], [[1]]],
    [{ a: [{ b: 1 }, { c: 2 }, { b: [2] }, 7, null, [{ b: 9 }]] }, ["a", "b"], [1, [2]]],
    [{ a: [{ 0: "k" }, "z"] }, ["a", "0"], ["k", { 0: "k" }]],
    [{ a: null }, ["a", "b"], []],
    [{ a: undefined }, ["a"], []],
  ] as [object, string[], unknown[]][])("resolves %j at %j", (record, path, expected) => {
    expect(resolveFieldPath(record, path)).toEqual(expected);
  });
});

// A small arbitrary of field nodes on one open field `F`, with operands that collide with record values.
const scalarArb = fc.oneof(
  fc.constantFrom("a", "b", "B", "", "5", "vip"),
  fc.constantFrom(-1, 0, 5, 7.5),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(new Date(0), new Date(Date.parse(T0)), new Date(Number.NaN)),
);
const operandArb: fc.Arbitrary<Operand> = fc.oneof(
  fc.constantFrom("a", "b", "B", "", "5", "vip").map(S),
  fc.constantFrom(-1, 0, 5, 7.5).map(N),
  fc.boolean().map(B),
  fc.constant(NULL),
  fc.constantFrom(D("1970-01-01T00:00:00Z"), D(T0)),
);
const orderedArb = operandArb.filter(
  (o): o is Operand & OrderedOperand => o.type !== "boolean" && o.type !== "null",
);
/** Field nodes whose answer on an array is "some element matches". */
const positiveNodeArb = (field: string): fc.Arbitrary<FieldNode> =>
  fc.oneof(
    operandArb.map((o) => eq(field, o)),
    fc.array(operandArb, { maxLength: 3 }).map((os) => inn(field, os)),
    fc
      .tuple(orderedArb, fc.boolean(), fc.boolean())
      .map(([o, inclusive, lower]) =>
        range(field, lower ? { lower: bound(o, inclusive) } : { upper: bound(o, inclusive) }),
      ),
    fc.constantFrom("^a", "b$", "5", "^$", "i", "(a|B)").map((source) => regex(field, source)),
  );
/** Field nodes whose answer on a non-empty array is "every element matches". */
const negativeNodeArb = (field: string): fc.Arbitrary<FieldNode> =>
  fc.oneof(
    operandArb.filter((o) => o.type !== "null").map((o) => ne(field, o)),
    fc
      .array(
        operandArb.filter((o) => o.type !== "null"),
        { maxLength: 3 },
      )
      .map((os) => nin(field, os)),
  );
const anyNodeArb = (field: string): fc.Arbitrary<FieldNode> =>
  fc.oneof(
    positiveNodeArb(field),
    negativeNodeArb(field),
    fc.array(operandArb, { maxLength: 3 }).map((os) => all(field, os)),
    fc.boolean().map((b) => exists(field, b)),
    fc.nat(3).map((n) => size(field, n)),
  );
const conditionArb: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("Title", "Tags", "Custom.Owner", "CreatedUtcTime", "Score", "toString").chain(anyNodeArb),
    fc.array(tie("c"), { maxLength: 3 }).map((cs) => and(...cs)),
    fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((cs) => or(...cs)),
    fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((cs) => nor(...cs)),
    tie("c").map(not),
  ),
})).c;

describe("evaluateNode: properties", () => {
  it("never throws and never pollutes a prototype, whatever the record", () => {
    fc.assert(
      fc.property(conditionArb, fc.oneof(hostileRecordArb(), incidentArb()), (condition, record) => {
        expect(typeof evaluateNode(condition, record as object)).toBe("boolean");
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("Severity");
        expect(({} as Record<string, unknown>).Severity).toBeUndefined();
      }),
      fcOptions(1000),
    );
  });

  it("an array of scalars matches a positive node when some element does", () => {
    fc.assert(
      fc.property(positiveNodeArb("F"), fc.array(scalarArb, { maxLength: 4 }), (node, elements) => {
        const expected = elements.some((element) => evaluateNode(node, { F: element }));
        expect(evaluateNode(node, { F: elements })).toBe(expected);
      }),
      fcOptions(1000),
    );
  });

  it("an array of scalars matches $ne/$nin when every element does", () => {
    fc.assert(
      fc.property(negativeNodeArb("F"), fc.array(scalarArb, { maxLength: 4 }), (node, elements) => {
        const expected = elements.every((element) => evaluateNode(node, { F: element }));
        expect(evaluateNode(node, { F: elements })).toBe(expected);
      }),
      fcOptions(1000),
    );
  });

  it("a path through an array of objects sees each object's value", () => {
    fc.assert(
      fc.property(
        positiveNodeArb("A.B"),
        fc.array(scalarArb, { minLength: 1, maxLength: 4 }),
        (node, values) => {
          const flat = { ...node, path: ["F"] };
          const expected = values.some((value) => evaluateNode(flat, { F: value }));
          expect(evaluateNode(node, { A: values.map((value) => ({ B: value })) })).toBe(expected);
        },
      ),
      fcOptions(1000),
    );
  });

  it("$all is the AND of equalities", () => {
    fc.assert(
      fc.property(
        fc.array(operandArb, { minLength: 1, maxLength: 3 }),
        fc.oneof(scalarArb, fc.array(scalarArb, { maxLength: 4 })),
        (operands, value) => {
          const expected = operands.every((operand) => evaluateNode(eq("F", operand), { F: value }));
          expect(evaluateNode(all("F", operands), { F: value })).toBe(expected);
        },
      ),
      fcOptions(1000),
    );
  });

  it("$not, $nor and $or agree with boolean logic", () => {
    fc.assert(
      fc.property(
        fc.array(conditionArb, { minLength: 1, maxLength: 3 }),
        incidentArb(),
        (children, record) => {
          const answers = children.map((child) => evaluateNode(child, record));
          expect(evaluateNode(or(...children), record)).toBe(answers.some(Boolean));
          expect(evaluateNode(and(...children), record)).toBe(answers.every(Boolean));
          expect(evaluateNode(nor(...children), record)).toBe(!answers.some(Boolean));
          expect(evaluateNode(not(children[0]!), record)).toBe(!answers[0]);
        },
      ),
      fcOptions(500),
    );
  });

  it("in a date field, a Date and its ISO string are the same value", () => {
    const dateNodeArb = fc.oneof(
      orderedArb.filter((o) => o.type === "date").map((o) => eq("CreatedUtcTime", o, "date")),
      fc
        .tuple(
          orderedArb.filter((o) => o.type === "date"),
          fc.boolean(),
        )
        .map(([o, inclusive]) => range("CreatedUtcTime", { lower: bound(o, inclusive) }, "date")),
      fc
        .tuple(
          orderedArb.filter((o) => o.type === "date"),
          fc.boolean(),
        )
        .map(([o, inclusive]) => range("CreatedUtcTime", { upper: bound(o, inclusive) }, "date")),
    );
    const msArb = fc.oneof(
      fc.constantFrom(0, Date.parse(T0), Date.parse(T0) + 1),
      fc.integer({ min: 0, max: 4e12 }),
    );
    fc.assert(
      fc.property(dateNodeArb, msArb, (node, ms) => {
        const asDate = evaluateNode(node, { CreatedUtcTime: new Date(ms) });
        expect(evaluateNode(node, { CreatedUtcTime: formatIsoUtc(ms) })).toBe(asDate);
        // On an open field the ISO string is only a string: it matches no date condition.
        expect(evaluateNode({ ...node, fieldKind: "open" }, { CreatedUtcTime: formatIsoUtc(ms) })).toBe(
          false,
        );
      }),
      fcOptions(500),
    );
  });
});
