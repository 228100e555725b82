/**
 * Near misses of field names by spelling are warnings (docs/semantics.md 1.1, "Near misses by spelling"): a
 * key outside an open catalogue within a few edits of a catalogue field stays an open field and is reported
 * beside the condition, with its path and the suggested field as typed detail; with a strict catalogue it
 * is an error. The table holds near and not-near names, legitimate custom fields among the latter.
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG, extendCatalog } from "./catalog.js";
import { safeParseSearchConditions } from "./parse.js";
import { suggestField } from "./suggest-label.js";

const FIELDS = Object.keys(DEFAULT_CATALOG.fields);

describe("suggestField: the nearness of field names", () => {
  it.each([
    // [key, suggested field]: one edit up to 5 characters, two from 6 to 8, three from 9 on.
    ["Sevrity", "Severity"],
    ["Severty", "Severity"],
    ["Sevirity", "Severity"],
    ["Titel", "Title"],
    ["Titl", "Title"],
    ["Typ", "Type"],
    ["Tpye", "Type"],
    ["Numbr", "Number"],
    ["Stauts", "Status"],
    ["DataSorce", "DataSource"],
    ["IngestionTpye", "IngestionType"],
    ["IngestType", "IngestionType"],
    ["CreatedUtcTme", "CreatedUtcTime"],
    ["CreatedTime", "CreatedUtcTime"],
    ["ExternalKy", "ExternalKey"],
    ["Catgory", "Category"],
    ["Custom Field1x", "CustomField1"],
  ])("%s is near %s", (key, field) => {
    expect(suggestField(key, FIELDS)).toBe(field);
  });

  it.each([
    // Legitimate custom fields and other names that are not misspellings.
    ["Custom.Owner"],
    ["Custom.Priority"],
    ["Owner"],
    ["Score"],
    ["Tags"],
    ["SeenAt"],
    ["Site"],
    ["Host"],
    ["Priority"],
    ["CustomField3"], // a numbered sibling of CustomField1
    ["Title2"], // a numbered sibling of Title
    ["Cat"], // a prefix of Category: a field of its own as likely as a cut-short name
    ["Conn"],
    ["Stat"], // a prefix of Status, two edits from Stage
    ["Sev"],
    ["Severity.Name"],
    ["AssetTag"],
    ["Connections2Check"],
    ["x"],
    ["severity"], // equal once folded: the unknown_field error, not this warning
    ["Created_UTC_Time"],
    ["Severity"], // a catalogue field itself
  ])("%s is not near any field", (key) => {
    expect(suggestField(key, FIELDS)).toBeUndefined();
  });
});

describe("safeParseSearchConditions: warnings beside the condition", () => {
  it.each([
    [{ Sevrity: "High" }, ["Sevrity"], "Severity"],
    [{ Titel: { $regex: "^Phish" } }, ["Titel"], "Title"],
    [{ Status: "Open", Severty: "High" }, ["Severty"], "Severity"],
    [{ $or: [{ Title: "x" }, { Typ: "Phishing" }] }, ["$or", 1, "Typ"], "Type"],
    [[{ Numbr: "20240101-1" }], [0, "Numbr"], "Number"],
    [{ $nor: [{ Stauts: "Closed" }] }, ["$nor", 0, "Stauts"], "Status"],
  ])("%j: one warning at %j suggesting %s, and the condition", (input, path, suggestion) => {
    const result = safeParseSearchConditions(input);
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.warnings).toEqual([
      {
        code: "possible_misspelling",
        path,
        suggestion,
        expected: "a field of the catalogue",
        found: path.at(-1),
        message: `'${String(path.at(-1))}' is not a field of the catalogue (kept as an open field, matched as written); did you mean '${suggestion}'?`,
      },
    ]);
    // The key stays an open field, matched as written.
    expect(JSON.stringify(result.condition)).toContain(`"${String(path.at(-1))}"`);
  });

  it("no warnings for catalogue fields and custom fields", () => {
    const result = safeParseSearchConditions({
      Severity: "High",
      "Custom.Owner": "bob",
      CustomField3: "x",
      Score: { $gt: 5 },
      Site: "EMEA SOC",
    });
    expect(result.success && result.warnings).toEqual([]);
  });

  it("a warning per near miss, in the order met", () => {
    const result = safeParseSearchConditions({ Sevrity: "High", Titel: "x" });
    expect(result.success && result.warnings.map((w) => [w.path, w.suggestion])).toEqual([
      [["Sevrity"], "Severity"],
      [["Titel"], "Title"],
    ]);
  });

  it("a case or spacing near miss stays an error (unknown_field), not a warning", () => {
    const result = safeParseSearchConditions({ severity: "High" });
    expect(result.success).toBe(false);
    if (!result.success)
      expect(result.issues[0]).toMatchObject({ code: "unknown_field", suggestion: "Severity" });
  });

  it("with strictFields the misspelling is an error that suggests the field", () => {
    const strict = extendCatalog(DEFAULT_CATALOG, { strictFields: true });
    const result = safeParseSearchConditions({ Sevrity: "High" }, { catalog: strict });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.issues).toEqual([
        expect.objectContaining({ code: "unknown_field", path: ["Sevrity"], suggestion: "Severity" }),
      ]);
    }
  });

  it("a catalogue's own fields: a custom field's near miss warns with it", () => {
    const catalog = extendCatalog(DEFAULT_CATALOG, { fields: { "Custom.Owner": { kind: "text" } } });
    const result = safeParseSearchConditions({ "Custom.Ownr": "bob" }, { catalog });
    expect(result.success && result.warnings.map((w) => w.suggestion)).toEqual(["Custom.Owner"]);
  });

  it("issues carry typed detail: suggestion, expected, found", () => {
    const result = safeParseSearchConditions({ Severity: "Hihg", Title: 5 });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues[0]).toMatchObject({
      code: "unknown_label",
      suggestion: "High",
      found: "Hihg",
      expected: "one of 'Critical', 'High', 'Medium', 'Low', 'Informational'",
    });
    expect(result.issues[1]).toMatchObject({ code: "operand_type", found: "the number 5" });
  });
});
