/**
 * `incident-query serve`: the subcommand's options and help. The server itself (Fastify, jose, the
 * PostgreSQL driver) is loaded by `serve-run.ts` only when `serve` runs, so that the other subcommands start
 * without it. The server is `createServer` of `incident-query/server`.
 */

import { type Command, InvalidArgumentError } from "commander";
import type { ApiKey } from "../server/auth.js";
import * as defaults from "../server/defaults.js";
import { normalizeBasePath } from "../server/options.js";
import type { ServeHooks, ServeOptions } from "./serve-run.js";

export type { ServeHooks, ServeOptions } from "./serve-run.js";

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

/** A positive integer option (`what` names the unit in the error). */
function positiveIntegerOption(what: string): (value: string) => number {
  return (value) => {
    if (!/^\d{1,9}$/.test(value) || Number(value) === 0) {
      throw new InvalidArgumentError(`expected a positive integer (${what}).`);
    }
    return Number(value);
  };
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

/**
 * Adds `serve` to the program: `incident-query serve [--host] [--port] [--data] [--api-key USER=KEY]…
 * [--jwt-secret] [--jwt-public-key] [--rate-limit] [--base-path] [--catalog] [--request-timeout-ms]
 * [--command-timeout-ms] [--keep-alive-timeout-ms] [--max-connections-per-address] [--max-connections] [--max-time-ms]`
 * (issues 6, 10, 13; the transport numbers and their defaults are docs/semantics.md 3.1's, the time budget
 * docs/semantics.md 1.7's). `--data` is read as `timeline --data` reads it (a path or `-`, gzip or not,
 * strict UTF-8); a file of 4 MiB or more reports its loading stages on standard error; every `--data` ends
 * with a summary line there, or with every problem of an invalid dataset, one line each.
 * On start it prints one line `Listening on <url>` on standard output, then (when it generated a key)
 * the key, then a `curl` example; the server's JSON log lines go to standard error. It stops cleanly on
 * SIGINT and SIGTERM (the action's promise resolves, exit code 0).
 * Errors end the action with a `CliError`: 64 for a bad option value or an API key for a user the dataset
 * does not have, 66 for an unreadable file, 65 for an invalid dataset, catalog or JWT public key, 69 when
 * the address cannot be used (an address in use suggests `--port 0`).
 * @param program - the commander 14 program to add the subcommand to
 * @param hooks - embedding and test hooks (a stop signal, a listening callback)
 */
export function registerServeCommand(program: Command, hooks: ServeHooks = {}): void {
  program
    .command("serve")
    .description("Serve the three commands over HTTP (the reference command server).")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "TCP port; 0 picks a free port", parsePort, 8080)
    .option(
      "--data <dataset.json>",
      "dataset of the memory backend: JSON, gzip or not; - for standard input (default: the bundled sample dataset)",
    )
    .option(
      "--database <url|folder>",
      "keep the data in PostgreSQL (postgres://…) or in PGlite in a folder; an empty database is loaded from --data (default: the sample)",
    )
    .option("--api-key <USER=KEY>", "accept KEY in the d3key header as USER (repeatable)", collectApiKey, [])
    .option("--jwt-secret <secret>", "accept HS256 tokens in the d3jwt header; the user is the token's sub")
    .option("--jwt-public-key <pem file>", "accept RS256 (RSA key) or ES256 (P-256 key) tokens in d3jwt")
    .option(
      "--rate-limit <requests>",
      "requests per minute per credential",
      parseRateLimit,
      defaults.DEFAULT_RATE_LIMIT,
    )
    .option("--base-path <prefix>", "prefix of the command paths, e.g. /VSOC/api", parseBasePath, "")
    .option(
      "--catalog <catalog.json>",
      "custom incident fields and labels (fields, labels, alternativeFields)",
    )
    .option(
      "--request-timeout-ms <ms>",
      "time for a request's headers and body to arrive (then 408)",
      positiveIntegerOption("milliseconds"),
      defaults.DEFAULT_REQUEST_TIMEOUT_MS,
    )
    .option(
      "--command-timeout-ms <ms>",
      "time a command may take once its body has arrived (then 500; default: --request-timeout-ms)",
      positiveIntegerOption("milliseconds"),
    )
    .option(
      "--keep-alive-timeout-ms <ms>",
      "time an idle keep-alive connection stays open",
      positiveIntegerOption("milliseconds"),
      defaults.DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    )
    .option(
      "--max-connections-per-address <n>",
      "open connections one client address may hold",
      positiveIntegerOption("connections"),
      defaults.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    )
    .option(
      "--max-connections <n>",
      "open connections in all",
      positiveIntegerOption("connections"),
      defaults.DEFAULT_MAX_CONNECTIONS,
    )
    .option(
      "--max-time-ms <ms>",
      "time budget of one Search Conditions search",
      positiveIntegerOption("milliseconds"),
      defaults.DEFAULT_MAX_TIME_MS,
    )
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
      const { runServe } = await import("./serve-run.js");
      await runServe(options, command, hooks);
    });
}
