/**
 * TriggerIncidentExternalAction and possible misspellings of field names (docs/semantics.md 1.1, "Near
 * misses by spelling"; 3.3): a condition with one still runs (the key is an open field), and when no
 * incident matches, the error names each warning with the field it may mean.
 */
import { describe, expect, it } from "vitest";
import { setup } from "../../test/support/commands-fixtures.js";

const COMMAND = "TriggerIncidentExternalAction";

function errorOf(response: { body: unknown }): string {
  return (response.body as { error: string }).error;
}

describe("TriggerIncidentExternalAction: near-miss field names", () => {
  it.each([
    [{ Sevrity: "High" }, ["Sevrity: 'Sevrity' is not a field of the catalogue", "did you mean 'Severity'?"]],
    [{ Titel: { $regex: "^Phish" }, Status: "Open" }, ["Titel: ", "did you mean 'Title'?"]],
    [
      [{ Typ: "Phishing" }, { Severty: "Low" }],
      ["[0].Typ: ", "did you mean 'Type'?", "[1].Severty: ", "did you mean 'Severity'?"],
    ],
  ])("%j: 'No incident matches', then a Warning line per near miss", async (conditions, parts) => {
    const { call } = setup();
    const error = errorOf(await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": {} }));
    const [first, ...warnings] = error.split("\n");
    expect(first).toBe("No incident matches the Search Conditions.");
    expect(warnings.length).toBe(
      parts.filter((p) => p.endsWith(": ") || p.includes("is not a field")).length,
    );
    for (const warning of warnings) expect(warning).toMatch(/^Warning: /);
    for (const part of parts) expect(error).toContain(part);
  });

  it("without a near miss, the error is the sentence alone", async () => {
    const { call } = setup();
    const error = errorOf(
      await call(COMMAND, { "Search Conditions": { Title: "no such title" }, "Trigger Data": {} }),
    );
    expect(error).toBe("No incident matches the Search Conditions.");
  });

  it("a near-miss key is an open field, matched as written: an incident holding it is found", async () => {
    const { call } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": { Sevrity: { $exists: false }, Severity: "High" },
      "Trigger Data": {},
    });
    expect((response.body as { returnData: { Status: string } }).returnData.Status).toBe("Successful");
  });
});
