/**
 * `incident-query serve`: runs the reference command server (issue 6) until SIGINT or SIGTERM. The CLI
 * only parses arguments, reads files and prints; the server is `createServer` of `incident-query/server`.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import type { FastifyInstance } from "fastify";
import { type Dataset, formatDatasetIssues, loadSampleDataset, parseDataset } from "../commands/index.js";
import type { ApiKey, JwtOptions } from "../server/auth.js";
import { createServer, DEFAULT_RATE_LIMIT, normalizeBasePath } from "../server/create-server.js";
import { CliError, EXIT } from "./exit-codes.js";

/** sysexits EX_UNAVAILABLE: the server could not listen (address in use, permission denied). */

/** Hooks for embedding and tests; the CLI itself passes none. */
export interface ServeHooks {
  /** Aborting it stops the server, as SIGINT or SIGTERM do. */
  readonly stopSignal?: AbortSignal;
  /** Called once the server listens, with its base URL (`http://127.0.0.1:8080`) and the instance. */
  readonly onListening?: (url: string, server: FastifyInstance) => void;
}

/** The parsed options of `serve`. */
interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly data?: string;
  readonly apiKey: readonly ApiKey[];
  readonly jwtSecret?: string;
  readonly jwtPublicKey?: string;
  readonly rateLimit: number;
  readonly basePath: string;
}

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) {
    throw new InvalidArgumentError("expected an integer from 0 to 65535 (0 picks a free port).");
  }
  return Number(value);
}

function parseRateLimit(value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) === 0) {
    throw new InvalidArgumentError("expected a positive integer (requests per minute per credential).");
  }
  return Number(value);
}

function collectApiKey(value: string, previous: readonly ApiKey[]): readonly ApiKey[] {
  const eq = value.indexOf("=");
  if (eq <= 0 || eq === value.length - 1) {
    throw new InvalidArgumentError("expected USER=KEY with a non-empty user and key.");
  }
  return [...previous, { username: value.slice(0, eq), key: value.slice(eq + 1) }];
}

function parseBasePath(value: string): string {
  try {
    return normalizeBasePath(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`Cannot read ${what} '${path}': ${(error as Error).message}`, EXIT.noInput);
  }
}

async function loadDataset(path: string | undefined): Promise<Dataset> {
  if (path === undefined) return loadSampleDataset();
  const validation = parseDataset(await readText(path, "the dataset"));
  if (!validation.ok) {
    throw new CliError(
      `'${path}' is not a valid dataset:\n${formatDatasetIssues(validation.issues)}`,
      EXIT.dataError,
    );
  }
  return validation.dataset;
}

/** Quotes a text for a POSIX shell. */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The `curl` example printed on start: GetIncidentTimelineEntries on an incident the user may read. */
function curlExample(
  url: string,
  basePath: string,
  dataset: Dataset,
  username: string,
  credential: string,
): string {
  const sites = dataset.users?.find((user) => user.username === username)?.sites ?? [];
  const incident = dataset.incidents?.find((candidate) => sites.includes(candidate.Site));
  const site = incident?.Site ?? sites[0] ?? "Security Operations";
  const body = {
    Username: username,
    Site: site,
    CommandParams: { "Incident Number": incident?.Number ?? "<incident number>", "Sort Order": "DESC" },
  };
  return [
    `curl -sS -X POST ${shellQuote(`${url}${basePath}/Command/GetIncidentTimelineEntries`)}`,
    `-H 'Content-Type: application/json'`,
    `-H ${shellQuote(credential)}`,
    `-d ${shellQuote(JSON.stringify(body))}`,
  ].join(" \\\n  ");
}

/**
 * Adds `serve` to the program: `incident-query serve [--host] [--port] [--data] [--api-key USER=KEY]…
 * [--jwt-secret] [--jwt-public-key] [--rate-limit] [--base-path]` (issue 6).
 * On start it prints one line `Listening on <url>` on standard output, then (when it generated a key)
 * the key, then a `curl` example; the server's JSON log lines go to standard error. It stops cleanly on
 * SIGINT and SIGTERM (the action's promise resolves, exit code 0).
 * Errors end the action with a `CliError`: 64 for a bad option value or an API key for a user the dataset
 * does not have, 66 for an unreadable file, 65 for an invalid dataset or JWT public key, 69 when the
 * address cannot be used.
 * @param program - the commander 14 program to add the subcommand to
 * @param hooks - embedding and test hooks (a stop signal, a listening callback)
 */
export function registerServeCommand(program: Command, hooks: ServeHooks = {}): void {
  program
    .command("serve")
    .description("Serve the three commands over HTTP (the reference command server).")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "TCP port; 0 picks a free port", parsePort, 8080)
    .option("--data <dataset.json>", "dataset of the memory backend (default: the bundled sample dataset)")
    .option("--api-key <USER=KEY>", "accept KEY in the d3key header as USER (repeatable)", collectApiKey, [])
    .option("--jwt-secret <secret>", "accept HS256 tokens in the d3jwt header; the user is the token's sub")
    .option("--jwt-public-key <pem file>", "accept RS256 (RSA key) or ES256 (P-256 key) tokens in d3jwt")
    .option(
      "--rate-limit <requests>",
      "requests per minute per credential",
      parseRateLimit,
      DEFAULT_RATE_LIMIT,
    )
    .option("--base-path <prefix>", "prefix of the command paths, e.g. /VSOC/api", parseBasePath, "")
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query serve
  $ incident-query serve --port 0 --data dataset.json --api-key analyst=s3cret --base-path /VSOC/api
  $ incident-query serve --jwt-public-key key.pem --rate-limit 120

With no --api-key, --jwt-secret or --jwt-public-key, a key is generated for the dataset's first user
and printed. Commands: POST <url><base path>/Command/{GetIncidentTimelineEntries,
TriggerIncidentExternalAction, AddNotesToArtifacts}; GET /healthz answers 200.`,
    )
    .action(async (options: ServeOptions, command: Command) => {
      const output = command.configureOutput();
      const writeOut = (text: string): void => (output.writeOut ?? ((t) => process.stdout.write(t)))(text);
      const writeErr = (text: string): void => (output.writeErr ?? ((t) => process.stderr.write(t)))(text);

      const dataset = await loadDataset(options.data);
      const users = dataset.users ?? [];
      for (const { username } of options.apiKey) {
        if (!users.some((user) => user.username === username)) {
          throw new CliError(`--api-key: the dataset has no user '${username}'.`, EXIT.usage);
        }
      }
      const apiKeys = [...options.apiKey];
      let generated: ApiKey | undefined;
      if (apiKeys.length === 0 && options.jwtSecret === undefined && options.jwtPublicKey === undefined) {
        const first = users[0];
        if (first === undefined) {
          throw new CliError(
            "The dataset has no users: give --api-key USER=KEY, --jwt-secret or --jwt-public-key.",
            EXIT.dataError,
          );
        }
        generated = { username: first.username, key: randomBytes(24).toString("base64url") };
        apiKeys.push(generated);
      }
      let jwt: JwtOptions | undefined;
      if (options.jwtSecret !== undefined || options.jwtPublicKey !== undefined) {
        jwt = {
          ...(options.jwtSecret === undefined ? {} : { secret: options.jwtSecret }),
          ...(options.jwtPublicKey === undefined
            ? {}
            : { publicKey: await readText(options.jwtPublicKey, "the JWT public key") }),
        };
      }

      let server: FastifyInstance;
      try {
        server = createServer({
          dataset,
          apiKeys,
          ...(jwt === undefined ? {} : { jwt }),
          rateLimit: options.rateLimit,
          basePath: options.basePath,
          logger: { stream: { write: writeErr } },
        });
      } catch (error) {
        throw new CliError((error as Error).message, EXIT.dataError);
      }

      try {
        await server.listen({ host: options.host, port: options.port });
      } catch (error) {
        await server.close();
        throw new CliError(
          `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
          EXIT.unavailable,
        );
      }
      const address = server.server.address();
      const port = typeof address === "object" && address !== null ? address.port : options.port;
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}`;

      writeOut(`Listening on ${url}\n`);
      if (generated !== undefined) {
        writeOut(
          `Generated API key for user '${generated.username}' (send it in the d3key header): ${generated.key}\n`,
        );
      }
      const example = generated ?? apiKeys[0];
      const credential =
        generated !== undefined
          ? `d3key: ${generated.key}`
          : apiKeys[0] !== undefined
            ? "d3key: <your key>"
            : "d3jwt: <your token>";
      writeOut(`${curlExample(url, options.basePath, dataset, example?.username ?? "<user>", credential)}\n`);
      hooks.onListening?.(url, server);

      await new Promise<void>((resolve) => {
        const stop = (reason: string): void => {
          process.off("SIGINT", onSigint);
          process.off("SIGTERM", onSigterm);
          hooks.stopSignal?.removeEventListener("abort", onAbort);
          writeErr(`Stopping (${reason}).\n`);
          server.close().then(
            () => resolve(),
            () => resolve(),
          );
        };
        const onSigint = (): void => stop("SIGINT");
        const onSigterm = (): void => stop("SIGTERM");
        const onAbort = (): void => stop("stop signal");
        process.once("SIGINT", onSigint);
        process.once("SIGTERM", onSigterm);
        if (hooks.stopSignal?.aborted) stop("stop signal");
        else hooks.stopSignal?.addEventListener("abort", onAbort, { once: true });
      });
    });
}
