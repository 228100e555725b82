/**
 * The options of `createServer` (docs/semantics.md 3.1, docs/server.md): their defaults, and their checks
 * (every number a positive integer, every time at most what Node's timers hold) before a server is made.
 */
import type { Backend, CommandHandler, Dataset } from "../commands/index.js";
import type { FieldCatalog } from "../conditions/catalog.js";
import type { ApiKey, JwtOptions } from "./auth.js";
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_DEPTH,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from "./defaults.js";

/** Where the server's structured log lines go. */
export interface ServerLoggerOptions {
  /** Pino level (`info` by default). */
  readonly level?: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Destination of the JSON lines (default: standard output). */
  readonly stream?: {
    /** Receives one JSON log line, ending in a newline. */
    write(line: string): void;
  };
}

/** Options of `createServer`. */
export interface ServerOptions {
  /**
   * The command handler. Default: `createCommandHandler(backend)` where `backend` is `options.backend`, or
   * a memory backend over `options.dataset`, or over the bundled sample dataset.
   */
  readonly handler?: CommandHandler;
  /** The backend of the default handler (ignored when `handler` is given). */
  readonly backend?: Backend;
  /** The dataset of the default memory backend (ignored when `handler` or `backend` is given). */
  readonly dataset?: Dataset;
  /** Accepted API keys (header `d3key`); a user may have several. */
  readonly apiKeys?: readonly ApiKey[];
  /** Accepted JSON web tokens (header `d3jwt`): HS256 with a secret, RS256/ES256 with a public key. */
  readonly jwt?: JwtOptions;
  /** Requests per window per authenticated user, a positive integer (default 600). */
  readonly rateLimit?: number;
  /** The rate-limit window in milliseconds (default 60,000: the limit is per minute). */
  readonly rateLimitWindowMs?: number;
  /**
   * Prefix of the command paths: `""` (default) serves `POST /Command/{Name}`, `"/VSOC/api"` serves
   * `POST /VSOC/api/Command/{Name}`. Starts with `/`, no trailing `/`, no `:` or `*`.
   */
  readonly basePath?: string;
  /** Largest accepted request body in bytes (default 1 MiB); a larger one is 413. */
  readonly bodyLimit?: number;
  /** `false` (default) logs nothing; `true` logs JSON lines to standard output; or a level and a stream. */
  readonly logger?: boolean | ServerLoggerOptions;
  /**
   * Milliseconds a request's headers and body may take to arrive, counted from its first byte (default
   * 30,000). A request still incomplete then is answered 408 `{"Error": "The request took too long to
   * arrive."}` and its connection closed (checked every `min(1000, requestTimeoutMs / 4)` ms, so the
   * answer comes at most a quarter of the timeout, and at most a second, late). docs/semantics.md 3.1.
   */
  readonly requestTimeoutMs?: number;
  /**
   * Milliseconds the command handler may take once the body has arrived (default: `requestTimeoutMs`). A
   * command still unanswered then is answered 500 `{"Error": "Unexpected Error."}` and logged: whatever
   * the backend was doing (a database that stopped answering) may still take effect, so it is not a 503.
   * docs/semantics.md 3.1, "When the data cannot be reached".
   */
  readonly commandTimeoutMs?: number;
  /** Milliseconds an idle keep-alive connection stays open after its last answer (default 5,000). */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Connections one client address (the TCP peer's address, exactly as reported) may hold open at once
   * (default 64); a connection beyond it is closed at once, before any byte is read. docs/semantics.md 3.1.
   */
  readonly maxConnectionsPerAddress?: number;
  /** Connections the server holds open at once, all addresses together (default 1,000); beyond: closed. */
  readonly maxConnections?: number;
  /**
   * Time budget of the Search Conditions search of TriggerIncidentExternalAction, in milliseconds (default
   * 2,000; docs/semantics.md 1.7), measured with `performance.now()`. Used by the default handler only.
   */
  readonly maxTimeMS?: number;
  /**
   * The field catalogue (custom incident fields and labels, docs/semantics.md 1.6) of the default memory
   * backend and of the default handler's Search Conditions parser. Ignored when `handler` is given, and for
   * the backend when `backend` is given.
   */
  readonly catalog?: FieldCatalog;
  /**
   * Deepest accepted nesting of a request body, in levels of JSON objects and arrays (default 256); a
   * deeper body is answered 400 with an `Error` that says so (docs/semantics.md section 3).
   */
  readonly maxBodyDepth?: number;
}

const BASE_PATH_RE = /^(?:\/[A-Za-z0-9._~!$&'()+,;=@%-]+)*$/;

/**
 * Checks and normalizes a base path: `""`, `"/"` → `""`; `"/VSOC/api/"` → `"/VSOC/api"`.
 * @throws {Error} when the path does not start with `/` or holds a character a route cannot hold
 */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.endsWith("/") ? basePath.slice(0, -1) : basePath;
  if (!BASE_PATH_RE.test(trimmed) || trimmed.includes("//")) {
    throw new Error(
      `The base path must be empty or start with '/' and hold only path characters (no ':', '*', '?' or '#'); found '${basePath}'.`,
    );
  }
  return trimmed;
}

/** The limits of a server: the options checked, their defaults filled in (milliseconds, bytes, counts). */
export interface ServerLimits {
  readonly rateLimit: number;
  readonly rateLimitWindowMs: number;
  readonly bodyLimit: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnectionsPerAddress: number;
  readonly maxConnections: number;
  readonly commandTimeoutMs: number;
  readonly maxTimeMS: number;
  readonly maxBodyDepth: number;
}

/**
 * The limits of `options`, with their defaults.
 * @throws {Error} when a number option is not a positive integer, or a time option (`rateLimitWindowMs`,
 *   `requestTimeoutMs`, `keepAliveTimeoutMs`, `commandTimeoutMs`, `maxTimeMS`) exceeds 2,147,483,647 ms
 */
export function resolveLimits(options: ServerOptions): ServerLimits {
  const time = (name: string, value: number): number => positiveInteger(name, value, MAX_TIMER_MS);
  // One after the other, in this order: the first invalid option is the one reported.
  const rateLimit = positiveInteger("rateLimit", options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const rateLimitWindowMs = time("rateLimitWindowMs", options.rateLimitWindowMs ?? 60_000);
  const bodyLimit = positiveInteger("bodyLimit", options.bodyLimit ?? DEFAULT_BODY_LIMIT);
  const requestTimeoutMs = time("requestTimeoutMs", options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  return {
    rateLimit,
    rateLimitWindowMs,
    bodyLimit,
    requestTimeoutMs,
    keepAliveTimeoutMs: time(
      "keepAliveTimeoutMs",
      options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    ),
    maxConnectionsPerAddress: positiveInteger(
      "maxConnectionsPerAddress",
      options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    ),
    maxConnections: positiveInteger("maxConnections", options.maxConnections ?? DEFAULT_MAX_CONNECTIONS),
    commandTimeoutMs: time("commandTimeoutMs", options.commandTimeoutMs ?? requestTimeoutMs),
    maxTimeMS: time("maxTimeMS", options.maxTimeMS ?? DEFAULT_MAX_TIME_MS),
    maxBodyDepth: positiveInteger("maxBodyDepth", options.maxBodyDepth ?? DEFAULT_MAX_BODY_DEPTH),
  };
}

/** Fastify's `logger` option of `ServerOptions.logger`: credentials redacted, `info` by default. */
export function loggerOption(logger: ServerOptions["logger"]): boolean | Record<string, unknown> {
  if (logger === undefined || logger === false) return false;
  const base = {
    level: "info",
    // Belt and braces: the default request serializer logs no headers, and these are never logged.
    redact: {
      paths: ["req.headers.d3key", "req.headers.d3jwt", "headers.d3key", "headers.d3jwt"],
      remove: true,
    },
  };
  if (logger === true) return base;
  return {
    ...base,
    ...(logger.level === undefined ? {} : { level: logger.level }),
    ...(logger.stream === undefined ? {} : { stream: logger.stream }),
  };
}

/** `value` when it is a safe integer from 1 to `max`; else an `Error` naming the option. */
function positiveInteger(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    const bound = max === Number.MAX_SAFE_INTEGER ? "" : ` of at most ${max} (${MAX_TIMER_NOTE})`;
    throw new Error(`${name} must be a positive integer${bound}; found ${String(value)}.`);
  }
  return value;
}

/** The longest delay Node's timers hold, in milliseconds: a longer one is cut to it, with a warning. */
const MAX_TIMER_MS = 2_147_483_647;
const MAX_TIMER_NOTE = "the longest timer Node holds, about 24.8 days";
