/**
 * The field nodes derived from the operator table (ast.ts `FieldNodeOf`, operators.ts `OperandSlots`) are
 * exactly the shapes the consumers were written against: a change of a rule's slot, or a row producing a
 * kind under another rule, fails here before it reaches a consumer.
 */
import { describe, expectTypeOf, it } from "vitest";
import type {
  AllNode,
  BitsNode,
  BitTest,
  EqNode,
  ExistsNode,
  FieldKind,
  FieldNode,
  InNode,
  JsonType,
  ModNode,
  NeNode,
  NinNode,
  Operand,
  RangeBounds,
  RangeNode,
  RegexNode,
  SizeNode,
  TypeNode,
} from "./ast.js";

/** Each assignable to the other, with the same keys (the derived types are intersections; equal shapes). */
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;

interface Target {
  readonly path: readonly string[];
  readonly fieldKind: FieldKind;
}

describe("field nodes derived from the operator table", () => {
  it("have the shapes written by hand before", () => {
    expectTypeOf<
      Same<EqNode, Target & { readonly kind: "eq"; readonly operand: Operand }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<NeNode, Target & { readonly kind: "ne"; readonly operand: Operand }>
    >().toEqualTypeOf<true>();
    expectTypeOf<Same<RangeNode, Target & { readonly kind: "range" } & RangeBounds>>().toEqualTypeOf<true>();
    expectTypeOf<
      Same<
        InNode,
        Target & { readonly kind: "in"; readonly operands: readonly Operand[]; readonly fromPipe: boolean }
      >
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<NinNode, Target & { readonly kind: "nin"; readonly operands: readonly Operand[] }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<AllNode, Target & { readonly kind: "all"; readonly operands: readonly Operand[] }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<RegexNode, Target & { readonly kind: "regex"; readonly source: string; readonly flags: string }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<ExistsNode, Target & { readonly kind: "exists"; readonly exists: boolean }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<SizeNode, Target & { readonly kind: "size"; readonly size: number }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<TypeNode, Target & { readonly kind: "type"; readonly types: readonly JsonType[] }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<ModNode, Target & { readonly kind: "mod"; readonly divisor: number; readonly remainder: number }>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<
        BitsNode,
        Target & { readonly kind: "bits"; readonly test: BitTest; readonly positions: readonly number[] }
      >
    >().toEqualTypeOf<true>();
  });

  it("make every field kind of the table a field node", () => {
    expectTypeOf<FieldNode["kind"]>().toEqualTypeOf<
      | "eq"
      | "ne"
      | "range"
      | "in"
      | "nin"
      | "all"
      | "regex"
      | "exists"
      | "size"
      | "type"
      | "mod"
      | "bits"
      | "elemMatch"
    >();
  });
});
