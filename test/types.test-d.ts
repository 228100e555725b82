import { describe, expectTypeOf, it } from "vitest";
import {
  type Condition,
  compile,
  IncidentSet,
  type Issue,
  type Predicate,
  parseSearchConditions,
  queryTimeline,
  type SearchConditionsInput,
  type SearchConditionsJson,
  safeParseSearchConditions,
  type TimelineEntry,
} from "../src/index.js";

describe("public types", () => {
  it("parse returns a Condition; safeParse narrows on success", () => {
    expectTypeOf(parseSearchConditions({})).toEqualTypeOf<Condition>();
    const result = safeParseSearchConditions({});
    if (result.success) expectTypeOf(result.condition).toEqualTypeOf<Condition>();
    else expectTypeOf(result.issues).toEqualTypeOf<[Issue, ...Issue[]]>();
    // @ts-expect-error: the failure branch has no condition
    if (!result.success) void result.condition;
  });

  it("a compiled predicate takes an incident and carries its condition", () => {
    const predicate = compile(parseSearchConditions({ Severity: "High" }));
    expectTypeOf(predicate).toEqualTypeOf<Predicate>();
    expectTypeOf(predicate).parameter(0).toEqualTypeOf<unknown>(); // records are untrusted
    expectTypeOf(predicate).returns.toEqualTypeOf<boolean>();
    expectTypeOf(predicate.condition).toEqualTypeOf<Condition>();
  });

  it("an IncidentSet keeps the record type", () => {
    const set = new IncidentSet([{ IncidentId: 1, Number: "INC-1" }]);
    expectTypeOf(set.findFirst({})).toEqualTypeOf<{ IncidentId: number; Number: string } | undefined>();
  });

  it("the search methods take a parsed Condition or raw Search Conditions JSON, not any value", () => {
    const set = new IncidentSet([{ IncidentId: 1, Severity: "High" }]);
    type Input = Condition | SearchConditionsJson | readonly SearchConditionsJson[];
    expectTypeOf<SearchConditionsInput>().toEqualTypeOf<
      SearchConditionsJson | readonly SearchConditionsJson[]
    >();
    expectTypeOf(set.findFirst).parameter(0).toEqualTypeOf<Input>();
    expectTypeOf(set.findAll).parameter(0).toEqualTypeOf<Input>();
    expectTypeOf(set.count).parameter(0).toEqualTypeOf<Input>();
    expectTypeOf(set.explain).parameter(0).toEqualTypeOf<Input>();
    expectTypeOf(set.findFirst).parameter(0).not.toBeUnknown();
    set.findFirst({ Severity: "High" });
    set.findFirst([{ Severity: "High" }, { Severity: "Low" }]);
    set.findFirst(parseSearchConditions({ Severity: "High" }));
    // @ts-expect-error: a number is not Search Conditions
    set.findFirst(1);
    // @ts-expect-error: nor is a string (raw text is parsed by the caller: JSON.parse, then parseSearchConditions)
    set.count("Severity");
    // @ts-expect-error: nor an array of strings
    set.findAll(["Severity"]);
    // Input of unknown type goes through the parser, which takes any value.
    const untrusted: unknown = JSON.parse('{"Severity":"High"}');
    // @ts-expect-error: unknown is not accepted as it is
    set.findFirst(untrusted);
    set.findFirst(parseSearchConditions(untrusted));
  });

  it("the AST is a discriminated union: narrowing by kind", () => {
    const condition = parseSearchConditions({ Severity: "High" });
    if (condition.kind === "eq") expectTypeOf(condition.path).toEqualTypeOf<readonly string[]>();
    // @ts-expect-error: no such node kind
    if (condition.kind === "regexp") void condition;
  });

  it("queryTimeline returns entries of the type it is given", () => {
    const entries: TimelineEntry[] = [];
    expectTypeOf(queryTimeline(entries, { sortOrder: "desc" })).toEqualTypeOf<TimelineEntry[]>();
    // The specification's tokens are accepted as they are; a non-string is not.
    queryTimeline(entries, { sortOrder: "DESC" });
    // @ts-expect-error: a sort order is a string
    queryTimeline(entries, { sortOrder: 1 });
  });
});
