/**
 * Rate limits and failed-authentication budgets across several instances (docs/semantics.md 3.1, "Several
 * instances"): they are kept per instance, in its memory, so N instances behind one balancer
 * allow N times what one allows. Three servers over one backend, a budget of 5, requests spread evenly:
 * exactly 15 pass, and a guesser gets exactly 15 answers of 401 before 429 everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryBackend } from "../../src/commands/index.js";
import { envelope, KEYS, post, type RunningServer, startServer, TEST_DATASET } from "./fixtures.js";

const BUDGET = 5;
const INSTANCES = 3;
let servers: RunningServer[] = [];

beforeAll(async () => {
  const backend = createMemoryBackend(TEST_DATASET);
  servers = await Promise.all(
    Array.from({ length: INSTANCES }, () => startServer({ backend, rateLimit: BUDGET })),
  );
});

afterAll(async () => {
  for (const s of servers) await s.server.close();
});

const timeline = envelope({ "Incident Number": "20240101-1" });

describe("several instances: each keeps its own budgets", () => {
  it(`a user spread over ${INSTANCES} instances gets ${INSTANCES} × ${BUDGET} answers a window, then 429 everywhere`, async () => {
    const statuses: number[] = [];
    for (let k = 0; k < 2 * INSTANCES * BUDGET; k++) {
      const answer = await post(servers[k % INSTANCES]!.url, "GetIncidentTimelineEntries", timeline);
      statuses.push(answer.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(INSTANCES * BUDGET);
    expect(statuses.filter((s) => s === 429)).toHaveLength(INSTANCES * BUDGET);
    // Each instance passed its own budget, then refused.
    for (let i = 0; i < INSTANCES; i++) {
      const own = statuses.filter((_, k) => k % INSTANCES === i);
      expect(own).toEqual([...Array(BUDGET).fill(200), ...Array(BUDGET).fill(429)]);
    }
  });

  it(`a guesser spread over ${INSTANCES} instances gets ${INSTANCES} × ${BUDGET} 401s a window, then 429 everywhere, even with a right key`, async () => {
    const statuses: number[] = [];
    for (let k = 0; k < 2 * INSTANCES * BUDGET; k++) {
      const answer = await post(
        servers[k % INSTANCES]!.url,
        "GetIncidentTimelineEntries",
        envelope({}, "lead"),
        {
          d3key: `wrong-${k}`,
        },
      );
      statuses.push(answer.status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(INSTANCES * BUDGET);
    expect(statuses.filter((s) => s === 429)).toHaveLength(INSTANCES * BUDGET);
    for (const s of servers) {
      const right = await post(s.url, "GetIncidentTimelineEntries", envelope({}, "lead"), {
        d3key: KEYS.lead,
      });
      expect(right.status).toBe(429);
    }
  });
});
