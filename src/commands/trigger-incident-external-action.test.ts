/**
 * TriggerIncidentExternalAction through the handler and the memory backend (specification 4.2, 6.1;
 * docs/semantics.md 1.9, 3): success, each missing and ill-typed parameter, not found, exact bodies, and
 * the Trigger Data delivered to each playbook as its own deep copy.
 */
import { describe, expect, it } from "vitest";
import { BERLIN, HQ, NOW, setup, successful } from "../../test/support/commands-fixtures.js";

const COMMAND = "TriggerIncidentExternalAction";

function failure(error: string) {
  return { status: 200, body: { error, returnData: { Status: "Failed", Data: {} } } };
}

function errorOf(response: { body: unknown }): string {
  return (response.body as { error: string }).error;
}

describe("TriggerIncidentExternalAction: success", () => {
  it("runs the playbooks of the first matching incident (earliest CreatedUtcTime) and reports them", async () => {
    const { call, backend } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": { Severity: "High" },
      "Trigger Data": { ticket: "INC-42", tags: ["vip"] },
    });
    // Incidents 1 and 2 are High; 2 was created first. It is a Malware incident: only Enrichment runs.
    expect(response).toEqual(
      successful({
        IncidentId: 2,
        IncidentNo: "20240101-2",
        TriggeredPlaybooks: [{ RuntimeId: 1, PlaybookName: "Enrichment" }],
      }),
    );
    expect(backend.runs()).toEqual([
      {
        runtimeId: 1,
        playbookName: "Enrichment",
        site: HQ,
        incidentId: 2,
        incidentNumber: "20240101-2",
        triggerData: { ticket: "INC-42", tags: ["vip"] },
        time: NOW,
      },
    ]);
  });

  it("runs every playbook with the trigger for the incident's Type, in order, with increasing RuntimeIds", async () => {
    const { call } = setup();
    const first = await call(COMMAND, {
      "Search Conditions": { Title: { $regex: "^Credential" } },
      "Trigger Data": {},
    });
    const second = await call(COMMAND, {
      "Search Conditions": [{ Number: "20240101-1" }],
      "Trigger Data": {},
    });
    const expected = (a: number, b: number) =>
      successful({
        IncidentId: 1,
        IncidentNo: "20240101-1",
        TriggeredPlaybooks: [
          { RuntimeId: a, PlaybookName: "Phishing Triage" },
          { RuntimeId: b, PlaybookName: "Enrichment" },
        ],
      });
    expect(first).toEqual(expected(1, 2));
    expect(second).toEqual(expected(3, 4));
  });

  it("runs site-scoped playbooks only in their site", async () => {
    const { call } = setup();
    const response = await call(
      COMMAND,
      { "Search Conditions": { Type: "Phishing" }, "Trigger Data": {} },
      { site: BERLIN },
    );
    expect(response.body).toEqual(
      successful({
        IncidentId: 3,
        IncidentNo: "20240102-1",
        TriggeredPlaybooks: [
          { RuntimeId: 1, PlaybookName: "Phishing Triage" },
          { RuntimeId: 2, PlaybookName: "Enrichment" },
          { RuntimeId: 3, PlaybookName: "Berlin Privacy Review" },
        ],
      }).body,
    );
  });

  it("succeeds with no playbooks when none has the trigger for the incident", async () => {
    const { call, backend } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": { Type: "Policy Violation" },
      "Trigger Data": { a: 1 },
    });
    expect(response.body).toEqual({
      error: "",
      returnData: {
        Status: "Successful",
        Data: { IncidentId: 4, IncidentNo: "20240103-1", TriggeredPlaybooks: [] },
      },
    });
    expect(backend.runs()).toEqual([]);
  });

  it("looks only at the incidents of the request's site", async () => {
    const { call } = setup();
    // Incident 3 (Low) lives in Berlin: HQ has no Low incident.
    expect(await call(COMMAND, { "Search Conditions": { Severity: "Low" }, "Trigger Data": {} })).toEqual(
      failure("No incident matches the Search Conditions."),
    );
  });

  it("gives each playbook its own deep copy of the Trigger Data", async () => {
    const { call, backend } = setup();
    const triggerData = { nested: { list: [1, { deep: "x" }] }, n: null, ok: true };
    await call(COMMAND, { "Search Conditions": { IncidentId: 1 }, "Trigger Data": triggerData });
    const [a, b] = backend.runs();
    expect(a!.triggerData).toEqual(triggerData);
    expect(b!.triggerData).toEqual(triggerData);
    expect(a!.triggerData).not.toBe(triggerData);
    expect(a!.triggerData.nested).not.toBe(b!.triggerData.nested);
    // Changing the caller's object, or one run's data, changes nothing else.
    triggerData.nested.list.push(2);
    (a!.triggerData.nested as { list: unknown[] }).list.length = 0;
    expect(b!.triggerData).toEqual({ nested: { list: [1, { deep: "x" }] }, n: null, ok: true });
  });

  it("accepts Trigger Data keys that only look dangerous", async () => {
    const { call, backend } = setup();
    const triggerData = { __proto: 1, proto: 2, Constructor: 3, $where: "x" };
    const response = await call(COMMAND, {
      "Search Conditions": { IncidentId: 2 },
      "Trigger Data": triggerData,
    });
    expect(errorOf(response)).toBe("");
    expect(backend.runs()[0]!.triggerData).toEqual(triggerData);
  });
});

describe("TriggerIncidentExternalAction: failures", () => {
  const conditions = { Severity: "High" };
  it.each([
    ["Search Conditions absent", { "Trigger Data": {} }, "Missing required parameter 'Search Conditions'."],
    [
      "Search Conditions null",
      { "Search Conditions": null, "Trigger Data": {} },
      "Missing required parameter 'Search Conditions'.",
    ],
    [
      "Trigger Data absent",
      { "Search Conditions": conditions },
      "Missing required parameter 'Trigger Data'.",
    ],
    [
      "Trigger Data null",
      { "Search Conditions": conditions, "Trigger Data": null },
      "Missing required parameter 'Trigger Data'.",
    ],
    [
      "both absent",
      {},
      "Missing required parameter 'Search Conditions'. Missing required parameter 'Trigger Data'.",
    ],
    [
      "Trigger Data misspelled",
      { "Search Conditions": conditions, TriggerData: {} },
      "Unknown parameter 'TriggerData': did you mean 'Trigger Data'? Nothing was done: parameter names are exact (case, spaces, '_' and '-' count).",
    ],
    [
      "Search Conditions a string that is not JSON",
      { "Search Conditions": "Severity=High", "Trigger Data": {} },
      `Parameter 'Search Conditions' must be a JSON object or array, or a string holding one, found the string "Severity=High".`,
    ],
    [
      "Search Conditions a string holding a JSON string",
      { "Search Conditions": '"Severity"', "Trigger Data": {} },
      `Parameter 'Search Conditions' must be a JSON object or array, or a string holding one, found the string "\\"Severity\\"".`,
    ],
    [
      "Search Conditions a string holding broken JSON",
      { "Search Conditions": '{"Severity": "High"', "Trigger Data": {} },
      `Parameter 'Search Conditions' must be a JSON object or array, or a string holding one, found the string "{\\"Severity\\": \\"High\\"" (not valid JSON).`,
    ],
    [
      "Search Conditions a string holding {}",
      { "Search Conditions": " {} ", "Trigger Data": {} },
      "Parameter 'Search Conditions' must not be empty: {} would match every incident.",
    ],
    [
      "Search Conditions a number",
      { "Search Conditions": 1, "Trigger Data": {} },
      "Parameter 'Search Conditions' must be a JSON object or array, found the number 1.",
    ],
    [
      "Search Conditions empty",
      { "Search Conditions": {}, "Trigger Data": {} },
      "Parameter 'Search Conditions' must not be empty: {} would match every incident.",
    ],
    [
      "Trigger Data an array",
      { "Search Conditions": conditions, "Trigger Data": [1] },
      "Parameter 'Trigger Data' must be a JSON object, found an array.",
    ],
    [
      "Trigger Data a string",
      { "Search Conditions": conditions, "Trigger Data": "a=1" },
      `Parameter 'Trigger Data' must be a JSON object, or a string holding one, found the string "a=1".`,
    ],
    [
      "Trigger Data a string holding an array",
      { "Search Conditions": conditions, "Trigger Data": "[1]" },
      `Parameter 'Trigger Data' must be a JSON object, or a string holding one, found the string "[1]".`,
    ],
    [
      "Trigger Data a string holding a forbidden key",
      { "Search Conditions": conditions, "Trigger Data": '{"a": {"__proto__": {"x": 1}}}' },
      "Parameter 'Trigger Data' must not contain the key '__proto__' (at a.__proto__).",
    ],
    [
      "Search Conditions a string repeating a key (JSON.parse would keep the last silently)",
      { "Search Conditions": '{"Type": "Phishing", "Type": "Malware"}', "Trigger Data": {} },
      "Parameter 'Search Conditions' repeats the key 'Type' in one object (at Type): each key may appear once.",
    ],
    [
      "Search Conditions a string repeating an escaped key in an array",
      {
        "Search Conditions": '[{"Severity": "High"}, {"$or": [{"a": 1, "\\u0061": 2}]}]',
        "Trigger Data": {},
      },
      "Parameter 'Search Conditions' repeats the key 'a' in one object (at [1].$or[0].a): each key may appear once.",
    ],
    [
      "Trigger Data a string repeating a key",
      { "Search Conditions": conditions, "Trigger Data": '{"ticket": "A", "ticket": "B"}' },
      "Parameter 'Trigger Data' repeats the key 'ticket' in one object (at ticket): each key may appear once.",
    ],
    [
      "Trigger Data a number",
      { "Search Conditions": conditions, "Trigger Data": 3 },
      "Parameter 'Trigger Data' must be a JSON object, found the number 3.",
    ],
  ])("%s", async (_name, params, message) => {
    const { call, backend } = setup();
    expect(await call(COMMAND, params)).toEqual(failure(message));
    expect(backend.runs()).toEqual([]);
  });

  it.each([
    ["__proto__", JSON.parse('{"a": {"__proto__": {"polluted": true}}}'), "(at a.__proto__)"],
    ["constructor", { list: [{ constructor: { prototype: {} } }] }, "(at list[0].constructor)"],
    ["prototype", { prototype: 1 }, "(at prototype)"],
  ])("refuses the key %s anywhere in Trigger Data", async (key, triggerData, where) => {
    const { call, backend } = setup();
    const response = await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": triggerData });
    expect(response).toEqual(failure(`Parameter 'Trigger Data' must not contain the key '${key}' ${where}.`));
    expect(backend.runs()).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses Trigger Data nested beyond the depth limit", async () => {
    const { call } = setup({ triggerDataLimits: { maxDepth: 3 } });
    expect(
      errorOf(await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": { a: { b: {} } } })),
    ).toBe("");
    expect(
      await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": { a: { b: { c: {} } } } }),
    ).toEqual(failure("Parameter 'Trigger Data' must be nested at most 3 levels deep (too deep at a.b.c)."));
  });

  it("refuses very deep Trigger Data with the default limit, without overflowing the stack", async () => {
    const { call } = setup();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const response = await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": deep });
    expect(errorOf(response)).toMatch(/^Parameter 'Trigger Data' must be nested at most 32 levels deep/);
  });

  it("refuses Trigger Data over the length limit", async () => {
    const { call } = setup({ triggerDataLimits: { maxLength: 20 } });
    expect(
      errorOf(await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": { a: "12345678901" } })),
    ).toBe("");
    expect(
      await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": { a: "123456789012345" } }),
    ).toEqual(failure("Parameter 'Trigger Data' must be at most 20 characters of JSON, found more."));
  });

  it("refuses values that are not JSON when called directly", async () => {
    const { call } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": conditions,
      "Trigger Data": { when: new Date(0) },
    });
    expect(response).toEqual(
      failure("Parameter 'Trigger Data' must hold JSON values only, found a Date at when."),
    );
  });

  it("lists every Search Conditions issue with its path in one error string", async () => {
    const { call } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": { Severity: "Hihg", CreatedUtcTime: { $gt: "2024-01-01" }, $where: "1" },
      "Trigger Data": {},
    });
    const error = errorOf(response);
    expect(response.body).toEqual(failure(error).body);
    const lines = error.split("\n");
    expect(lines[0]).toBe("Invalid 'Search Conditions':");
    expect(lines.slice(1).some((l) => l.startsWith("Severity: ") && l.includes("did you mean 'High'?"))).toBe(
      true,
    );
    expect(lines.slice(1).some((l) => l.startsWith("CreatedUtcTime.$gt: "))).toBe(true);
    expect(lines.slice(1).some((l) => l.startsWith("$where: "))).toBe(true);
  });

  it("reports an empty array of conditions as an issue", async () => {
    const { call } = setup();
    const error = errorOf(await call(COMMAND, { "Search Conditions": [], "Trigger Data": {} }));
    expect(error.startsWith("Invalid 'Search Conditions':\n(root): ")).toBe(true);
  });

  it("reports Search Conditions and Trigger Data problems together", async () => {
    const { call } = setup();
    const error = errorOf(
      await call(COMMAND, { "Search Conditions": { Status: "Opne" }, "Trigger Data": [] }),
    );
    expect(error).toMatch(
      /^Invalid 'Search Conditions':\nStatus: .*\nParameter 'Trigger Data' must be a JSON object, found an empty array\.$/s,
    );
  });

  it("fails when no incident matches", async () => {
    const { call, backend } = setup();
    expect(
      await call(COMMAND, { "Search Conditions": { Title: "nothing like this" }, "Trigger Data": {} }),
    ).toEqual(failure("No incident matches the Search Conditions."));
    expect(backend.runs()).toEqual([]);
  });
});
