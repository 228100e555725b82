/**
 * `incident-query serve`: options, what it prints on start, the generated key, the printed
 * `curl` example run for real, errors with exit codes, and a clean stop on SIGINT and SIGTERM (in a child
 * process). Every server listens on 127.0.0.1, port 0.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { Command, CommanderError } from "commander";
import type { FastifyInstance } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { CliError, EXIT } from "../../src/cli/exit-codes.js";
import { registerServeCommand } from "../../src/cli/serve.js";
import { KEYS, SOC, send, TEST_DATASET } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "incident-query-serve-"));
const datasetFile = join(dir, "dataset.json");
writeFileSync(datasetFile, JSON.stringify(TEST_DATASET));
const badDatasetFile = join(dir, "bad.json");
writeFileSync(badDatasetFile, JSON.stringify({ users: [{ username: "x", sites: ["nowhere"] }] }));

interface Started {
  readonly url: string;
  readonly server: FastifyInstance;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly stop: () => Promise<void>;
}

/** Runs `serve` in-process with captured output; resolves once it listens. */
async function serve(args: readonly string[]): Promise<Started> {
  let stdout = "";
  let stderr = "";
  const controller = new AbortController();
  const program = new Command("incident-query")
    .exitOverride()
    .configureOutput({ writeOut: (t) => (stdout += t), writeErr: (t) => (stderr += t) });
  let listening: (url: string) => void = () => {};
  let server: FastifyInstance | undefined;
  const ready = new Promise<string>((resolve) => {
    listening = resolve;
  });
  registerServeCommand(program, {
    stopSignal: controller.signal,
    onListening: (url, instance) => {
      server = instance;
      listening(url);
    },
  });
  const done = program.parseAsync(["serve", "--port", "0", ...args], { from: "user" });
  const url = await Promise.race([
    ready,
    done.then(() => Promise.reject(new Error(`serve ended: ${stderr}`))),
  ]);
  return {
    url,
    server: server!,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/** Runs `serve` in-process and returns the error it ends with, and what it wrote on standard error. */
async function serveFailure(
  args: readonly string[],
  stdin?: NodeJS.ReadableStream,
): Promise<{ error: unknown; stderr: string }> {
  let stderr = "";
  const program = new Command("incident-query")
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: (t) => (stderr += t) });
  registerServeCommand(program, { stopSignal: AbortSignal.abort(), stdin });
  const error = await program.parseAsync(["serve", "--port", "0", ...args], { from: "user" }).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { error, stderr };
}

/** Runs `serve` in-process and returns the error it ends with. */
async function serveError(args: readonly string[]): Promise<unknown> {
  return (await serveFailure(args)).error;
}

/** Reads the printed curl example back into URL, headers and body. */
function parseCurl(text: string): { url: string; headers: Record<string, string>; body: string } {
  const command = text.slice(text.indexOf("curl "));
  const quoted = [...command.matchAll(/'((?:[^']|'\\'')*)'/g)].map((m) => m[1]!.replaceAll("'\\''", "'"));
  const [url, ...rest] = quoted;
  const body = rest.pop()!;
  const headers = Object.fromEntries(
    rest.map((header) => {
      const colon = header.indexOf(":");
      return [header.slice(0, colon).trim().toLowerCase(), header.slice(colon + 1).trim()];
    }),
  );
  return { url: url!, headers, body };
}

describe("serve: start-up output", () => {
  it("prints the URL, then the curl example; with --api-key no key is printed", async () => {
    const started = await serve(["--data", datasetFile, "--api-key", `analyst=${KEYS.analyst}`]);
    try {
      const lines = started.stdout().split("\n");
      expect(lines[0]).toBe(`Listening on ${started.url}`);
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(started.stdout()).toContain("curl -sS -X POST");
      expect(started.stdout()).not.toContain(KEYS.analyst);
      const curl = parseCurl(started.stdout());
      expect(curl.headers["content-type"]).toBe("application/json");
      const answer = await send(curl.url, {
        headers: { "content-type": "application/json", d3key: KEYS.analyst },
        body: curl.body,
      });
      expect(answer.status).toBe(200);
      expect((answer.json as { error: string }).error).toBe("");
      expect(started.stderr()).not.toContain(KEYS.analyst);
    } finally {
      await started.stop();
    }
  });

  it("generates a key for the dataset's first user and prints it; the printed curl example works", async () => {
    const started = await serve(["--data", datasetFile, "--base-path", "/VSOC/api/"]);
    try {
      const match = /Generated API key for user 'analyst' \(send it in the d3key header\): (\S+)/.exec(
        started.stdout(),
      );
      expect(match).not.toBeNull();
      const curl = parseCurl(started.stdout());
      expect(curl.url).toBe(`${started.url}/VSOC/api/Command/GetIncidentTimelineEntries`);
      expect(curl.headers.d3key).toBe(match![1]);
      expect(JSON.parse(curl.body)).toMatchObject({ Username: "analyst", Site: SOC });
      const answer = await send(curl.url, { headers: curl.headers, body: curl.body });
      expect(answer.status).toBe(200);
      const body = answer.json as { error: string; returnData: { Data: { TimelineID: number }[] } };
      expect(body.error).toBe("");
      expect(body.returnData.Data.map((e) => e.TimelineID)).toEqual([2, 1]);
      // The playground line: the page, with the user, a site of theirs and the key in the fragment.
      expect(started.stdout()).toContain(
        `Playground: ${started.url}/playground#user=analyst&site=Security%20Operations&key=${match![1]}\n`,
      );
      expect((await send(`${started.url}/playground`, { method: "GET" })).status).toBe(200);
    } finally {
      await started.stop();
    }
  });

  it("serves the bundled sample dataset by default", async () => {
    const started = await serve([]);
    try {
      const curl = parseCurl(started.stdout());
      const answer = await send(curl.url, { headers: curl.headers, body: curl.body });
      expect(answer.status).toBe(200);
      expect((answer.json as { error: string }).error).toBe("");
      expect((await send(`${started.url}/healthz`, { method: "GET" })).status).toBe(200);
    } finally {
      await started.stop();
    }
  });

  it("applies --rate-limit and logs JSON lines to standard error", async () => {
    const started = await serve([
      "--data",
      datasetFile,
      "--api-key",
      `analyst=${KEYS.analyst}`,
      "--rate-limit",
      "1",
    ]);
    try {
      const curl = parseCurl(started.stdout());
      const headers = { "content-type": "application/json", d3key: KEYS.analyst };
      expect((await send(curl.url, { headers, body: curl.body })).status).toBe(200);
      expect((await send(curl.url, { headers, body: curl.body })).status).toBe(429);
      const lines = started
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; status?: number });
      expect(lines.filter((line) => line.msg === "request").map((line) => line.status)).toEqual([200, 429]);
    } finally {
      await started.stop();
    }
  });
});

describe("serve: transport options (docs/semantics.md 3.1)", () => {
  it("applies the defaults", async () => {
    const started = await serve(["--data", datasetFile]);
    try {
      expect(started.server.server.requestTimeout).toBe(30_000);
      expect(started.server.server.keepAliveTimeout).toBe(5_000);
      expect(started.server.server.maxConnections).toBe(1_000);
    } finally {
      await started.stop();
    }
  });

  it("applies each option", async () => {
    const started = await serve([
      "--data",
      datasetFile,
      "--request-timeout-ms",
      "1500",
      "--keep-alive-timeout-ms",
      "700",
      "--max-connections",
      "9",
      "--max-connections-per-address",
      "2",
      "--max-time-ms",
      "50",
    ]);
    try {
      expect(started.server.server.requestTimeout).toBe(1_500);
      expect(started.server.server.headersTimeout).toBe(1_500);
      expect(started.server.server.keepAliveTimeout).toBe(700);
      expect(started.server.server.maxConnections).toBe(9);
    } finally {
      await started.stop();
    }
  });

  // The per-address cap on a server whose request timeout is a hang guard's: the held connections cannot
  // time out while the third is tried, however slow the machine (with 1.5 s they could, and the third then
  // got in and was answered 408).
  it("closes a connection past --max-connections-per-address unread", async () => {
    const started = await serve([
      "--data",
      datasetFile,
      "--request-timeout-ms",
      "300000",
      "--max-connections-per-address",
      "2",
    ]);
    try {
      expect(started.server.server.requestTimeout).toBe(300_000);
      // The per-address cap: two held connections, the third is closed unread.
      const port = Number(new URL(started.url).port);
      const held = [net.connect(port, "127.0.0.1"), net.connect(port, "127.0.0.1")];
      try {
        await Promise.all(held.map((socket) => new Promise((resolve) => socket.once("connect", resolve))));
        // The server counts a connection when it accepts it: wait until it counts both (the test's
        // timeout is the hang guard).
        const open = () =>
          new Promise<number>((resolve) => started.server.server.getConnections((_e, n) => resolve(n)));
        while ((await open()) < 2) await new Promise((resolve) => setTimeout(resolve, 10));
        const third = net.connect(port, "127.0.0.1");
        third.on("error", () => {});
        third.resume();
        await new Promise((resolve) => third.once("close", resolve));
        expect(third.bytesRead).toBe(0);
        // The two held ones are still open: the third was refused by the cap, not after a timeout.
        expect(held.every((socket) => !socket.destroyed && socket.readyState === "open")).toBe(true);
      } finally {
        for (const socket of held) socket.destroy();
      }
    } finally {
      await started.stop();
    }
  });
});

describe("serve: --catalog", () => {
  const catalogFile = join(dir, "catalog.json");
  writeFileSync(
    catalogFile,
    JSON.stringify({
      fields: { Priority: { kind: "enum", labels: ["P1", "P2"] }, DueUtcTime: { kind: "date" } },
      labels: { Severity: ["Unassigned"] },
    }),
  );
  const customDatasetFile = join(dir, "custom.json");
  writeFileSync(
    customDatasetFile,
    JSON.stringify({
      ...TEST_DATASET,
      incidents: TEST_DATASET.incidents!.map((incident, index) => ({
        ...incident,
        Priority: index === 1 ? "P1" : "P2",
        ...(index === 2 ? { Severity: "Unassigned" } : {}),
      })),
    }),
  );

  it("checks the dataset and the Search Conditions against the extended catalogue", async () => {
    const started = await serve([
      "--data",
      customDatasetFile,
      "--catalog",
      catalogFile,
      "--api-key",
      `analyst=${KEYS.analyst}`,
    ]);
    try {
      const trigger = (conditions: unknown) =>
        send(`${started.url}/Command/TriggerIncidentExternalAction`, {
          headers: { "content-type": "application/json", d3key: KEYS.analyst },
          body: JSON.stringify({
            Username: "analyst",
            Site: SOC,
            CommandParams: { "Search Conditions": conditions, "Trigger Data": {} },
          }),
        });
      const p1 = (await trigger({ Priority: "P1" })).json as {
        returnData: { Data: { IncidentId?: number } };
      };
      expect(p1.returnData.Data.IncidentId).toBe(102);
      const unknown = (await trigger({ Priority: "P3" })).json as { error: string };
      expect(unknown.error).toMatch(/'P3' is not a label of Priority/);
      const unassigned = (await trigger({ Severity: "Unassigned" })).json as {
        returnData: { Data: { IncidentId?: number } };
      };
      expect(unassigned.returnData.Data.IncidentId).toBe(103);
    } finally {
      await started.stop();
    }
  });

  it("refuses the same dataset without the catalogue (Severity 'Unassigned')", async () => {
    const { error, stderr } = await serveFailure(["--data", customDatasetFile]);
    expect((error as CliError).exitCode).toBe(EXIT.dataError);
    expect((error as CliError).message).toMatch(/is not a valid dataset \(1 problem\)\.$/);
    expect(stderr).toMatch(/^incident-query: '.*' incidents\[\d+\]\.Severity: .*Unassigned[^\n]*\n$/);
  });

  it.each([
    ["[]", /the top level must be an object, found an array/],
    ['{"field": {}}', /unknown key 'field'/],
    ['{"fields": {"X": {"kind": "number"}}}', /fields\.X must be \{"kind": "text" \| "date" \| "enum"\}/],
    ['{"fields": {"X": {"kind": "enum"}}}', /fields\.X\.labels must be an array of non-empty strings/],
    ['{"fields": {"X": {"kind": "text", "labels": ["a"]}}}', /unexpected key 'labels'/],
    ['{"labels": {"Title": ["a"]}}', /Cannot add labels to 'Title'/],
    ['{"alternativeFields": "Type"}', /'alternativeFields' must be an array/],
    ["{not json", /it is not JSON/],
  ])(
    "refuses the catalog %s with exit code 65 and a message naming the expected shape",
    async (text, message) => {
      const file = join(dir, "bad-catalog.json");
      writeFileSync(file, text);
      const error = await serveError(["--data", datasetFile, "--catalog", file]);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT.dataError);
      expect((error as CliError).message).toMatch(message);
      expect((error as CliError).message).toContain('Expected {"fields"');
    },
  );

  it("reports an unreadable catalog with exit code 66", async () => {
    const error = await serveError(["--catalog", join(dir, "no-catalog.json")]);
    expect((error as CliError).exitCode).toBe(EXIT.noInput);
    expect((error as CliError).message).toMatch(/Cannot read the catalog/);
  });
});

describe("serve: --data loading report", () => {
  it("reports each loading stage on standard error for a large file, then a summary", async () => {
    // 4 MiB of JSON whitespace makes the file large without making the test slow.
    const big = join(dir, "big.json");
    writeFileSync(big, JSON.stringify(TEST_DATASET) + " ".repeat(4 * 1_048_576));
    const started = await serve(["--data", big]);
    try {
      const lines = started.stderr().split("\n");
      expect(lines[0]).toMatch(/^Loading '.*big\.json' \(4\.0 MiB\): reading and parsing JSON…$/);
      expect(lines[1]).toMatch(
        /^ {2}checking and indexing 4 incidents and \d+ timeline entries \(\d+\.\d s so far\)…$/,
      );
      expect(lines[2]).toMatch(
        /^Loaded '.*big\.json': 4 incidents, \d+ timeline entries, \d+ artifacts in \d+\.\d s\.$/,
      );
      expect(started.stdout().split("\n")[0]).toBe(`Listening on ${started.url}`);
    } finally {
      await started.stop();
    }
  });

  it("prints only the summary for a small file", async () => {
    const started = await serve(["--data", datasetFile]);
    try {
      const report = started
        .stderr()
        .split("\n")
        .filter((line) => !line.startsWith("{") && line !== "");
      expect(report).toHaveLength(1);
      expect(report[0]).toMatch(/^Loaded '.*dataset\.json': 4 incidents/);
    } finally {
      await started.stop();
    }
  });
});

describe("serve: --data is read as timeline --data reads it (docs/cli.md, Inputs)", () => {
  const text = JSON.stringify(TEST_DATASET);

  it("reads gzip and - (standard input)", async () => {
    const gzip = join(dir, "dataset.json.gz");
    writeFileSync(gzip, gzipSync(text));
    const fromGzip = await serveFailure(["--data", gzip]);
    expect(fromGzip.error).toBeUndefined();
    expect(fromGzip.stderr).toMatch(/^Loaded '.*dataset\.json\.gz': 4 incidents, /);
    const fromStdin = await serveFailure(["--data", "-"], Readable.from([gzipSync(text)]));
    expect(fromStdin.error).toBeUndefined();
    expect(fromStdin.stderr).toMatch(/^Loaded standard input: 4 incidents, /);
  });

  it("refuses invalid UTF-8 (never U+FFFD), text that is not JSON, and a repeated key with 65", async () => {
    const bytes = Buffer.from(text);
    bytes[text.indexOf('"incidents"') + 2] = 0xff;
    const invalid = join(dir, "invalid-utf8.json");
    writeFileSync(invalid, bytes);
    const notJson = join(dir, "not-json.json");
    writeFileSync(notJson, '{"sites": [\n}');
    const repeated = join(dir, "repeated.json");
    writeFileSync(repeated, `{"users": [], ${text.slice(1)}`);
    for (const [path, message] of [
      [invalid, /is not valid UTF-8/],
      [notJson, /'.*not-json\.json' is not valid JSON/],
      [repeated, /repeats the key 'users'/],
    ] as const) {
      const { error } = await serveFailure(["--data", path]);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT.dataError);
      expect((error as CliError).message).toMatch(message);
    }
  });

  it("lists every problem of an invalid dataset with its path, one prefixed line each", async () => {
    const path = join(dir, "two-problems.json");
    writeFileSync(
      path,
      JSON.stringify({
        sites: [{ name: "S", timeZone: "Mars/Base" }],
        users: [{ username: "u", sites: ["T"] }],
      }),
    );
    const { error, stderr } = await serveFailure(["--data", path]);
    expect((error as CliError).exitCode).toBe(EXIT.dataError);
    expect((error as CliError).message).toMatch(
      /'.*two-problems\.json' is not a valid dataset \(2 problems\)\.$/,
    );
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^incident-query: '.*two-problems\.json' sites\[0\]\.timeZone: /);
    expect(lines[1]).toMatch(/^incident-query: '.*two-problems\.json' users\[0\]\.sites\[0\]: /);
  });
});

describe("serve: errors", () => {
  it.each([
    [["--port", "abc"], "commander.invalidArgument"],
    [["--port", "70000"], "commander.invalidArgument"],
    [["--rate-limit", "0"], "commander.invalidArgument"],
    [["--api-key", "analyst"], "commander.invalidArgument"],
    [["--api-key", "=key"], "commander.invalidArgument"],
    [["--base-path", "api"], "commander.invalidArgument"],
    [["--request-timeout-ms", "0"], "commander.invalidArgument"],
    [["--keep-alive-timeout-ms", "1.5"], "commander.invalidArgument"],
    [["--max-connections-per-address", "-1"], "commander.invalidArgument"],
    [["--max-connections", "many"], "commander.invalidArgument"],
    [["--max-time-ms", ""], "commander.invalidArgument"],
    [["--unknown"], "commander.unknownOption"],
  ])("%j is a usage error", async (args, code) => {
    const error = await serveError(args);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).code).toBe(code);
  });

  it.each([
    [["--data", join(dir, "missing.json")], EXIT.noInput, /Cannot read '.*missing\.json': no such file/],
    [["--data", badDatasetFile], EXIT.dataError, /'.*bad\.json' is not a valid dataset \(1 problem\)\./],
    [["--data", datasetFile, "--api-key", "nobody=k"], EXIT.usage, /no user 'nobody'/],
    [
      ["--data", datasetFile, "--api-key", "analyst=k", "--api-key", "lead=k"],
      EXIT.usage,
      /the same key is given to users 'analyst' and 'lead'/,
    ],
    [
      ["--data", datasetFile, "--catalog", join(dir, "duplicate-catalog.json")],
      EXIT.dataError,
      /repeats the key 'labels'/,
    ],
    [["--data", datasetFile, "--jwt-public-key", join(dir, "missing.pem")], EXIT.noInput, /JWT public key/],
    [["--data", datasetFile, "--jwt-public-key", datasetFile], EXIT.dataError, /./],
    [["--data", join(dir, "empty.json")], EXIT.dataError, /no users/],
  ])("%j ends with a CliError", async (args, exitCode, message) => {
    writeFileSync(join(dir, "empty.json"), "{}");
    writeFileSync(
      join(dir, "duplicate-catalog.json"),
      '{"labels": {}, "labels": {"Severity": ["Unassigned"]}}',
    );
    const error = await serveError(args);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(exitCode);
    expect((error as CliError).message).toMatch(message);
  });

  it("reports an address in use with exit code 69", async () => {
    const started = await serve(["--data", datasetFile]);
    try {
      const port = new URL(started.url).port;
      const error = await serveError(["--data", datasetFile, "--port", port]);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(69);
      expect((error as CliError).message).toBe(
        `Cannot listen on 127.0.0.1:${port}: the address is in use. Give --port 0 to pick a free port (the first line printed names it).`,
      );
    } finally {
      await started.stop();
    }
  });
});

describe("serve: signals (child process)", () => {
  const entry = fileURLToPath(new URL("./serve-entry.ts", import.meta.url));
  // One process (`node --import tsx`), not the tsx CLI, which runs the server in a child of its own: a SIGKILL
  // must reach the server itself, and leave no server running after the test.
  const node = process.execPath;
  const children: ChildProcessWithoutNullStreams[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  });

  it.each([["SIGINT"], ["SIGTERM"]] as const)("stops cleanly on %s with exit code 0", async (signal) => {
    const child = spawn(node, ["--import", "tsx", entry, "serve", "--port", "0", "--data", datasetFile], {
      stdio: "pipe",
    });
    children.push(child);
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^Listening on (\S+)\n/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`exited early with ${code}: ${stdout}`)));
    });
    expect((await send(`${url}/healthz`, { method: "GET" })).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill(signal);
    expect(await exited).toBe(0);
    await expect(send(`${url}/healthz`, { method: "GET" })).rejects.toThrow();
  });

  it("runs the printed curl example with the real curl, when curl is installed", async () => {
    const started = await serve(["--data", datasetFile]);
    try {
      const curl = parseCurl(started.stdout());
      const args = ["-sS", "-X", "POST", curl.url];
      for (const [name, value] of Object.entries(curl.headers)) args.push("-H", `${name}: ${value}`);
      args.push("-d", curl.body);
      const result = await promisify(execFile)("curl", args).catch((error: NodeJS.ErrnoException) => error);
      if ("code" in result && result.code === "ENOENT") return;
      const { stdout } = result as { stdout: string };
      expect((JSON.parse(stdout) as { error: string }).error).toBe("");
    } finally {
      await started.stop();
    }
  });
});
