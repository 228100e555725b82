/**
 * Envelope problems are data: each code, a body that produces it, and its sentence; the parameter
 * reader's sentences come from the same message function.
 */
import { describe, expect, it } from "vitest";
import {
  type EnvelopeIssueCode,
  type EnvelopeIssueDetail,
  envelopeIssueMessage,
  ParamReader,
  readEnvelope,
} from "./envelope.js";
import { INVALID_JSON } from "./handler-types.js";
import { MESSAGES } from "./wire.js";

describe("readEnvelope issues", () => {
  it.each([
    ["invalid JSON", INVALID_JSON, "found text that is not JSON"],
    ["an array", [], "found an empty array"],
    ["null", null, "found null"],
  ])("refuses a body that is %s with the fixed message and an invalid_body issue", (_name, body, found) => {
    const result = readEnvelope(body);
    if (result.ok) throw new Error("expected a refusal");
    expect(result.message).toBe(MESSAGES.badBody);
    expect(result.issues).toEqual([
      { code: "invalid_body", message: `Expected the body of the request to be a JSON object, ${found}.` },
    ]);
  });

  it("lists every field problem as a coded issue, and the 400 message joins their sentences", () => {
    const result = readEnvelope({ Username: " ", CommandParams: [1] });
    if (result.ok) throw new Error("expected a refusal");
    expect(result.issues).toEqual([
      { code: "invalid_field", message: `'Username' must be a non-empty string, found the string " ".` },
      { code: "missing_field", message: "'Site' is missing: expected a non-empty string, found nothing." },
      { code: "invalid_field", message: "'CommandParams' must be a JSON object, found an array." },
    ]);
    expect(result.message).toBe(
      `Invalid request body: 'Username' must be a non-empty string, found the string " "; 'Site' is missing: expected a non-empty string, found nothing; 'CommandParams' must be a JSON object, found an array.`,
    );
  });

  it("accepts a valid envelope", () => {
    expect(readEnvelope({ Username: "a", Site: "HQ", CommandParams: {}, Timestamp: 1 })).toEqual({
      ok: true,
      envelope: { username: "a", site: "HQ", params: {} },
    });
  });
});

describe("envelopeIssueMessage", () => {
  /** One detail per code; a `Record` over the codes, so that a new code without a case does not compile. */
  const CASES: Record<EnvelopeIssueCode, [EnvelopeIssueDetail, string]> = {
    invalid_body: [
      { code: "invalid_body", found: "{}" },
      `Expected the body of the request to be a JSON object, found the string "{}".`,
    ],
    missing_field: [
      { code: "missing_field", field: "CommandParams", expected: "a JSON object" },
      "'CommandParams' is missing: expected a JSON object, found nothing.",
    ],
    invalid_field: [
      { code: "invalid_field", field: "Site", expected: "a non-empty string", found: 3 },
      "'Site' must be a non-empty string, found the number 3.",
    ],
    missing_parameter: [{ code: "missing_parameter", name: "Note" }, "Missing required parameter 'Note'."],
    near_miss_parameter: [
      { code: "near_miss_parameter", key: "DryRun", name: "Dry Run" },
      "Unknown parameter 'DryRun': did you mean 'Dry Run'?",
    ],
    invalid_parameter: [
      { code: "invalid_parameter", name: "Filter", expected: "a string", found: [] },
      "Parameter 'Filter' must be a string, found an empty array.",
    ],
    empty_parameter: [{ code: "empty_parameter", name: "Note" }, "Parameter 'Note' must not be empty."],
  };
  it.each(Object.entries(CASES))("words %s as one sentence", (_code, [detail, message]) => {
    expect(envelopeIssueMessage(detail)).toBe(message);
  });
});

describe("ParamReader", () => {
  it("words its problems by envelopeIssueMessage", () => {
    const reader = new ParamReader({ Note: " ", Filter: 3 }, ["Incident Number", "Note", "Filter"]);
    expect(reader.requiredString("Incident Number")).toBeUndefined();
    expect(reader.requiredString("Note")).toBeUndefined();
    expect(reader.optionalString("Filter")).toBeUndefined();
    expect(reader.problems).toEqual([
      envelopeIssueMessage({ code: "missing_parameter", name: "Incident Number" }),
      envelopeIssueMessage({ code: "empty_parameter", name: "Note" }),
      envelopeIssueMessage({ code: "invalid_parameter", name: "Filter", expected: "a string", found: 3 }),
    ]);
    expect(reader.message()).toBe(
      "Missing required parameter 'Incident Number'. Parameter 'Note' must not be empty. Parameter 'Filter' must be a string, found the number 3.",
    );
  });
});

describe("ParamReader and the declared parameters", () => {
  it("refuses to read a name the command did not declare (the near-miss check would not cover it)", () => {
    const reader = new ParamReader({ Note: "n" }, ["Note"]);
    expect(reader.raw("Note")).toBe("n");
    expect(() => reader.raw("Notes")).toThrow(
      "'Notes' is read but not declared among the command's parameters.",
    );
  });
});
