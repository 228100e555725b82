/**
 * Runs the issue conformance cases (issue-cases.ts) against the parser, and checks that the valid samples
 * of specification section 2.3 parse.
 */
import { describe, expect, it } from "vitest";
import type { Condition } from "../../src/conditions/ast.js";
import type { IssueCode, LimitName } from "../../src/conditions/issues.js";
import { SearchConditionsError } from "../../src/conditions/issues.js";
import type { ParseOptions } from "../../src/conditions/options.js";
import { parseSearchConditions, safeParseSearchConditions } from "../../src/conditions/parse.js";
import { issueCases } from "./issue-cases.js";
import type { IssueCase } from "./types.js";

function optionsOf(c: IssueCase): ParseOptions {
  const options = { ...(c.options ?? {}) } as ParseOptions;
  return c.catalog === undefined ? options : { ...options, catalog: c.catalog };
}

function issueKeys(issues: readonly { code: string; path: readonly (string | number)[] }[]): string[] {
  return [...new Set(issues.map((issue) => JSON.stringify([issue.code, issue.path])))].sort();
}

describe("issue conformance cases", () => {
  it("has at least 80 cases with unique names", () => {
    expect(issueCases.length).toBeGreaterThanOrEqual(80);
    expect(new Set(issueCases.map((c) => c.name)).size).toBe(issueCases.length);
  });

  it("covers every issue code", () => {
    const codes: readonly IssueCode[] = [
      "invalid_type",
      "empty_array",
      "unknown_operator",
      "misplaced_operator",
      "forbidden_key",
      "invalid_field_path",
      "mixed_operator_object",
      "object_value",
      "array_value",
      "invalid_date",
      "date_operand_required",
      "operand_type",
      "unknown_label",
      "empty_alternative",
      "invalid_regex",
      "invalid_regex_options",
      "invalid_size",
      "limit_exceeded",
    ];
    const covered = new Set(issueCases.flatMap((c) => c.issues.map((issue) => issue.code)));
    expect(codes.filter((code) => !covered.has(code))).toEqual([]);
  });

  it("covers every limit, overridden and at its default", () => {
    const limits: readonly LimitName[] = ["depth", "nodes", "setSize", "stringLength", "patternLength"];
    const limitCases = issueCases.filter((c) => c.issues.some((issue) => issue.code === "limit_exceeded"));
    for (const limit of limits) {
      const overridden = limitCases.filter((c) => {
        const options = c.options as { limits?: Record<string, number> } | undefined;
        return options?.limits?.[limit] !== undefined;
      });
      const atDefault = limitCases.filter(
        (c) => c.options === undefined && c.name.startsWith(`default ${limit}`),
      );
      expect({ limit, overridden: overridden.length > 0, atDefault: atDefault.length > 0 }).toEqual({
        limit,
        overridden: true,
        atDefault: true,
      });
    }
  });

  it.each(issueCases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const options = optionsOf(c);
    const result = safeParseSearchConditions(c.conditions, options);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(issueKeys(result.issues)).toEqual(issueKeys(c.issues));
    for (const issue of result.issues) {
      expect(issue.message).toMatch(/^\S.*[.?]$/s);
    }
    if (c.messageIncludes !== undefined) expect(result.issues[0].message).toContain(c.messageIncludes);

    // The throwing API reports the same issues.
    let thrown: unknown;
    try {
      parseSearchConditions(c.conditions, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SearchConditionsError);
    expect((thrown as SearchConditionsError).issues).toEqual(result.issues);
  });
});

describe("valid samples of specification section 2.3", () => {
  const date = (iso: string) => ({ type: "date", value: Date.parse(iso) }) as const;

  it("parses the documented sample into the expected condition", () => {
    const condition = parseSearchConditions({
      IngestionType: "Webhook|File",
      Title: { $regex: "^Phish" },
      Severity: { $in: ["High"] },
      CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } },
    });
    const expected: Condition = {
      kind: "and",
      children: [
        {
          kind: "in",
          path: ["IngestionType"],
          fieldKind: "enum",
          operands: [
            { type: "string", value: "Webhook" },
            { type: "string", value: "File" },
          ],
          fromPipe: true,
        },
        { kind: "regex", path: ["Title"], fieldKind: "text", source: "^Phish", flags: "" },
        {
          kind: "in",
          path: ["Severity"],
          fieldKind: "enum",
          operands: [{ type: "string", value: "High" }],
          fromPipe: false,
        },
        {
          kind: "range",
          path: ["CreatedUtcTime"],
          fieldKind: "date",
          lower: { operand: date("2024-01-01T00:00:00Z"), inclusive: false },
        },
      ],
    };
    expect(condition).toEqual(expected);
  });

  const samples: readonly (readonly [string, unknown])[] = [
    [
      "every documented text field as a string",
      {
        Number: "20240101-1",
        Type: "Phishing",
        Stage: "Triage",
        DataSource: "Mail",
        IncidentSource: "SIEM",
        Connection: "Exchange",
        Category: "Email",
        ExternalKey: "EXT-1",
        CustomField1: "a",
        CustomField2: "b",
        Title: "Suspicious mail",
      },
    ],
    ["Status as a string", { Status: "Open" }],
    ["Status alternatives", { Status: "Open|In Progress" }],
    ["IngestionType alternatives with spaces", { IngestionType: "Schedule Job | Webhook|Manual Creation" }],
    ["Severity as a string", { Severity: "Critical" }],
    ["Severity as $in", { Severity: { $in: ["Critical", "High"] } }],
    ["Title as a regular expression with options", { Title: { $regex: "phish", $options: "i" } }],
    [
      "CreatedUtcTime between two dates",
      {
        CreatedUtcTime: {
          $gt: { $date: "2024-01-01T00:00:00Z" },
          $lt: { $date: "2024-12-31T23:59:59.999Z" },
        },
      },
    ],
    ["a number on an open field", { RiskScore: 80 }],
    ["an array of objects (OR)", [{ Severity: "High" }, { Title: { $regex: "^Phish" } }]],
  ];

  it.each(samples)("parses: %s", (_name, sample) => {
    const result = safeParseSearchConditions(sample);
    expect(result.success ? "ok" : result.issues).toBe("ok");
  });

  it("reads the between-dates sample as one range with both bounds", () => {
    expect(
      parseSearchConditions({
        CreatedUtcTime: {
          $gt: { $date: "2024-01-01T00:00:00Z" },
          $lt: { $date: "2024-12-31T23:59:59.999Z" },
        },
      }),
    ).toEqual({
      kind: "range",
      path: ["CreatedUtcTime"],
      fieldKind: "date",
      lower: { operand: date("2024-01-01T00:00:00Z"), inclusive: false },
      upper: { operand: date("2024-12-31T23:59:59.999Z"), inclusive: false },
    });
  });
});
