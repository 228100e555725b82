/**
 * TriggerIncidentExternalAction's guards:
 * conditions that match every incident by their shape are refused like `{}`; Search Conditions and Trigger
 * Data may arrive as JSON text; the first-match search runs within the handler's time budget.
 */
import { describe, expect, it, vi } from "vitest";
import { DATASET, HQ, NOW, setup } from "../../test/support/commands-fixtures.js";
import type { SearchBudget } from "../incidents/search-budget.js";
import { SearchTimeoutError, startBudget } from "../incidents/search-budget.js";
import type { Backend } from "./backend.js";
import { createCommandHandler } from "./handler.js";
import { createMemoryBackend } from "./memory/memory-backend.js";

const COMMAND = "TriggerIncidentExternalAction";
const EVERYTHING =
  "Parameter 'Search Conditions' matches every incident by its shape alone, like {}: name at least one field condition.";

function errorOf(response: { body: unknown }): string {
  return (response.body as { error: string }).error;
}

describe("conditions that match every incident by their shape are refused like {} (docs/semantics.md 3)", () => {
  it.each([
    ["[{}]", [{}]],
    ['{"$and": [{}]}', { $and: [{}] }],
    ['{"$or": [{}]}', { $or: [{}] }],
    ['{"$or": [{}, {"Severity": "Low"}]}', { $or: [{}, { Severity: "Low" }] }],
    ["[{Severity: Low}, {}]", [{ Severity: "Low" }, {}]],
    ["nested ANDs", { $and: [{ $and: [{}] }, {}] }],
    ['{"$nor": [{"$nor": [{}]}]}', { $nor: [{ $nor: [{}] }] }],
    ['{"Title": {"$nin": []}}', { Title: { $nin: [] } }],
    ["the same as JSON text", "[{}]"],
  ])("%s", async (_name, conditions) => {
    const { call, backend } = setup();
    const response = await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": {} });
    expect(response).toEqual({
      status: 200,
      body: { error: EVERYTHING, returnData: { Status: "Failed", Data: {} } },
    });
    expect(backend.runs()).toEqual([]);
  });

  it("reports the refusal beside the other parameter problems", async () => {
    const { call } = setup();
    const response = await call(COMMAND, { "Search Conditions": [{}], "Trigger Data": 3 });
    expect(errorOf(response)).toBe(
      `${EVERYTHING} Parameter 'Trigger Data' must be a JSON object, found the number 3.`,
    );
  });

  it.each([
    ['{"$nor": [{}]} (matches nothing)', { $nor: [{}] }, "No incident matches the Search Conditions."],
    [
      '{"Title": {"$in": []}} (matches nothing)',
      { Title: { $in: [] } },
      "No incident matches the Search Conditions.",
    ],
    [
      '{"Owner": {"$exists": true}}',
      { Owner: { $exists: true } },
      "No incident matches the Search Conditions.",
    ],
  ])("does not refuse %s", async (_name, conditions, error) => {
    const { call } = setup();
    expect(errorOf(await call(COMMAND, { "Search Conditions": conditions, "Trigger Data": {} }))).toBe(error);
  });

  it("runs a condition that only looks broad: {Title: {$exists: true}}", async () => {
    const { call } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": { Title: { $exists: true } },
      "Trigger Data": {},
    });
    expect(errorOf(response)).toBe("");
  });
});

describe("Search Conditions and Trigger Data as JSON text (docs/semantics.md 3)", () => {
  it("reads a string holding an object exactly as the object", async () => {
    const asText = setup();
    const asJson = setup();
    const text = await asText.call(COMMAND, {
      "Search Conditions": '{"Severity": "High"}',
      "Trigger Data": '{"ticket": "INC-42", "tags": ["vip"]}',
    });
    const json = await asJson.call(COMMAND, {
      "Search Conditions": { Severity: "High" },
      "Trigger Data": { ticket: "INC-42", tags: ["vip"] },
    });
    expect(errorOf(text)).toBe("");
    expect(text).toEqual(json);
    expect(asText.backend.runs()).toEqual(asJson.backend.runs());
    expect(asText.backend.runs()[0]?.triggerData).toEqual({ ticket: "INC-42", tags: ["vip"] });
  });

  it("reads a string holding an array of conditions, with surrounding spaces", async () => {
    const { call } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": ' [{"Severity": "Low"}, {"Title": "Trojan on WS-1"}] ',
      "Trigger Data": "{}",
    });
    expect(
      (response.body as { returnData: { Data: { IncidentId: number } } }).returnData.Data.IncidentId,
    ).toBe(2);
  });

  it("reports the issues of conditions given as text with their paths", async () => {
    const { call } = setup();
    const response = await call(COMMAND, { "Search Conditions": '{"severity": "High"}', "Trigger Data": {} });
    expect(errorOf(response)).toBe(
      "Invalid 'Search Conditions':\nseverity: 'severity' is not a field of the catalogue: field names are case-sensitive; did you mean 'Severity'?",
    );
  });

  it("refuses deeply nested text before parsing it (JSON.parse never sees it)", async () => {
    const { call } = setup();
    const deep = `${"[".repeat(300_000)}${"]".repeat(300_000)}`;
    // A count, not a time: the deep text never reaches JSON.parse (a parse would cost time and memory in
    // proportion to it; the depth scan stops at the limit).
    const parse = vi.spyOn(JSON, "parse");
    let conditions: Awaited<ReturnType<typeof call>>;
    let data: Awaited<ReturnType<typeof call>>;
    try {
      conditions = await call(COMMAND, { "Search Conditions": deep, "Trigger Data": {} });
      data = await call(COMMAND, {
        "Search Conditions": { Severity: "High" },
        "Trigger Data": `{"a":${deep}}`,
      });
      expect(parse.mock.calls.filter(([text]) => typeof text === "string" && text.length > 100_000)).toEqual(
        [],
      );
    } finally {
      parse.mockRestore();
    }
    expect(errorOf(conditions)).toBe(
      "Parameter 'Search Conditions' must be nested at most 32 levels deep, found deeper JSON text.",
    );
    expect(errorOf(data)).toBe(
      "Parameter 'Trigger Data' must be nested at most 32 levels deep, found deeper JSON text.",
    );
  });

  it("counts nesting outside strings only", async () => {
    const { call } = setup();
    const response = await call(COMMAND, {
      "Search Conditions": JSON.stringify({
        Title: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{',
      }),
      "Trigger Data": "{}",
    });
    expect(errorOf(response)).toBe("No incident matches the Search Conditions.");
  });
});

describe("the first-match search's time budget (docs/semantics.md 1.7)", () => {
  const body = {
    Username: "alice",
    Site: HQ,
    CommandParams: { "Search Conditions": { Severity: "High" }, "Trigger Data": {} },
  };
  const caller = { username: "alice" };

  /** The memory backend with findFirstIncident replaced. */
  function backendWith(findFirstIncident: Backend["findFirstIncident"]): Backend {
    const backend = createMemoryBackend(DATASET, { clock: () => NOW });
    return Object.assign(Object.create(null) as Backend, backend, { findFirstIncident });
  }

  it("answers a SearchTimeoutError with the exact failure sentence and the budget's number", async () => {
    const errors: unknown[] = [];
    const handler = createCommandHandler(
      backendWith(async () => {
        throw new SearchTimeoutError(2000);
      }),
      { maxTimeMS: 2000, clock: () => 0, onError: (error) => errors.push(error) },
    );
    expect(await handler(COMMAND, body, caller)).toEqual({
      status: 200,
      body: {
        error: "The Search Conditions took longer than 2000 ms to evaluate.",
        returnData: { Status: "Failed", Data: {} },
      },
    });
    expect(errors).toEqual([]);
  });

  it("recognises the time-out of another copy of the library by its code", async () => {
    const foreign = Object.assign(new Error("The Search Conditions took longer than 150 ms to evaluate."), {
      name: "SearchTimeoutError",
      code: "search_timeout",
      maxTimeMS: 150,
    });
    const handler = createCommandHandler(
      backendWith(async () => {
        throw foreign;
      }),
    );
    expect(errorOf(await handler(COMMAND, body, caller))).toBe(
      "The Search Conditions took longer than 150 ms to evaluate.",
    );
  });

  it("still answers 500 for any other failure of the search", async () => {
    const errors: unknown[] = [];
    const handler = createCommandHandler(
      backendWith(async () => {
        throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
      }),
      { onError: (error) => errors.push(error) },
    );
    expect(await handler(COMMAND, body, caller)).toEqual({
      status: 500,
      body: { Error: "Unexpected Error." },
    });
    expect(errors).toHaveLength(1);
  });

  it("passes maxTimeMS and the clock to the backend; a backend measuring with them times out", async () => {
    const budgets: (SearchBudget | undefined)[] = [];
    let now = 0;
    // A fake clock: every reading is 700 ms later than the one before.
    const clock = () => {
      now += 700;
      return now;
    };
    const handler = createCommandHandler(
      backendWith(async (_site, _condition, budget) => {
        budgets.push(budget);
        const timer = startBudget(budget);
        for (let row = 0; row < 10_000; row++) timer.tick();
        return undefined;
      }),
      { maxTimeMS: 2000, clock },
    );
    expect(errorOf(await handler(COMMAND, body, caller))).toBe(
      "The Search Conditions took longer than 2000 ms to evaluate.",
    );
    expect(budgets).toEqual([{ maxTimeMS: 2000, clock }]);
    // Started at 700, deadline 2,700: the clock is read every 1,024 rows and passes it at the 3rd reading.
    expect(now).toBe(4 * 700);
  });

  it("passes no budget when the handler has none", async () => {
    const budgets: unknown[] = [];
    const handler = createCommandHandler(
      backendWith(async (_site, _condition, ...rest) => {
        budgets.push(rest);
        return undefined;
      }),
    );
    expect(errorOf(await handler(COMMAND, body, caller))).toBe("No incident matches the Search Conditions.");
    expect(budgets).toEqual([[undefined]]);
  });

  it("the memory backend hands the budget to IncidentSet.findFirst, which reads the clock", async () => {
    let readings = 0;
    const { call } = setup({
      maxTimeMS: 2000,
      clock: () => {
        readings++;
        return 0;
      },
    });
    expect(
      errorOf(await call(COMMAND, { "Search Conditions": { Severity: "High" }, "Trigger Data": {} })),
    ).toBe("");
    expect(readings).toBeGreaterThan(0);
  });

  it("defaults the clock to performance.now when only maxTimeMS is given", async () => {
    const budgets: (SearchBudget | undefined)[] = [];
    const handler = createCommandHandler(
      backendWith(async (_site, _condition, budget) => {
        budgets.push(budget);
        return undefined;
      }),
      { maxTimeMS: 50 },
    );
    await handler(COMMAND, body, caller);
    const clock = budgets[0]?.clock;
    expect(budgets[0]?.maxTimeMS).toBe(50);
    expect(typeof clock).toBe("function");
    // performance.now(), not Date.now(): a reading falls between two readings of performance.now().
    const before = performance.now();
    const reading = clock?.() ?? Number.NaN;
    expect(reading).toBeGreaterThanOrEqual(before);
    expect(reading).toBeLessThanOrEqual(performance.now());
  });

  it.each([
    [{ maxTimeMS: -1 }, "maxTimeMS must be a finite number of milliseconds ≥ 0, found -1."],
    [{ maxTimeMS: Number.NaN }, "maxTimeMS must be a finite number of milliseconds ≥ 0, found NaN."],
    [
      { maxTimeMS: "2000" as unknown as number },
      "maxTimeMS must be a finite number of milliseconds ≥ 0, found 2000.",
    ],
    [
      { maxTimeMS: 10, clock: 5 as unknown as () => number },
      "clock must be a function returning milliseconds, found number.",
    ],
  ])("refuses the options %j when the handler is created", (options, message) => {
    expect(() => createCommandHandler(createMemoryBackend(DATASET), options)).toThrow(new TypeError(message));
  });
});
