/**
 * Audit probes of docs/semantics.md sections 2 and 3 through the command handler.
 */
import { describe, expect, it } from "vitest";
import { setup } from "../support/commands-fixtures.js";

const TRIGGER = "TriggerIncidentExternalAction";
const EVERYTHING =
  "Parameter 'Search Conditions' matches every incident by its shape alone, like {}: name at least one field condition.";
const errorOf = (r: { body: unknown }) => (r.body as { error: string }).error;

describe("docs/semantics.md 3: conditions that reduce to 'matches everything' are refused like {}", () => {
  it.each([
    ["[{}, {}]", [{}, {}]],
    ['{"$or": [{"$and": [{}]}]}', { $or: [{ $and: [{}] }] }],
    ['{"$and": [{"$or": [{}, {"Title": "x"}]}, {}]}', { $and: [{ $or: [{}, { Title: "x" }] }, {}] }],
    ['[{"Severity": "High"}, {"$and": [{}, {}]}]', [{ Severity: "High" }, { $and: [{}, {}] }]],
    [
      '{"$nor": [{"$and": [{}, {"Title": {"$in": []}}]}]}',
      { $nor: [{ $and: [{}, { Title: { $in: [] } }] }] },
    ],
    ['{"Title": {"$not": {"$in": []}}}', { Title: { $not: { $in: [] } } }],
    ["the same as text: ' [{}, {}] '", " [{}, {}] "],
  ])("%s", async (_name, conditions) => {
    const { call, backend } = setup();
    const r = await call(TRIGGER, { "Search Conditions": conditions, "Trigger Data": {} });
    expect(r).toEqual({
      status: 200,
      body: { error: EVERYTHING, returnData: { Status: "Failed", Data: {} } },
    });
    expect(backend.runs()).toEqual([]);
  });
});

describe("docs/semantics.md 3: Search Conditions and Trigger Data as JSON text", () => {
  it.each([
    ['"null"', "null"],
    ['"\\"{}\\""', '"{}"'],
    ['""', ""],
    ['"1"', "1"],
    ["trailing garbage", '{"Severity":"High"} x'],
  ])("refuses the string %s", async (_name, text) => {
    const { call, backend } = setup();
    const r = await call(TRIGGER, { "Search Conditions": text, "Trigger Data": {} });
    expect(errorOf(r)).toMatch(/^Parameter 'Search Conditions' must be a JSON object or array/);
    expect(backend.runs()).toEqual([]);
  });

  it("a string holding [] is the empty-array error of 1.1", async () => {
    const { call } = setup();
    expect(errorOf(await call(TRIGGER, { "Search Conditions": "[]", "Trigger Data": {} }))).toContain(
      "non-empty array",
    );
  });

  it.each([["[1]"], ['"x"'], ["null"]])("Trigger Data text %s must hold an object", async (text) => {
    const { call } = setup();
    const r = await call(TRIGGER, { "Search Conditions": { Severity: "High" }, "Trigger Data": text });
    expect(errorOf(r)).toMatch(/^Parameter 'Trigger Data' must be a JSON object/);
  });

  it("null Trigger Data is an omission: missing required parameter", async () => {
    const { call } = setup();
    const r = await call(TRIGGER, { "Search Conditions": { Severity: "High" }, "Trigger Data": null });
    expect(errorOf(r)).toBe("Missing required parameter 'Trigger Data'.");
  });
});

describe("docs/semantics.md 2: Sort Order", () => {
  it.each([[1], [true], [{}], [["ASC"]]])(
    "a non-string Sort Order %j is a command error naming the accepted tokens",
    async (token) => {
      const { call } = setup();
      const r = await call("GetIncidentTimelineEntries", {
        "Incident Number": "20240101-1",
        "Sort Order": token,
      });
      expect(r.body).toMatchObject({ returnData: { Status: "Failed", Data: [] } });
      for (const t of ["ASC", "ascending", "DESC", "descending"]) expect(errorOf(r)).toContain(t);
    },
  );

  it("blank Sort Order is ascending; DESC is the exact reverse of ASC for valid times", async () => {
    const { call } = setup();
    const ids = async (order: unknown) =>
      (
        (await call("GetIncidentTimelineEntries", { "Incident Number": "20240101-1", "Sort Order": order }))
          .body as { returnData: { Data: { TimelineID: number }[] } }
      ).returnData.Data.map((e) => e.TimelineID);
    const asc = await ids("  ");
    expect(asc).toEqual(await ids(" Ascending "));
    expect(await ids(" dEsCeNdInG ")).toEqual([...asc].reverse());
  });
});

describe("docs/semantics.md 3: AddNotesToArtifacts", () => {
  it("'Note' is a non-empty string: a note of spaces is non-empty and is added", async () => {
    const { call } = setup();
    const r = await call("AddNotesToArtifacts", { "Artifact Name": "10.0.0.5", Note: "   " });
    expect(errorOf(r)).toBe("");
  });

  it("Artifact Type as a label ignoring case, as an id, or null with a unique name all succeed", async () => {
    for (const type of ["ip address", "IP ADDRESS", 1, null]) {
      const { call } = setup();
      const r = await call("AddNotesToArtifacts", {
        "Artifact Name": "10.0.0.5",
        "Artifact Type": type,
        Note: "n",
      });
      expect(errorOf(r)).toBe("");
      expect(
        (r.body as { contextData: { "Artifact Type": string }[] }).contextData[0]?.["Artifact Type"],
      ).toBe("IP Address");
    }
  });
});
