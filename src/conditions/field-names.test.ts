/**
 * Field-name near misses and strict catalogues (docs/semantics.md 1.1), and the `$date` hint for JS Date
 * operands (docs/semantics.md 1.4; docs/semantics.md 1.1, 1.2).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG, extendCatalog, foldFieldName, nearMissField } from "./catalog.js";
import type { SearchConditionsError } from "./issues.js";
import { parseSearchConditions, safeParseSearchConditions } from "./parse.js";

function messages(input: unknown, catalog = DEFAULT_CATALOG): string[] {
  const result = safeParseSearchConditions(input, { catalog });
  return result.success ? [] : result.issues.map((issue) => issue.message);
}

describe("field-name near misses (docs/semantics.md 1.1)", () => {
  it.each([
    ["severity", "Severity"],
    ["SEVERITY", "Severity"],
    ["Created_UTC_Time", "CreatedUtcTime"],
    ["created utc time", "CreatedUtcTime"],
    ["ingestion-type", "IngestionType"],
    ["Custom_Field_1", "CustomField1"],
    ["external key", "ExternalKey"],
  ])("%s names %s", (key, field) => {
    expect(nearMissField(DEFAULT_CATALOG, key)).toBe(field);
    expect(messages({ [key]: { $exists: true } })).toEqual([
      `'${key}' is not a field of the catalogue: field names are case-sensitive; did you mean '${field}'?`,
    ]);
  });

  it.each(["Severity", "Sev", "Severities", "Custom.Severity", "Title2", "Owner", "toString", "a.b"])(
    "%s is not a near miss",
    (key) => {
      expect(nearMissField(DEFAULT_CATALOG, key)).toBeUndefined();
      expect(() => parseSearchConditions({ [key]: { $exists: true } })).not.toThrow();
    },
  );

  it("folds case, spaces, underscores and hyphens only", () => {
    expect(foldFieldName("Created_UTC -Time")).toBe("createdutctime");
    expect(foldFieldName("Custom.Owner")).toBe("custom.owner");
  });

  it("uses the catalogue it is given: an extended catalogue's fields, a plain object catalogue too", () => {
    const catalog = extendCatalog(DEFAULT_CATALOG, { fields: { "Sla.Due": { kind: "date" } } });
    expect(messages({ "sla.due": { $exists: true } }, catalog)).toEqual([
      "'sla.due' is not a field of the catalogue: field names are case-sensitive; did you mean 'Sla.Due'?",
    ]);
    const plain = { fields: { Owner: { kind: "text" as const } }, alternativeFields: [] };
    expect(messages({ owner: "x" }, plain)).toHaveLength(1);
    expect(messages({ Severity: "x" }, plain)).toEqual([]);
  });

  it("reports near misses everywhere, with their paths", () => {
    try {
      parseSearchConditions([{ Title: "x" }, { $nor: [{ status: "Open" }] }]);
      expect.unreachable();
    } catch (error) {
      expect((error as SearchConditionsError).issues.map((issue) => [issue.code, issue.path])).toEqual([
        ["unknown_field", [1, "$nor", 0, "status"]],
      ]);
    }
  });
});

describe("strict catalogues (docs/semantics.md 1.1)", () => {
  const strict = extendCatalog(DEFAULT_CATALOG, { strictFields: true });

  it("refuses every key outside the catalogue, suggesting the nearest field when one is near", () => {
    expect(messages({ Titel: "x", Score: 1, Severity: "High" }, strict)).toEqual([
      "'Titel' is not a field of the catalogue, which allows only its own fields; did you mean 'Title'?",
      "'Score' is not a field of the catalogue, which allows only its own fields.",
    ]);
    expect(
      messages({ Title: "x", CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } }, strict),
    ).toEqual([]);
  });

  it("is kept by extensions unless they say otherwise, and can be turned off", () => {
    const extended = extendCatalog(strict, { fields: { Owner: { kind: "text" } } });
    expect(extended.strictFields).toBe(true);
    expect(messages({ Owner: "x" }, extended)).toEqual([]);
    expect(messages({ Score: 1 }, extended)).toHaveLength(1);
    const open = extendCatalog(strict, { strictFields: false });
    expect(open.strictFields).toBeUndefined();
    expect(messages({ Score: 1 }, open)).toEqual([]);
    expect(DEFAULT_CATALOG.strictFields).toBeUndefined();
  });

  it("refuses a strictFields that is not a boolean", () => {
    expect(() => extendCatalog(DEFAULT_CATALOG, { strictFields: "yes" as unknown as boolean })).toThrow(
      new TypeError("strictFields must be a boolean, found string."),
    );
  });
});

describe("a JS Date operand: the $date to write (docs/semantics.md 1.4)", () => {
  it("shows the Date's own instant, read through the intrinsic getTime", () => {
    const date = new Date("2024-03-01T12:00:00Z");
    Object.defineProperty(date, "getTime", { value: () => 0 });
    Object.defineProperty(date, "toISOString", {
      value: () => {
        throw new Error("called");
      },
    });
    expect(messages({ CreatedUtcTime: { $gt: date } })).toEqual([
      'Expected a string, number, boolean, null or {"$date": …} operand for $gt, found a Date; write {"$date": "2024-03-01T12:00:00.000Z"} instead.',
    ]);
  });

  it.each([
    ["an invalid Date", new Date(Number.NaN)],
    ["a Date past the year 9999", new Date(Date.UTC(10_000, 0, 1))],
    ["an object that only claims to be a Date", Object.create(Date.prototype) as Date],
  ])("gives no hint for %s", (_name, value) => {
    expect(messages({ CreatedUtcTime: { $lt: value } })).toEqual([
      'Expected a string, number, boolean, null or {"$date": …} operand for $lt, found a Date.',
    ]);
  });

  it("inside $date, shows the string to write", () => {
    expect(messages({ CreatedUtcTime: { $date: new Date("2024-03-01T12:00:00Z") } })).toEqual([
      'Expected a date of the format yyyy-MM-ddTHH:mm:ssZ (e.g. 2024-03-01T12:00:00Z) or {"$numberLong": "<epoch ms>"}, found a Date; write "2024-03-01T12:00:00.000Z" instead.',
    ]);
  });

  it("the written hint parses to the same instant", () => {
    const date = new Date(Date.UTC(2023, 6, 4, 5, 6, 7, 89));
    const [message] = messages({ SeenAt: { $in: [date] } });
    const hint = /write (\{.*\}) instead/.exec(message ?? "")?.[1];
    const condition = parseSearchConditions({ SeenAt: { $in: [JSON.parse(hint ?? "null")] } });
    expect(condition).toMatchObject({ operands: [{ type: "date", value: date.getTime() }] });
  });
});
