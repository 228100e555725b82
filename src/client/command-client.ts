/**
 * The typed client of the three commands (specification 4; docs/semantics.md 3.1, 3), over HTTP or in
 * process. Over HTTP it uses the global `fetch` (Node 20+, browsers) unless one is given; in process it
 * calls a command handler directly (`createCommandClient({ handler, … })`), so that a playbook's unit test
 * needs no port. Both give the same methods, results and `CommandClientError`s. It shares the wire types
 * of the command layer and, for the in-process form, the handler's type; nothing else.
 */

import type { Caller, CommandHandler } from "../commands/handler-types.js";
import type {
  AddNotesResponseBody,
  ArtifactNoteContextItem,
  CommandName,
  TimelineEntryData,
  TriggeredIncidentData,
} from "../commands/wire.js";

/** Credentials: an API key (sent as header `d3key`) or a JSON web token (sent as header `d3jwt`). */
export type CommandClientCredentials = { apiKey: string; jwt?: never } | { jwt: string; apiKey?: never };

/** Options of `createCommandClient` over HTTP. */
export type HttpCommandClientOptions = CommandClientCredentials & {
  /** Only for the in-process client. */
  handler?: never;
  /** The service's base URL; commands are POSTed to `{baseUrl}/Command/{Name}`. */
  baseUrl: string;
  /** The `Username` of every request (must be the credential's user). */
  username: string;
  /** The default `Site` of every request (each call may name another). */
  site: string;
  /** The fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
  /** How many times a 429 answer is retried after its `Retry-After` (default 3). */
  maxRetries?: number;
  /** The longest `Retry-After` waited for, in milliseconds (default 60,000); a longer one fails at once. */
  maxRetryDelayMs?: number;
  /** How to wait before a retry (default `setTimeout`, aborted by the call's signal); tests pass a fake. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The longest wait for one answer, body included, in milliseconds (default 30,000; `Infinity`: no limit):
   * past it the request is aborted and the call fails with a `CommandClientError` of status 0. Each retry
   * of a 429 answer gets its own time.
   */
  timeoutMs?: number;
  /**
   * The largest answer body read, in bytes (default 256 MiB; `Infinity`: no limit). A longer body (by its
   * `Content-Length`, or as it arrives) is not read further: the connection is closed and the call fails
   * with a `CommandClientError` of status 0, so a misbehaving server cannot exhaust the caller's memory.
   */
  maxResponseBytes?: number;
};

/**
 * Options of `createCommandClient` in process: the client calls `handler` (from `createCommandHandler`)
 * as the server would after authenticating the caller. The request and the response go through
 * `JSON.stringify`/`JSON.parse` as on the wire (a `Date` arrives as its ISO string, `undefined` members
 * vanish). What only a server does (credentials, rate limits, body size, content types) is not simulated.
 */
export interface InProcessCommandClientOptions {
  /** The command handler, e.g. `createCommandHandler(createMemoryBackend(dataset))`. */
  readonly handler: CommandHandler;
  /** The `Username` of every request. */
  readonly username: string;
  /** The default `Site` of every request (each call may name another). */
  readonly site: string;
  /**
   * The authenticated caller the handler is given (default `{ username }`): another user simulates a
   * credential that is not the body's `Username` (401).
   */
  readonly caller?: Caller;
  /** Only for the HTTP client. */
  readonly baseUrl?: never;
}

/** Options of `createCommandClient`: over HTTP (`baseUrl` and a credential) or in process (`handler`). */
export type CommandClientOptions = HttpCommandClientOptions | InProcessCommandClientOptions;

/** Per-call options. */
export interface CallOptions {
  /** The `Site` of this request (default: the client's `site`). */
  readonly site?: string;
  /** Aborts the request (and any wait before a retry). */
  readonly signal?: AbortSignal;
}

/** Parameters of GetIncidentTimelineEntries (specification 4.1). */
export interface TimelineParams {
  readonly incidentNumber: string;
  /** Keeps entries containing the term, ignoring case (docs/semantics.md 2). */
  readonly filter?: string;
  /** `ASC`, `ascending`, `DESC` or `descending` (any case); default ascending. */
  readonly sortOrder?: string;
}

/** Parameters of TriggerIncidentExternalAction (specification 4.2). */
export interface TriggerParams {
  /** Search Conditions JSON (docs/semantics.md 1): an object, or an array of objects meaning OR. */
  readonly searchConditions: Record<string, unknown> | readonly Record<string, unknown>[];
  /** Delivered to each triggered playbook as its trigger data. */
  readonly triggerData: Record<string, unknown>;
  /**
   * `true`: a dry run (docs/semantics.md 3.3): the same checks and search, nothing runs or is recorded;
   * the answer's `Data.PlaybooksToRun` names the playbooks a real run would start. Default `false`.
   */
  readonly dryRun?: boolean;
}

/** Parameters of AddNotesToArtifacts (specification 4.3). */
export interface AddNoteParams {
  readonly artifactName: string;
  /** The type's integer id or its label; needed when several artifacts share the name. */
  readonly artifactType?: number | string;
  readonly note: string;
}

/** The typed client: one method per command, each resolving the command's `returnData` on success. */
export interface CommandClient {
  /**
   * @returns `returnData` of GetIncidentTimelineEntries: `{ Status: "Successful", Data: entries }`
   * @throws {CommandClientError} for a non-200 answer or a non-empty `error`
   */
  getIncidentTimelineEntries(
    params: TimelineParams,
    options?: CallOptions,
  ): Promise<{ Status: "Successful"; Data: TimelineEntryData[] }>;
  /**
   * @returns `returnData` of TriggerIncidentExternalAction: `{ Status: "Successful", Data: { IncidentId, IncidentNo, TriggeredPlaybooks } }`
   * @throws {CommandClientError} for a non-200 answer or a non-empty `error`
   */
  triggerIncidentExternalAction(
    params: TriggerParams,
    options?: CallOptions,
  ): Promise<{ Status: "Successful"; Data: TriggeredIncidentData }>;
  /**
   * AddNotesToArtifacts has a plain-text `returnData` (`Successful`), so this resolves the whole success
   * body except `error`: the HTML `result`, `returnData` and the `contextData` items.
   * @throws {CommandClientError} for a non-200 answer or a non-empty `error`
   */
  addNotesToArtifacts(
    params: AddNoteParams,
    options?: CallOptions,
  ): Promise<{ result: string; returnData: "Successful"; contextData: ArtifactNoteContextItem[] }>;
  /**
   * Sends any command with raw `CommandParams` and resolves the 200 body as is (a non-empty `error` is
   * not checked here).
   * @throws {CommandClientError} for a non-200 answer
   */
  send(command: string, commandParams: Record<string, unknown>, options?: CallOptions): Promise<unknown>;
}

/** A failed command: the HTTP status (200 for a command-level failure, 0 when no answer came) and message. */
export class CommandClientError extends Error {
  override readonly name = "CommandClientError";
  /** The HTTP status; 200 when the command answered with a non-empty `error`; 0 when the request failed. */
  readonly status: number;
  /** The command name. */
  readonly command: string;
  /** The parsed response body, when there was one. */
  readonly body: unknown;
  /** For 429: the `Retry-After` the server asked for, in milliseconds, when given. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    details: {
      status: number;
      command: string;
      body?: unknown;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.command = details.command;
    this.body = details.body;
    this.retryAfterMs = details.retryAfterMs;
  }
}

const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;
/** The default `timeoutMs` of the HTTP client: the reference server's request timeout (30 s). */
const DEFAULT_TIMEOUT_MS = 30_000;
/** The default `maxResponseBytes` of the HTTP client: 256 MiB. */
const DEFAULT_MAX_RESPONSE_BYTES = 256 * 2 ** 20;
/** The wait before retrying a 429 that carries no usable `Retry-After`. */
const DEFAULT_RETRY_DELAY_MS = 1_000;

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Reads a `Retry-After` header: delay-seconds or an HTTP date.
 * @param value - the header value, or `null`
 * @param now - the current time, epoch ms (for HTTP dates)
 * @returns milliseconds to wait (never negative), or `undefined` when absent or unreadable
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, date - now);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sends one request and resolves its 200 body (a JSON object), or throws `CommandClientError` for any other
 * answer. `requestBody` is the envelope's JSON text.
 */
type Exchange = (command: string, requestBody: string, call: CallOptions) => Promise<Record<string, unknown>>;

/**
 * Creates a typed client of the three commands, over HTTP (`baseUrl` and `apiKey` or `jwt`) or in process
 * (`handler`).
 * @param options - over HTTP: `baseUrl`, `apiKey` or `jwt`, `username`, `site`, and optionally `fetch`,
 *   `maxRetries`, `maxRetryDelayMs`, `sleep`, `timeoutMs`, `maxResponseBytes`; in process: `handler`, `username`, `site`, optionally `caller`
 * @returns a `CommandClient`
 * @throws {TypeError} over HTTP when neither or both of `apiKey` and `jwt` are given, `baseUrl` is not
 *   a URL, or `timeoutMs` or `maxResponseBytes` is not a positive number; in process when `handler` is not a function or a credential or `baseUrl` is given too
 * @example
 * const client = createCommandClient({ baseUrl: "https://soar.example/api", apiKey: key, username: "alice",
 *   site: "Security Operations" });
 * const { Data } = await client.getIncidentTimelineEntries({ incidentNumber: "20240102-1", sortOrder: "DESC" });
 * @example
 * // In a unit test: no server, no port.
 * const handler = createCommandHandler(createMemoryBackend(loadSampleDataset()));
 * const client = createCommandClient({ handler, username: "alice", site: "Security Operations" });
 */
export function createCommandClient(options: CommandClientOptions): CommandClient {
  const exchange =
    options.handler !== undefined
      ? inProcessExchange(options)
      : httpExchange(options as HttpCommandClientOptions);

  async function send(command: string, commandParams: Record<string, unknown>, call: CallOptions = {}) {
    const body = JSON.stringify({
      Username: options.username,
      Site: call.site ?? options.site,
      CommandParams: commandParams,
    });
    return exchange(command, body, call);
  }

  /** Sends and checks the command-level `error`. */
  async function call(command: CommandName, params: Record<string, unknown>, options?: CallOptions) {
    const body = await send(command, params, options);
    if (typeof body.error === "string" && body.error !== "") {
      throw new CommandClientError(body.error, { status: 200, command, body });
    }
    return body;
  }

  return {
    async getIncidentTimelineEntries(params, callOptions) {
      const body = await call(
        "GetIncidentTimelineEntries",
        {
          "Incident Number": params.incidentNumber,
          ...(params.filter === undefined ? {} : { Filter: params.filter }),
          ...(params.sortOrder === undefined ? {} : { "Sort Order": params.sortOrder }),
        },
        callOptions,
      );
      return body.returnData as { Status: "Successful"; Data: TimelineEntryData[] };
    },
    async triggerIncidentExternalAction(params, callOptions) {
      const body = await call(
        "TriggerIncidentExternalAction",
        {
          "Search Conditions": params.searchConditions,
          "Trigger Data": params.triggerData,
          ...(params.dryRun === undefined ? {} : { "Dry Run": params.dryRun }),
        },
        callOptions,
      );
      return body.returnData as { Status: "Successful"; Data: TriggeredIncidentData };
    },
    async addNotesToArtifacts(params, callOptions) {
      const body = (await call(
        "AddNotesToArtifacts",
        {
          "Artifact Name": params.artifactName,
          ...(params.artifactType === undefined ? {} : { "Artifact Type": params.artifactType }),
          Note: params.note,
        },
        callOptions,
      )) as unknown as AddNotesResponseBody;
      return {
        result: body.result,
        returnData: "Successful",
        contextData: [...body.contextData],
      };
    },
    send,
  };
}

/** The 200 body as an object, or a `CommandClientError`. */
function objectBody(command: string, parsed: unknown): Record<string, unknown> {
  if (!isObject(parsed)) {
    throw new CommandClientError(`${command} answered 200 with a body that is not a JSON object.`, {
      status: 200,
      command,
      body: parsed,
    });
  }
  return parsed;
}

/** The in-process exchange: the handler, with the request and response through JSON as on the wire. */
function inProcessExchange(options: InProcessCommandClientOptions): Exchange {
  if (typeof options.handler !== "function") {
    throw new TypeError("createCommandClient: 'handler' must be a command handler function.");
  }
  const untyped = options as { apiKey?: unknown; jwt?: unknown; baseUrl?: unknown };
  if (untyped.apiKey !== undefined || untyped.jwt !== undefined || untyped.baseUrl !== undefined) {
    throw new TypeError(
      "createCommandClient: give either 'handler' (in process) or 'baseUrl' with a credential (HTTP), not both.",
    );
  }
  const handler = options.handler;
  const caller: Caller = options.caller ?? { username: options.username };
  return async (command, requestBody, call) => {
    call.signal?.throwIfAborted();
    const response = await handler(command, JSON.parse(requestBody), caller);
    call.signal?.throwIfAborted();
    const text = JSON.stringify(response.body);
    const parsed: unknown = text === undefined ? undefined : JSON.parse(text);
    if (response.status !== 200) {
      const message =
        isObject(parsed) && typeof parsed.Error === "string" ? parsed.Error : `HTTP ${response.status}`;
      throw new CommandClientError(message, { status: response.status, command, body: parsed });
    }
    return objectBody(command, parsed);
  };
}

/** The HTTP exchange: `fetch`, with retries of 429 answers after their `Retry-After`. */
function httpExchange(options: HttpCommandClientOptions): Exchange {
  const hasKey = typeof options.apiKey === "string";
  const hasJwt = typeof options.jwt === "string";
  if (hasKey === hasJwt) throw new TypeError("createCommandClient needs exactly one of 'apiKey' and 'jwt'.");
  let base: string;
  try {
    base = new URL(options.baseUrl).href.replace(/\/+$/, "");
  } catch {
    throw new TypeError(`createCommandClient: '${options.baseUrl}' is not a valid base URL.`);
  }
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const sleep = options.sleep ?? defaultSleep;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) {
    throw new TypeError(
      `createCommandClient: 'timeoutMs' must be a positive number, found ${String(timeoutMs)}.`,
    );
  }
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!(typeof maxResponseBytes === "number" && maxResponseBytes > 0)) {
    throw new TypeError(
      `createCommandClient: 'maxResponseBytes' must be a positive number, found ${String(maxResponseBytes)}.`,
    );
  }
  const authHeader: Record<string, string> = hasKey ? { d3key: options.apiKey! } : { d3jwt: options.jwt! };

  return async (command, body, call) => {
    const url = `${base}/Command/${encodeURIComponent(command)}`;
    for (let attempt = 0; ; attempt++) {
      const timeout = Number.isFinite(timeoutMs) ? AbortSignal.timeout(timeoutMs) : undefined;
      const signal =
        timeout === undefined || call.signal === undefined
          ? (timeout ?? call.signal)
          : AbortSignal.any([call.signal, timeout]);
      const failed = (error: unknown): unknown => {
        if (call.signal?.aborted) return error;
        const why = timeout?.aborted
          ? `took longer than ${timeoutMs} ms`
          : `failed: ${(error as Error)?.message ?? String(error)}`;
        return new CommandClientError(`The request to ${command} ${why}.`, {
          status: 0,
          command,
          cause: error,
        });
      };
      let response: Response;
      let text: string;
      try {
        response = await doFetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", ...authHeader },
          body,
          ...(signal === undefined ? {} : { signal }),
        });
        text = await readBody(response, maxResponseBytes);
      } catch (error) {
        if (error instanceof ResponseTooLarge) {
          throw new CommandClientError(
            `The answer to ${command} is longer than ${maxResponseBytes} bytes; it was not read.`,
            { status: 0, command },
          );
        }
        throw failed(error);
      }
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (response.status === 429) {
        const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), Date.now());
        const delay = retryAfterMs ?? DEFAULT_RETRY_DELAY_MS;
        if (attempt < maxRetries && delay <= maxRetryDelayMs) {
          await sleep(delay, call.signal);
          continue;
        }
        throw new CommandClientError(messageOf(parsed, response), {
          status: 429,
          command,
          body: parsed,
          retryAfterMs,
        });
      }
      if (response.status !== 200) {
        throw new CommandClientError(messageOf(parsed, response), {
          status: response.status,
          command,
          body: parsed,
        });
      }
      return objectBody(command, parsed);
    }
  };
}

/** Thrown by `readBody` when an answer is longer than allowed. */
class ResponseTooLarge extends Error {}

/**
 * Reads a response body as UTF-8 text (invalid sequences replaced, as `Response.text()` does), at most
 * `maxBytes` bytes: a longer body (by its `Content-Length`, or as it arrives) is cancelled, which closes the
 * connection.
 * @throws {ResponseTooLarge} when the body is longer than `maxBytes`
 */
async function readBody(response: Response, maxBytes: number): Promise<string> {
  if (!Number.isFinite(maxBytes)) return response.text();
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLarge();
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

function messageOf(body: unknown, response: Response): string {
  if (isObject(body) && typeof body.Error === "string") return body.Error;
  return `HTTP ${response.status}${response.statusText === "" ? "" : ` ${response.statusText}`}`;
}
