/**
 * What `incident-query serve` does once its options are parsed (`serve.ts` defines them): loads the
 * dataset or opens the database, starts the reference command server and serves until SIGINT, SIGTERM or
 * the stop signal. Loaded only when `serve` runs (it brings Fastify, jose and the PostgreSQL driver).
 */

import { randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import type { Command } from "commander";
import type { FastifyInstance } from "fastify";
import {
  type Backend,
  createMemoryBackend,
  type Dataset,
  DatasetError,
  type DatasetIssue,
  formatDatasetIssues,
  loadSampleDataset,
} from "../commands/index.js";
import { DEFAULT_CATALOG, extendCatalog, type FieldCatalog, type FieldSpec } from "../conditions/catalog.js";
import { duplicateKeyMessage, findDuplicateKey } from "../conditions/json-duplicate-keys.js";
import { createPostgresBackend, type PostgresBackend } from "../postgres/backend.js";
import type { ApiKey, JwtOptions } from "../server/auth.js";
import { createServer } from "../server/create-server.js";
import { CliError, EXIT } from "./exit-codes.js";
import { readDocument } from "./input.js";

/** Hooks for embedding and tests; the CLI itself passes only its `stdin`. */
export interface ServeHooks {
  /** Aborting it stops the server, as SIGINT or SIGTERM do. */
  readonly stopSignal?: AbortSignal;
  /** Called once the server listens, with its base URL (`http://127.0.0.1:8080`) and the instance. */
  readonly onListening?: (url: string, server: FastifyInstance) => void;
  /** What `--data -` reads; default `process.stdin`. */
  readonly stdin?: NodeJS.ReadableStream | undefined;
}

/** The parsed options of `serve`. */
export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly data?: string;
  readonly apiKey: readonly ApiKey[];
  readonly jwtSecret?: string;
  readonly jwtPublicKey?: string;
  readonly rateLimit: number;
  readonly basePath: string;
  readonly catalog?: string;
  readonly requestTimeoutMs: number;
  readonly commandTimeoutMs?: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnectionsPerAddress: number;
  readonly maxConnections: number;
  readonly maxTimeMs: number;
  readonly database?: string;
}

/** A `--data` file at least this large reports its loading stages on standard error. */
const PROGRESS_FROM_BYTES = 4 * 1_048_576;

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`Cannot read ${what} '${path}': ${(error as Error).message}`, EXIT.noInput);
  }
}

/** What `--data` loading produced: the dataset (for the start-up example) and its backend, built once. */
interface Loaded {
  readonly dataset: Dataset;
  readonly backend: Backend;
}

const count = (n: number): string => n.toLocaleString("en-US");
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Reads, parses, checks and indexes the `--data` input once (the memory backend validates it against the
 * catalogue). The input is read as `timeline --data` reads it (`readDocument`, docs/cli.md "Inputs"): a
 * path or `-` for `stdin`, gzip or not, strict UTF-8, one JSON document whose objects repeat no key. A file
 * of `PROGRESS_FROM_BYTES` or more reports each stage on standard error as it begins (the stages are
 * synchronous: a line per stage is the finest report they allow); every `--data` ends with one summary
 * line.
 * @throws {CliError} 66 when the input cannot be opened; 65 when it is not gzip, UTF-8 or JSON as
 *   `readDocument` says, or not a valid dataset (every problem listed first, `invalidDataset`); 74 when
 *   reading fails
 */
async function loadDataset(
  path: string | undefined,
  catalog: FieldCatalog | undefined,
  writeErr: (text: string) => void,
  stdin: NodeJS.ReadableStream | undefined,
): Promise<Loaded> {
  const options = catalog === undefined ? {} : { catalog };
  if (path === undefined) {
    const dataset = loadSampleDataset();
    return { dataset, backend: createMemoryBackend(dataset, options) };
  }
  const started = performance.now();
  let size = 0;
  try {
    if (path !== "-") size = (await stat(path)).size;
  } catch {
    // readDocument reports it.
  }
  const verbose = size >= PROGRESS_FROM_BYTES;
  if (verbose) {
    writeErr(`Loading '${path}' (${(size / 1_048_576).toFixed(1)} MiB): reading and parsing JSON…\n`);
  }
  // readDocument reads only the context's `stdin` (what `-` reads).
  const { value: input, label } = await readDocument(path, { stdin });
  const lists = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const lengthOf = (key: string): number =>
    Array.isArray(lists[key]) ? (lists[key] as unknown[]).length : 0;
  if (verbose) {
    writeErr(
      `  checking and indexing ${count(lengthOf("incidents"))} incidents and ${count(lengthOf("timelineEntries"))} timeline entries (${seconds(performance.now() - started)} so far)…\n`,
    );
  }
  let backend: Backend;
  try {
    // On a large file, a line at every tenth of the records checked (the indexing that follows is quick).
    let next = 0.1;
    const onLoadProgress = (done: number, total: number): void => {
      if (total === 0 || done / total < next || done === total) return;
      next = Math.floor((done / total) * 10) / 10 + 0.1;
      writeErr(
        `  checked ${count(done)} of ${count(total)} records (${Math.round((done / total) * 100)}%, ${seconds(performance.now() - started)} so far)…\n`,
      );
    };
    backend = createMemoryBackend(input as Dataset, verbose ? { ...options, onLoadProgress } : options);
  } catch (error) {
    if (error instanceof DatasetError) throw invalidDataset(label, error.issues, writeErr);
    throw error;
  }
  writeErr(
    `Loaded ${label}: ${count(lengthOf("incidents"))} incidents, ${count(lengthOf("timelineEntries"))} timeline entries, ${count(lengthOf("artifacts"))} artifacts in ${seconds(performance.now() - started)}.\n`,
  );
  return { dataset: input as Dataset, backend };
}

/**
 * Lists every problem of an invalid dataset on standard error, one line each, prefixed and with its path
 * (`incident-query: 'x.json' sites[0].timeZone: …`; at most `MAX_DATASET_ISSUES`, then one line saying how
 * many more), as `timeline --data` does (docs/server.md, the `--data` option).
 * @returns the error that ends `serve`: 65, with the number of problems
 */
function invalidDataset(
  label: string,
  issues: readonly DatasetIssue[],
  writeErr: (text: string) => void,
): CliError {
  for (const issue of issues) {
    writeErr(`incident-query: ${label} ${formatDatasetIssues([issue]).replaceAll("\n", " ")}\n`);
  }
  return new CliError(
    `${label.charAt(0).toUpperCase()}${label.slice(1)} is not a valid dataset (${issues.length} problem${issues.length === 1 ? "" : "s"}).`,
    EXIT.dataError,
  );
}

/** Incidents of `--data` looked up in a loaded database to tell whether it holds that data (`sameData`). */
const SAME_DATA_SAMPLE = 1000;

/**
 * Why a loaded database does not hold the incidents of a dataset, or undefined when it does: as many
 * incidents, and each incident of the dataset (all of them up to `SAME_DATA_SAMPLE`, an even sample of that
 * many beyond) found under its site and number with its `IncidentId`. What the commands added since (notes,
 * runs) does not count.
 */
async function differenceFrom(
  backend: PostgresBackend,
  stored: number,
  dataset: Dataset,
): Promise<string | undefined> {
  const incidents = dataset.incidents ?? [];
  if (incidents.length !== stored) {
    return `it holds ${count(stored)} incidents, the dataset ${count(incidents.length)}`;
  }
  const step = Math.max(1, Math.ceil(incidents.length / SAME_DATA_SAMPLE));
  for (let k = 0; k < incidents.length; k += step) {
    const incident = incidents[k]!;
    const found = await backend.findIncidentByNumber(incident.Site, incident.Number);
    if (found?.IncidentId !== incident.IncidentId) {
      return `it has no incident ${incident.Number} of site '${incident.Site}' with IncidentId ${incident.IncidentId}`;
    }
  }
  return undefined;
}

/**
 * Opens `--database` (a `postgres://` URL, or a folder for PGlite), creates the schema if needed, and loads
 * `--data` (or the bundled sample) when the database holds no incident yet. A database that already holds
 * incidents is used as it is: with `--data`, only when it holds that dataset's incidents (the same command
 * run again starts; see `differenceFrom`); other data beside it is refused with what to do.
 * @throws {CliError} 64 for `--data` beside a database that holds other incidents; 65 for an invalid
 *   dataset; 69 when the database cannot be opened (or its driver is not installed: the message says to
 *   install '@electric-sql/pglite' or 'pg')
 */
async function openDatabase(
  location: string,
  data: string | undefined,
  catalog: FieldCatalog | undefined,
  writeErr: (text: string) => void,
  stdin: NodeJS.ReadableStream | undefined,
): Promise<Loaded & { close: () => Promise<void> }> {
  const isUrl = /^postgres(ql)?:\/\//i.test(location);
  let backend: PostgresBackend;
  try {
    backend = await createPostgresBackend({
      ...(isUrl ? { connectionString: location } : { dataDir: location }),
      ...(catalog === undefined ? {} : { catalog }),
    });
    await backend.migrate();
  } catch (error) {
    throw new CliError(
      `Cannot open the database '${location}': ${(error as Error).message}`,
      EXIT.unavailable,
    );
  }
  const useStored = async (loaded?: Dataset): Promise<Loaded & { close: () => Promise<void> }> => {
    const stored = await backend.counts();
    if (data !== undefined) {
      let difference: string | undefined;
      try {
        const dataset = loaded ?? (await loadDataset(data, catalog, writeErr, stdin)).dataset;
        difference = await differenceFrom(backend, stored.incidents, dataset);
      } catch (error) {
        await backend.close();
        throw error;
      }
      const label = data === "-" ? "standard input" : `'${data}'`;
      if (difference !== undefined) {
        await backend.close();
        throw new CliError(
          `The database '${location}' already holds other data than ${label} (${difference}): start without --data to use the database as it is, or give --database a new folder or an empty database to load ${label}.`,
          EXIT.usage,
        );
      }
      writeErr(`The database '${location}' already holds the incidents of ${label}: not loaded again.\n`);
    }
    writeErr(
      `Using the database '${location}': ${count(stored.incidents)} incidents, ${count(stored.notes)} notes, ${count(stored.runs)} playbook runs.\n`,
    );
    return { dataset: { users: [...(await backend.users())] }, backend, close: () => backend.close() };
  };
  if ((await backend.counts()).incidents > 0) return useStored();
  const { dataset } = await loadDataset(data, catalog, writeErr, stdin);
  try {
    // Decided and loaded under one lock: of instances started together, one loads (semantics 3.1).
    if (!(await backend.loadDatasetIfEmpty(dataset))) return useStored(dataset);
  } catch (error) {
    if (error instanceof CliError) throw error;
    await backend.close();
    if (error instanceof DatasetError) {
      const label = data === undefined ? "the sample dataset" : data === "-" ? "standard input" : `'${data}'`;
      throw invalidDataset(label, error.issues, writeErr);
    }
    throw new CliError(
      `Cannot load the dataset into '${location}': ${(error as Error).message}`,
      EXIT.dataError,
    );
  }
  writeErr(`Loaded the dataset into the database '${location}'.\n`);
  return { dataset, backend, close: () => backend.close() };
}

const FIELD_KINDS = ["text", "date", "enum"];

/**
 * Reads a `--catalog` file: a JSON object with at most `fields` (`{"Name": {"kind": "text" | "date"}}` or
 * `{"kind": "enum", "labels": ["…"]}`), `labels` (`{"Severity": ["…"]}`, labels added to an enumerated
 * field) and `alternativeFields` (`["…"]`), applied to the default catalogue with `extendCatalog`.
 * @throws {CliError} 66 when unreadable; 65 when not JSON, of another shape (the message says what was
 *   expected where, and what was found), or refused by `extendCatalog`
 */
async function loadCatalog(path: string): Promise<FieldCatalog> {
  const text = await readText(path, "the catalog");
  const fail = (problem: string): never => {
    throw new CliError(
      `'${path}' is not a valid catalog: ${problem} Expected {"fields": {"Name": {"kind": "text" | "date" | "enum", "labels": [...]}}, "labels": {"Field": [...]}, "alternativeFields": [...]}.`,
      EXIT.dataError,
    );
  };
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    return fail(`it is not JSON (${(error as Error).message}).`);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) return fail(duplicateKeyMessage("it", duplicate));
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const describe = (value: unknown): string =>
    Array.isArray(value)
      ? "an array"
      : value === null
        ? "null"
        : typeof value === "object"
          ? "an object"
          : JSON.stringify(value);
  const strings = (value: unknown, where: string): string[] => {
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item.trim() !== "")) {
      return fail(`${where} must be an array of non-empty strings, found ${describe(value)}.`);
    }
    return value as string[];
  };
  if (!isObject(input)) return fail(`the top level must be an object, found ${describe(input)}.`);
  for (const key of Object.keys(input)) {
    if (!["fields", "labels", "alternativeFields"].includes(key)) return fail(`unknown key '${key}'.`);
  }
  const extension: {
    fields?: Record<string, FieldSpec>;
    labels?: Record<string, string[]>;
    alternativeFields?: string[];
  } = {};
  if (input.fields !== undefined) {
    if (!isObject(input.fields)) return fail(`'fields' must be an object, found ${describe(input.fields)}.`);
    const fields: Record<string, FieldSpec> = {};
    for (const [name, spec] of Object.entries(input.fields)) {
      const where = `fields.${name}`;
      if (!isObject(spec) || typeof spec.kind !== "string" || !FIELD_KINDS.includes(spec.kind)) {
        return fail(`${where} must be {"kind": "text" | "date" | "enum"}, found ${describe(spec)}.`);
      }
      const extra = Object.keys(spec).filter(
        (key) => key !== "kind" && !(spec.kind === "enum" && key === "labels"),
      );
      if (extra.length > 0) return fail(`${where} has the unexpected key '${extra[0]}'.`);
      fields[name] =
        spec.kind === "enum"
          ? { kind: "enum", labels: strings(spec.labels, `${where}.labels`) }
          : { kind: spec.kind as "text" | "date" };
    }
    extension.fields = fields;
  }
  if (input.labels !== undefined) {
    if (!isObject(input.labels)) return fail(`'labels' must be an object, found ${describe(input.labels)}.`);
    extension.labels = Object.fromEntries(
      Object.entries(input.labels).map(([name, labels]) => [name, strings(labels, `labels.${name}`)]),
    );
  }
  if (input.alternativeFields !== undefined) {
    extension.alternativeFields = strings(input.alternativeFields, "'alternativeFields'");
  }
  try {
    return extendCatalog(DEFAULT_CATALOG, extension);
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** Quotes a text for a POSIX shell. */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The playground line printed on start (docs/server.md, "The playground"): its URL, with the user, a site
 * of theirs and the generated key in the fragment (which the browser never sends; the page reads it and
 * removes the key from the address bar).
 */
function playgroundLink(
  url: string,
  dataset: Dataset,
  username: string | undefined,
  key: string | undefined,
): string {
  const site = dataset.users?.find((user) => user.username === username)?.sites?.[0];
  const fragment = new URLSearchParams();
  if (username !== undefined) fragment.set("user", username);
  if (site !== undefined) fragment.set("site", site);
  if (key !== undefined) fragment.set("key", key);
  const text = fragment.toString().replaceAll("+", "%20");
  return `Playground: ${url}/playground${text === "" ? "" : `#${text}`}`;
}

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
 * Runs `serve` with its parsed options (see `registerServeCommand` for what it prints, its exit codes and
 * its errors).
 * @throws {CliError} as `registerServeCommand` lists
 */
export async function runServe(options: ServeOptions, command: Command, hooks: ServeHooks): Promise<void> {
  const output = command.configureOutput();
  const writeOut = (text: string): void => (output.writeOut ?? ((t) => process.stdout.write(t)))(text);
  const writeErr = (text: string): void => (output.writeErr ?? ((t) => process.stderr.write(t)))(text);

  const catalog = options.catalog === undefined ? undefined : await loadCatalog(options.catalog);
  const { dataset, backend, close } =
    options.database === undefined
      ? { ...(await loadDataset(options.data, catalog, writeErr, hooks.stdin)), close: async () => {} }
      : await openDatabase(options.database, options.data, catalog, writeErr, hooks.stdin);
  const users = dataset.users ?? [];
  for (const { username } of options.apiKey) {
    if (!users.some((user) => user.username === username)) {
      throw new CliError(`--api-key: the dataset has no user '${username}'.`, EXIT.usage);
    }
  }
  for (const [i, { username, key }] of options.apiKey.entries()) {
    const other = options.apiKey.slice(0, i).find((k) => k.key === key && k.username !== username);
    if (other !== undefined) {
      throw new CliError(
        `--api-key: the same key is given to users '${other.username}' and '${username}': give each user keys of their own.`,
        EXIT.usage,
      );
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
      backend,
      ...(catalog === undefined ? {} : { catalog }),
      apiKeys,
      ...(jwt === undefined ? {} : { jwt }),
      rateLimit: options.rateLimit,
      basePath: options.basePath,
      requestTimeoutMs: options.requestTimeoutMs,
      ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
      keepAliveTimeoutMs: options.keepAliveTimeoutMs,
      maxConnectionsPerAddress: options.maxConnectionsPerAddress,
      maxConnections: options.maxConnections,
      maxTimeMS: options.maxTimeMs,
      logger: { stream: { write: writeErr } },
    });
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.dataError);
  }

  try {
    await server.listen({ host: options.host, port: options.port });
  } catch (error) {
    await server.close();
    const inUse = (error as { code?: string }).code === "EADDRINUSE";
    throw new CliError(
      inUse
        ? `Cannot listen on ${options.host}:${options.port}: the address is in use. Give --port 0 to pick a free port (the first line printed names it).`
        : `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
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
  writeOut(`${playgroundLink(url, dataset, example?.username, generated?.key)}\n`);
  writeOut(`${curlExample(url, options.basePath, dataset, example?.username ?? "<user>", credential)}\n`);
  hooks.onListening?.(url, server);

  await new Promise<void>((resolve) => {
    const stop = (reason: string): void => {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
      hooks.stopSignal?.removeEventListener("abort", onAbort);
      writeErr(`Stopping (${reason}).\n`);
      server
        .close()
        .then(close)
        .then(
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
}
