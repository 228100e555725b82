/**
 * GetIncidentTimelineEntries through the handler and the memory backend (specification 4.1; docs/semantics.md 2,
 * 3.2, 3.3): success, each missing and ill-typed parameter, not found, exact bodies.
 */
import { describe, expect, it } from "vitest";
import { BERLIN, DATASET, HQ, setup } from "../../test/support/commands-fixtures.js";
import { SPEC_TIMELINE_ENTRY_ORDER } from "../../test/support/spec-order.js";

const COMMAND = "GetIncidentTimelineEntries";

function failure(error: string) {
  return { status: 200, body: { error, returnData: { Status: "Failed", Data: [] } } };
}

/** The entries of the fixture's incident, as the command returns them (spec 2.2 shape, no extra fields). */
function wire(ids: number[]) {
  return ids.map((id) => {
    const {
      IncidentNumber: _n,
      Site: _s,
      ...rest
    } = DATASET.timelineEntries!.find((e) => e.TimelineID === id)!;
    return rest;
  });
}

describe("GetIncidentTimelineEntries: success", () => {
  it("returns every entry of the incident, ascending by Time then TimelineID, with exactly the fields of 2.2", async () => {
    const { call } = setup();
    const response = await call(COMMAND, { "Incident Number": "20240101-1" });
    expect(response).toEqual({
      status: 200,
      body: { error: "", returnData: { Status: "Successful", Data: wire([11, 10, 12, 13]) } },
    });
    const first = (response.body as { returnData: { Data: object[] } }).returnData.Data[0]!;
    expect(Object.keys(first)).toEqual([...SPEC_TIMELINE_ENTRY_ORDER]);
  });

  it.each([
    ["ASC", [11, 10, 12, 13]],
    ["ascending", [11, 10, 12, 13]],
    [" desc ", [13, 12, 10, 11]],
    ["Descending", [13, 12, 10, 11]],
    ["", [11, 10, 12, 13]],
    [null, [11, 10, 12, 13]],
  ])("sorts by Sort Order %j", async (sortOrder, ids) => {
    const { call } = setup();
    const response = await call(COMMAND, { "Incident Number": "20240101-1", "Sort Order": sortOrder });
    expect(response).toEqual({
      status: 200,
      body: { error: "", returnData: { Status: "Successful", Data: wire(ids) } },
    });
  });

  it.each([
    ["alert", [11]],
    ["  ALICE ", [12, 13]],
    ["t1566", [11]],
    ["05:40", [10, 12]],
    ["", [11, 10, 12, 13]],
    ["no such text", []],
    [".*", []],
  ])("filters by Filter %j (case-insensitive literal substring)", async (filter, ids) => {
    const { call } = setup();
    const response = await call(COMMAND, { "Incident Number": "20240101-1", Filter: filter });
    expect(response).toEqual({
      status: 200,
      body: { error: "", returnData: { Status: "Successful", Data: wire(ids) } },
    });
  });

  it("returns an empty list for an incident without entries", async () => {
    const { call } = setup();
    expect(await call(COMMAND, { "Incident Number": "20240103-1" })).toEqual({
      status: 200,
      body: { error: "", returnData: { Status: "Successful", Data: [] } },
    });
  });

  it("ignores parameters it does not know", async () => {
    const { call } = setup();
    const response = await call(
      COMMAND,
      { "Incident Number": "20240102-1", Extra: { x: 1 } },
      { site: BERLIN },
    );
    expect((response.body as { returnData: { Data: unknown[] } }).returnData.Data).toHaveLength(1);
  });
});

describe("GetIncidentTimelineEntries: failures", () => {
  it.each([
    ["absent", {}, "Missing required parameter 'Incident Number'."],
    ["null", { "Incident Number": null }, "Missing required parameter 'Incident Number'."],
    [
      "spelled in another case",
      { "incident number": "20240101-1" },
      "Unknown parameter 'incident number': did you mean 'Incident Number'? Nothing was done: parameter names are exact (case, spaces, '_' and '-' count).",
    ],
    [
      "a number",
      { "Incident Number": 20240101 },
      "Parameter 'Incident Number' must be a string, found the number 20240101.",
    ],
    [
      "an array",
      { "Incident Number": ["20240101-1"] },
      "Parameter 'Incident Number' must be a string, found an array.",
    ],
    [
      "an object",
      { "Incident Number": {} },
      "Parameter 'Incident Number' must be a string, found an object.",
    ],
    ["empty", { "Incident Number": "" }, "Parameter 'Incident Number' must not be empty."],
    ["blank", { "Incident Number": "  " }, "Parameter 'Incident Number' must not be empty."],
  ])("Incident Number %s", async (_name, params, message) => {
    const { call } = setup();
    expect(await call(COMMAND, params)).toEqual(failure(message));
  });

  it.each([
    ["Filter a number", { Filter: 5 }, "Parameter 'Filter' must be a string, found the number 5."],
    ["Filter an array", { Filter: ["a"] }, "Parameter 'Filter' must be a string, found an array."],
    [
      "Sort Order a boolean",
      { "Sort Order": true },
      "Invalid Sort Order (boolean): expected ASC, ascending, DESC or descending (any case).",
    ],
    [
      "Sort Order a number",
      { "Sort Order": 1 },
      "Invalid Sort Order (number): expected ASC, ascending, DESC or descending (any case).",
    ],
  ])("%s", async (_name, params, message) => {
    const { call } = setup();
    expect(await call(COMMAND, { "Incident Number": "20240101-1", ...params })).toEqual(failure(message));
  });

  it("refuses an unknown Sort Order token with a message naming the accepted tokens", async () => {
    const { call } = setup();
    const response = await call(COMMAND, { "Incident Number": "20240101-1", "Sort Order": "newest" });
    const body = response.body as { error: string; returnData: unknown };
    expect(response.status).toBe(200);
    expect(body.returnData).toEqual({ Status: "Failed", Data: [] });
    for (const token of ["ASC", "ascending", "DESC", "descending"]) expect(body.error).toContain(token);
    expect(body.error).toContain("newest");
  });

  it("lists every parameter problem in one message", async () => {
    const { call } = setup();
    expect(await call(COMMAND, { Filter: 1 })).toEqual(
      failure(
        "Missing required parameter 'Incident Number'. Parameter 'Filter' must be a string, found the number 1.",
      ),
    );
  });

  it.each([
    ["an unknown number", "20991231-1", HQ],
    ["the number of an incident of another site", "20240102-1", HQ],
    ["a number that differs in case or spacing", " 20240101-1", HQ],
  ])("is not found for %s", async (_name, number, site) => {
    const { call } = setup();
    expect(await call(COMMAND, { "Incident Number": number }, { site })).toEqual(
      failure(`Incident '${number}' was not found in site '${site}'.`),
    );
  });
});
