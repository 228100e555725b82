/**
 * `incident-query serve` (issue 6): options, what it prints on start, the generated key, the printed
 * `curl` example run for real, errors with exit codes, and a clean stop on SIGINT and SIGTERM (in a child
 * process). Every server listens on 127.0.0.1, port 0.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Command, CommanderError } from "commander";
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
  const ready = new Promise<string>((resolve) => {
    listening = resolve;
  });
  registerServeCommand(program, { stopSignal: controller.signal, onListening: (url) => listening(url) });
  const done = program.parseAsync(["serve", "--port", "0", ...args], { from: "user" });
  const url = await Promise.race([
    ready,
    done.then(() => Promise.reject(new Error(`serve ended: ${stderr}`))),
  ]);
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/** Runs `serve` in-process and returns the error it ends with. */
async function serveError(args: readonly string[]): Promise<unknown> {
  const program = new Command("incident-query")
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  registerServeCommand(program, { stopSignal: AbortSignal.abort() });
  return program.parseAsync(["serve", "--port", "0", ...args], { from: "user" }).then(
    () => undefined,
    (error: unknown) => error,
  );
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

describe("serve: errors", () => {
  it.each([
    [["--port", "abc"], "commander.invalidArgument"],
    [["--port", "70000"], "commander.invalidArgument"],
    [["--rate-limit", "0"], "commander.invalidArgument"],
    [["--api-key", "analyst"], "commander.invalidArgument"],
    [["--api-key", "=key"], "commander.invalidArgument"],
    [["--base-path", "api"], "commander.invalidArgument"],
    [["--unknown"], "commander.unknownOption"],
  ])("%j is a usage error", async (args, code) => {
    const error = await serveError(args);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).code).toBe(code);
  });

  it.each([
    [["--data", join(dir, "missing.json")], EXIT.noInput, /Cannot read the dataset/],
    [["--data", badDatasetFile], EXIT.dataError, /not a valid dataset:\n.*users/s],
    [["--data", datasetFile, "--api-key", "nobody=k"], EXIT.usage, /no user 'nobody'/],
    [["--data", datasetFile, "--jwt-public-key", join(dir, "missing.pem")], EXIT.noInput, /JWT public key/],
    [["--data", datasetFile, "--jwt-public-key", datasetFile], EXIT.dataError, /./],
    [["--data", join(dir, "empty.json")], EXIT.dataError, /no users/],
  ])("%j ends with a CliError", async (args, exitCode, message) => {
    writeFileSync(join(dir, "empty.json"), "{}");
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
    } finally {
      await started.stop();
    }
  });
});

describe("serve: signals (child process)", () => {
  const entry = fileURLToPath(new URL("./serve-entry.ts", import.meta.url));
  const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
  const children: ChildProcessWithoutNullStreams[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  });

  it.each([["SIGINT"], ["SIGTERM"]] as const)("stops cleanly on %s with exit code 0", async (signal) => {
    const child = spawn(tsx, [entry, "serve", "--port", "0", "--data", datasetFile], { stdio: "pipe" });
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
