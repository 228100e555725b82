/**
 * TriggerIncidentExternalAction with `Dry Run` (docs/semantics.md 3.3, "Dry run"): the same checks and the
 * same first-match search as a real run, the playbooks that would run named, and nothing recorded.
 */
import { describe, expect, it } from "vitest";
import { setup, successful } from "../../test/support/commands-fixtures.js";
import { createCommandHandler } from "./handler.js";

const COMMAND = "TriggerIncidentExternalAction";

describe("TriggerIncidentExternalAction: Dry Run", () => {
  it("names the playbooks a real run would start, records nothing, and leaves the RuntimeIds alone", async () => {
    const { call, backend } = setup();
    const params = { "Search Conditions": { Severity: "High" }, "Trigger Data": { ticket: "INC-42" } };
    const dry = await call(COMMAND, { ...params, "Dry Run": true });
    expect(dry).toEqual(
      successful({
        IncidentId: 2,
        IncidentNo: "20240101-2",
        TriggeredPlaybooks: [],
        DryRun: true,
        PlaybooksToRun: [{ PlaybookName: "Enrichment" }],
      }),
    );
    expect(backend.runs()).toEqual([]);
    const real = await call(COMMAND, params);
    const data = (real.body as { returnData: { Data: Record<string, unknown> } }).returnData.Data;
    expect(data).toEqual({
      IncidentId: 2,
      IncidentNo: "20240101-2",
      TriggeredPlaybooks: [{ RuntimeId: 1, PlaybookName: "Enrichment" }],
    });
    expect(backend.runs().map((run) => run.runtimeId)).toEqual([1]);
  });

  it("never calls the backend's recordPlaybookRun (any backend), nor the memory backend's run hook", async () => {
    const { backend } = setup();
    const recorded: unknown[] = [];
    const guarded = Object.create(backend) as typeof backend;
    guarded.recordPlaybookRun = async (run) => {
      recorded.push(run);
      throw new Error("a dry run must not record a run");
    };
    const handle = createCommandHandler(guarded);
    const response = await handle(
      COMMAND,
      {
        Username: "alice",
        Site: "HQ",
        CommandParams: {
          "Search Conditions": { Title: { $regex: "^Credential" } },
          "Trigger Data": {},
          "Dry Run": true,
        },
      },
      { username: "alice" },
    );
    expect(response.status).toBe(200);
    expect((response.body as { error: string }).error).toBe("");
    expect(recorded).toEqual([]);
  });

  it("fails exactly where a real run would: bad conditions, missing Trigger Data, no match", async () => {
    const { call, backend } = setup();
    const errorOf = async (params: Record<string, unknown>) =>
      ((await call(COMMAND, params)).body as { error: string }).error;
    for (const params of [
      { "Search Conditions": { Severity: "Hihg" }, "Trigger Data": {} },
      { "Search Conditions": { Severity: "High" } },
      { "Search Conditions": { Title: "no such incident" }, "Trigger Data": {} },
      { "Search Conditions": {}, "Trigger Data": {} },
    ]) {
      const real = await errorOf(params);
      expect(real).not.toBe("");
      expect(await errorOf({ ...params, "Dry Run": true })).toBe(real);
    }
    expect(backend.runs()).toEqual([]);
  });

  it("takes true or false (false, absent or null: a real run); anything else is a command failure", async () => {
    const { call, backend } = setup();
    const params = { "Search Conditions": { Severity: "High" }, "Trigger Data": {} };
    const answer = await call(COMMAND, { ...params, "Dry Run": "yes" });
    expect(answer.body).toEqual({
      error: `Parameter 'Dry Run' must be true or false, found the string "yes".`,
      returnData: { Status: "Failed", Data: {} },
    });
    await call(COMMAND, { ...params, "Dry Run": false });
    await call(COMMAND, { ...params, "Dry Run": null });
    expect(backend.runs().map((run) => run.runtimeId)).toEqual([1, 2]);
  });
});
