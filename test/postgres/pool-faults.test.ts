/**
 * How the PostgreSQL backend answers a database it cannot reach (docs/semantics.md 3.1, "When the data
 * cannot be reached"), on a pool whose faults are chosen: a node-postgres-shaped pool over PGlite
 * that fails `connect()` or a statement as the test says. Reads that fail to reach the database are 503
 * with `Retry-After` (a lost connection is tried once more); a write is 503 only when it certainly did
 * nothing (no connection, statement_timeout), and 500 when its outcome is unknown. The same faults on a
 * real server (pg_terminate_backend, a stopped server, a full pool) are in `test/postgres/faults.test.ts`.
 */
import { PGlite } from "@electric-sql/pglite";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCommandHandler } from "../../src/commands/handler.js";
import { loadSampleDataset } from "../../src/commands/memory/sample-dataset.js";
import { createPostgresBackend, type PostgresBackend } from "../../src/postgres/backend.js";
import {
  isConnectionFailure,
  type PgPoolClientLike,
  type PgPoolLike,
} from "../../src/postgres/sql-client.js";

/** A fault: fail `connect()`, or fail the statements whose text matches `sql`, `times` times. */
interface Fault {
  readonly at: "connect" | RegExp;
  readonly error: () => Error;
  times: number;
}

const db = new PGlite();
const faults: Fault[] = [];
const released: (Error | boolean | undefined)[] = [];
const statements: string[] = [];

function take(at: "connect" | string): Error | undefined {
  const fault = faults.find(
    (f) => f.times > 0 && (at === "connect" ? f.at === "connect" : f.at !== "connect" && f.at.test(at)),
  );
  if (fault === undefined) return undefined;
  fault.times--;
  return fault.error();
}

const pool: PgPoolLike = {
  async query(text, values) {
    return db.query(text, values);
  },
  async connect(): Promise<PgPoolClientLike> {
    const failure = take("connect");
    if (failure !== undefined) throw failure;
    return {
      async query(text, values) {
        statements.push(text);
        const fault = take(text);
        if (fault !== undefined) throw fault;
        return db.query(text, values);
      },
      release(error) {
        released.push(error);
      },
    };
  },
  async end() {},
};

const pgError = (message: string, code: string) => Object.assign(new Error(message), { code });
const terminated = () => pgError("terminating connection due to administrator command", "57P01");
const lost = () => new Error("Connection terminated unexpectedly");
const statementTimeout = () => pgError("canceling statement due to statement timeout", "57014");
const poolTimeout = () => new Error("timeout exceeded when trying to connect");
const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

let backend: PostgresBackend;
let handle: ReturnType<typeof createCommandHandler>;
const errors: unknown[] = [];

beforeAll(async () => {
  backend = await createPostgresBackend({ pool, clock: () => new Date("2024-05-01T12:00:00Z") });
  await backend.migrate();
  await backend.loadDataset(loadSampleDataset());
  handle = createCommandHandler(backend, { onError: (error) => errors.push(error) });
}, 300_000);

beforeEach(() => {
  faults.length = 0;
  released.length = 0;
  statements.length = 0;
  errors.length = 0;
});

const SITE = "Security Operations";
const timeline = { Username: "alice", Site: SITE, CommandParams: { "Incident Number": "20240102-1" } };
let noteCount = 0;
const note = () => ({
  Username: "alice",
  Site: SITE,
  CommandParams: { "Artifact Name": "185.220.101.34", "Artifact Type": 1, Note: `fault note ${++noteCount}` },
});
const trigger = {
  Username: "alice",
  Site: SITE,
  CommandParams: { "Search Conditions": { Number: "20240102-1" }, "Trigger Data": { by: "fault test" } },
};
const caller = { username: "alice" };
const UNAVAILABLE = { Error: "The service is temporarily unavailable: retry after 1 second." };

async function notesStored(text: string): Promise<number> {
  const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM iq_notes WHERE text = $1", [
    text,
  ]);
  return rows.rows[0]!.n;
}

describe("the PostgreSQL backend when the database cannot be reached", () => {
  it.each([
    ["the pool's wait runs out", poolTimeout],
    ["the server refuses connections", refused],
    ["the server is shutting down", () => pgError("the database system is shutting down", "57P03")],
    ["too many connections", () => pgError("sorry, too many clients already", "53300")],
  ])(
    "no connection (%s): every command is 503 with retryAfterSeconds, no note is stored",
    async (_, error) => {
      faults.push({ at: "connect", error, times: 1_000 });
      for (const body of [timeline, trigger]) {
        const answer = await handle(
          body === timeline ? "GetIncidentTimelineEntries" : "TriggerIncidentExternalAction",
          body,
          caller,
        );
        expect(answer).toEqual({ status: 503, body: UNAVAILABLE, retryAfterSeconds: 1 });
      }
      const request = note();
      expect(await handle("AddNotesToArtifacts", request, caller)).toEqual({
        status: 503,
        body: UNAVAILABLE,
        retryAfterSeconds: 1,
      });
      faults.length = 0;
      expect(await notesStored(request.CommandParams.Note)).toBe(0);
    },
  );

  it("a read whose connection is lost is tried once more on a fresh connection, and succeeds", async () => {
    faults.push({ at: /FROM iq_timeline_entries/, error: terminated, times: 1 });
    const answer = await handle("GetIncidentTimelineEntries", timeline, caller);
    expect(answer.status).toBe(200);
    expect((answer.body as { returnData: { Status: string } }).returnData.Status).toBe("Successful");
    // The failed connection was destroyed (released with its error), not given back to the pool.
    expect(released.filter((r) => r instanceof Error)).toHaveLength(1);
  });

  it("a read whose connection is lost twice is 503", async () => {
    faults.push({ at: /FROM iq_timeline_entries/, error: lost, times: 2 });
    expect(await handle("GetIncidentTimelineEntries", timeline, caller)).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfterSeconds: 1,
    });
    expect(errors).toHaveLength(1);
  });

  it("a note whose statement was cancelled by statement_timeout is 503 and not stored", async () => {
    faults.push({ at: /INSERT INTO iq_notes/, error: statementTimeout, times: 1 });
    const request = note();
    expect(await handle("AddNotesToArtifacts", request, caller)).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfterSeconds: 1,
    });
    expect(await notesStored(request.CommandParams.Note)).toBe(0);
    // The same note sent again is stored once.
    const again = await handle("AddNotesToArtifacts", request, caller);
    expect((again.body as { returnData: string }).returnData).toBe("Successful");
    expect(await notesStored(request.CommandParams.Note)).toBe(1);
  });

  it("a note whose connection is lost after it was sent is 500 (its outcome is unknown), never retried", async () => {
    faults.push({ at: /INSERT INTO iq_notes/, error: lost, times: 1 });
    const request = note();
    expect(await handle("AddNotesToArtifacts", request, caller)).toEqual({
      status: 500,
      body: { Error: "Unexpected Error." },
    });
    expect(statements.filter((s) => s.includes("INSERT INTO iq_notes"))).toHaveLength(1);
  });

  it("a playbook run whose connection is lost is 500; cancelled by statement_timeout, 503", async () => {
    faults.push({ at: /INSERT INTO iq_playbook_runs/, error: terminated, times: 1 });
    expect((await handle("TriggerIncidentExternalAction", trigger, caller)).status).toBe(500);
    faults.push({ at: /INSERT INTO iq_playbook_runs/, error: statementTimeout, times: 1 });
    expect((await handle("TriggerIncidentExternalAction", trigger, caller)).status).toBe(503);
  });

  it("a statement error that is not about the connection gives the connection back, and is 500", async () => {
    faults.push({
      at: /FROM iq_timeline_entries/,
      error: () => pgError("division by zero", "22012"),
      times: 1,
    });
    expect((await handle("GetIncidentTimelineEntries", timeline, caller)).status).toBe(500);
    expect(released.filter((r) => r instanceof Error)).toHaveLength(0);
    expect(statements.filter((s) => s.includes("FROM iq_timeline_entries"))).toHaveLength(1);
  });

  it("tells connection failures from other errors", () => {
    for (const error of [
      terminated(),
      lost(),
      refused(),
      poolTimeout(),
      pgError("x", "08006"),
      pgError("x", "57P02"),
    ])
      expect(isConnectionFailure(error)).toBe(true);
    for (const error of [
      statementTimeout(),
      pgError("x", "22012"),
      pgError("x", "23505"),
      new Error("x"),
      "x",
      null,
    ])
      expect(isConnectionFailure(error)).toBe(false);
  });
});

describe("createPostgresBackend: pool options", () => {
  it.each([
    ["poolSize", 0],
    ["connectTimeoutMs", -1],
    ["statementTimeoutMs", 1.5],
    ["statementTimeoutMs", 2 ** 31],
  ])("refuses %s %s", async (name, value) => {
    await expect(
      createPostgresBackend({ connectionString: "postgres://127.0.0.1:1/none", [name]: value }),
    ).rejects.toThrow(new RegExp(`${name} must be a positive integer`));
  });
});
