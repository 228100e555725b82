/**
 * The reference command server: a thin Fastify 5 adapter over the command handler (DESIGN.md, layers).
 * It routes `POST {basePath}/Command/{Name}`, authenticates, rate-limits, reads the body, and hands the
 * rest to the handler; no command logic lives here. Every rule is from docs/semantics.md 3.1 unless noted.
 *
 * Order of checks for a command request:
 * 1. authentication (`d3key` / `d3jwt`): 401, for every path under `{basePath}/Command/`, known or not,
 *    whatever the method (docs/semantics.md 3.1: authentication comes first);
 * 2. rate limit per authenticated user: 429 with `Retry-After` (failed authentications are limited per
 *    client address with the same budget, so keys cannot be guessed at line speed; once that budget is
 *    spent the address gets 429 whatever its credential, so a right guess does not stand out);
 * 3. routing: a method other than POST on a command path is 405, once the caller is authenticated;
 * 4. body: 415 for a `Content-Encoding` other than `identity` (bodies are never inflated); 413 over the
 *    size limit; 400 for a body nested deeper than `maxBodyDepth`; 400 for anything that is not a JSON
 *    object, including a `Content-Type` other than `application/json` (a missing one is read as JSON);
 * 5. the body's `Username` must be the credential's user: 401;
 * 6. the command handler: 404 unknown command, 400 envelope, 200 command results, 500.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { type IncomingMessage, maxHeaderSize, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import rateLimitPlugin from "@fastify/rate-limit";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import {
  type Backend,
  type Caller,
  type CommandHandler,
  createCommandHandler,
  createMemoryBackend,
  type Dataset,
  INVALID_JSON,
  loadSampleDataset,
  MESSAGES,
} from "../commands/index.js";
import { duplicateKeyMessage } from "../commands/json-text-param.js";
import type { FieldCatalog } from "../conditions/catalog.js";
import { type DuplicateKey, findDuplicateKey } from "../conditions/json-duplicate-keys.js";
import { type ApiKey, type AuthFailure, createAuthenticator, type JwtOptions } from "./auth.js";
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_DEPTH,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  normalizeBasePath,
} from "./limits.js";
import { registerWebRoutes } from "./web-routes.js";

export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_DEPTH,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  normalizeBasePath,
} from "./limits.js";

/** The 417 body of a request whose `Expect` header is not `100-continue`. */
const EXPECTATION_FAILED_BODY = JSON.stringify({
  Error: "The Expect header is not supported: only '100-continue' is.",
});

/** The 408 body of a request that took too long to arrive (docs/semantics.md 3.1). */
const REQUEST_TIMEOUT_BODY = JSON.stringify({ Error: "The request took too long to arrive." });

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

/** The state of one command request, kept beside the request object. */
interface RequestState {
  caller?: Caller;
  command?: string;
  authFailure?: AuthFailure;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Is the media type `application/json` with, at most, a UTF-8 charset? A missing header counts as JSON. */
function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return true;
  const [type = "", ...parameters] = header.split(";");
  if (type.trim().toLowerCase() !== "application/json") return false;
  for (const parameter of parameters) {
    const eq = parameter.indexOf("=");
    const name = parameter
      .slice(0, eq < 0 ? undefined : eq)
      .trim()
      .toLowerCase();
    if (name !== "charset") continue;
    const value = (eq < 0 ? "" : parameter.slice(eq + 1))
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (value !== "utf-8" && value !== "utf8") return false;
  }
  return true;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The error of a request body nested deeper than the server's limit (docs/semantics.md section 3); the
 * server answers it 400 with its message.
 */
export class BodyTooDeepError extends Error {
  override readonly name = "BodyTooDeepError";
  /** The limit that was exceeded, in levels of JSON objects and arrays. */
  readonly maxDepth: number;
  /** @param maxDepth - the limit that was exceeded, in levels */
  constructor(maxDepth: number) {
    super(`The body of the request is nested deeper than ${maxDepth} levels of objects and arrays.`);
    this.maxDepth = maxDepth;
  }
}

/**
 * The error of a request body in which one object holds the same key twice (docs/semantics.md 3.1,
 * "Duplicate keys"): `JSON.parse` would keep the last silently, so the handler would act on a value other
 * readers of the body may not see. The server answers it 400 with its message.
 */
export class BodyDuplicateKeyError extends Error {
  override readonly name = "BodyDuplicateKeyError";
  /** The repeated key, and the path of its second occurrence from the body's root. */
  readonly duplicate: DuplicateKey;
  /** @param duplicate - the repeated key and its path (from `findDuplicateKey`) */
  constructor(duplicate: DuplicateKey) {
    super(duplicateKeyMessage("The body of the request", duplicate));
    this.duplicate = duplicate;
  }
}

/**
 * Reads a request body as JSON: strict UTF-8, then `JSON.parse` (which never recurses into the stack, at
 * any depth), then one iterative walk: deeper than `maxDepth` levels of objects and arrays (the top-level
 * value is level 1) is an error; last, one linear scan of the text for a key repeated in one object, which
 * is an error too. A `__proto__` key is valid JSON: `JSON.parse` keeps it as an own data property (it never
 * sets a prototype), and the command layer judges it where it stands (an ignored envelope field, a Search
 * Conditions issue with its path, a refused `Trigger Data` key: docs/semantics.md 3.1, "Prototype keys").
 * @param raw - the body's bytes
 * @param maxDepth - deepest accepted nesting (default `DEFAULT_MAX_BODY_DEPTH`, 256)
 * @returns the parsed value, or `INVALID_JSON` (not UTF-8, or not JSON)
 * @throws {BodyTooDeepError} when valid JSON is nested deeper than `maxDepth` (docs/semantics.md
 *   section 3)
 * @throws {BodyDuplicateKeyError} when one object of valid JSON holds a key twice (docs/semantics.md 3.1)
 */
export function readJsonBody(raw: Uint8Array, maxDepth: number = DEFAULT_MAX_BODY_DEPTH): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return INVALID_JSON;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return INVALID_JSON;
  }
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop();
    const depth = depths.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > maxDepth) throw new BodyTooDeepError(maxDepth);
    if (Array.isArray(node)) {
      for (const item of node) {
        stack.push(item);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const nested of Object.values(node)) {
      stack.push(nested);
      depths.push(depth + 1);
    }
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) throw new BodyDuplicateKeyError(duplicate);
  return value;
}

/**
 * Is the `Content-Encoding` header absent or `identity` (case-insensitive; a list of `identity` tokens
 * too)? Anything else is 415: the server never inflates a body (docs/semantics.md 3.1).
 */
function isIdentityEncoding(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  const tokens = (Array.isArray(header) ? header.join(",") : header).split(",");
  return tokens.every((token) => token.trim().toLowerCase() === "identity");
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const sendError = (reply: FastifyReply, status: number, message: string): FastifyReply =>
  reply
    .code(status)
    .type("application/json; charset=utf-8")
    .send(JSON.stringify({ Error: message }));

/** The request path without its query string, cut to 200 characters for the log. */
const pathOf = (url: string): string => {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

function loggerOption(logger: ServerOptions["logger"]): boolean | Record<string, unknown> {
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

/**
 * Creates the reference command server (specification sections 4, 5, 7, 8; docs/semantics.md 3.1).
 * Routes: `POST {basePath}/Command/{Name}` (the `Command` segment and the name in any case; the whole
 * path matches case-insensitively), `GET /healthz` (200 `{"status":"ok"}`, no authentication), and, without
 * authentication either, `GET /openapi.json` (`openApiDocument`), `GET /schema/search-conditions.json`
 * (`searchConditionsJsonSchema` of the catalogue) and the playground under `GET /playground` (docs/server.md).
 * Every error body is `{"Error": "…"}`. Responses carry an `x-request-id` header; the log holds one
 * JSON line per request with `reqId`, `method`, `path`, `command`, `user`, `status` and `ms`, and never a
 * credential.
 * @param options - credentials (at least one API key or JWT key), handler or data, limits, base path, logger
 * @returns the Fastify instance, not yet listening: call `await server.listen({ host, port })`, and
 *   `await server.close()` to stop
 * @throws {Error} when no credential is configured, a credential is malformed (see `createAuthenticator`),
 *   the base path is invalid, a number option is not a positive integer, or a time option
 *   (`rateLimitWindowMs`, `requestTimeoutMs`, `keepAliveTimeoutMs`, `maxTimeMS`) exceeds 2,147,483,647 ms
 * @example
 * const server = createServer({ apiKeys: [{ username: "analyst", key: "s3cret" }] });
 * await server.listen({ host: "127.0.0.1", port: 8080 });
 */
export function createServer(options: ServerOptions = {}): FastifyInstance {
  const authenticator = createAuthenticator({
    ...(options.apiKeys === undefined ? {} : { apiKeys: options.apiKeys }),
    ...(options.jwt === undefined ? {} : { jwt: options.jwt }),
  });
  const basePath = normalizeBasePath(options.basePath ?? "");
  const rateLimit = positiveInteger("rateLimit", options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const rateLimitWindowMs = positiveInteger(
    "rateLimitWindowMs",
    options.rateLimitWindowMs ?? 60_000,
    MAX_TIMER_MS,
  );
  const bodyLimit = positiveInteger("bodyLimit", options.bodyLimit ?? DEFAULT_BODY_LIMIT);
  const requestTimeoutMs = positiveInteger(
    "requestTimeoutMs",
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    MAX_TIMER_MS,
  );
  const keepAliveTimeoutMs = positiveInteger(
    "keepAliveTimeoutMs",
    options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    MAX_TIMER_MS,
  );
  const maxConnectionsPerAddress = positiveInteger(
    "maxConnectionsPerAddress",
    options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  );
  const maxConnections = positiveInteger("maxConnections", options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const commandTimeoutMs = positiveInteger(
    "commandTimeoutMs",
    options.commandTimeoutMs ?? requestTimeoutMs,
    MAX_TIMER_MS,
  );
  const maxTimeMS = positiveInteger("maxTimeMS", options.maxTimeMS ?? DEFAULT_MAX_TIME_MS, MAX_TIMER_MS);
  const maxBodyDepth = positiveInteger("maxBodyDepth", options.maxBodyDepth ?? DEFAULT_MAX_BODY_DEPTH);
  const catalog = options.catalog;
  // The default handler reports unexpected errors through `onError`; the request being handled is found
  // through AsyncLocalStorage so the details reach the log line of that request id.
  const currentRequest = new AsyncLocalStorage<FastifyRequest>();
  const handler =
    options.handler ??
    createCommandHandler(
      options.backend ??
        createMemoryBackend(options.dataset ?? loadSampleDataset(), catalog === undefined ? {} : { catalog }),
      {
        ...(catalog === undefined ? {} : { parseOptions: { catalog } }),
        maxTimeMS,
        clock: () => performance.now(),
        onError: (error, context) => {
          const log = currentRequest.getStore()?.log ?? app.log;
          log.error(
            { err: error, command: context.command, user: context.username },
            "unexpected error in a command",
          );
        },
      },
    );

  // Every path under {basePath}/Command/ is a command path, whatever follows (docs/semantics.md 3.1).
  const commandPathRe = new RegExp(`^${escapeRegExp(basePath)}/command/`, "i");
  const states = new WeakMap<FastifyRequest, RequestState>();
  const stateOf = (request: FastifyRequest): RequestState => {
    let state = states.get(request);
    if (state === undefined) {
      state = {};
      states.set(request, state);
    }
    return state;
  };

  /** Authentication and rate limit of a command path (set once the routes are registered). */
  let gate: ((request: FastifyRequest, reply: FastifyReply) => Promise<boolean>) | undefined;
  /**
   * The budget of failed authentications of a client address: with `count`, one more failure is counted.
   * The seconds to wait once the budget is spent, else undefined (set once the routes are registered).
   */
  let addressBudget: ((address: string, count: boolean) => Promise<number | undefined>) | undefined;

  const app = Fastify({
    logger: loggerOption(options.logger),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit,
    routerOptions: { caseSensitive: false },
    return503OnClosing: false,
    // docs/semantics.md 3.1 timeouts: Node's own checks, run often enough to be on time (Node's default
    // checking interval is 30 s, which would let a 30 s request live up to a minute).
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(requestTimeoutMs / 4))),
      // Node would answer a missing Host itself, 400 with an empty body; the onRequest hook answers it with
      // an `Error` body instead (every error is JSON, docs/server.md "Malformed HTTP").
      requireHostHeader: false,
    },
    frameworkErrors: (error, request, reply) => {
      // A command path whose name cannot even be decoded still authenticates first (docs/semantics.md 3.1).
      if (commandPathRe.test(pathOf(request.url)) && gate !== undefined) {
        const check = gate;
        void check(request, reply).then(
          (passed) => {
            if (passed) sendError(reply, 400, "The request URL is not valid.");
          },
          () => sendError(reply, 500, MESSAGES.unexpected),
        );
        return;
      }
      if (error.code === "FST_ERR_BAD_URL") sendError(reply, 400, "The request URL is not valid.");
      else sendError(reply, 404, "Not found.");
    },
    clientErrorHandler: (error, socket) => {
      const code = (error as { code?: string }).code;
      const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
        socket.destroy();
        return;
      }
      if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
        app.log.info({ remoteAddress: socket.remoteAddress }, "request timeout: answered 408, closed");
        socket.end(
          "HTTP/1.1 408 Request Timeout\r\n" +
            `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(REQUEST_TIMEOUT_BODY)}\r\n` +
            `Connection: close\r\n\r\n${REQUEST_TIMEOUT_BODY}`,
        );
        socket.destroySoon();
        return;
      }
      const tooLarge = code === "HPE_HEADER_OVERFLOW";
      // A command path authenticates first, whatever its length (docs/semantics.md 3.1, "Over-long request
      // lines"): when the bytes that overflowed hold the request line, the credential they carry is judged.
      const overflowed = tooLarge
        ? overflowedCommandRequest((error as { rawPacket?: unknown }).rawPacket)
        : undefined;
      if (overflowed !== undefined) {
        // 431 to a caller whose credential is valid; else 401 (or 429), counted against the address.
        void judgeRaw(
          socket,
          overflowed,
          "431 Request Header Fields Too Large",
          "The request headers are too large.",
        );
        return;
      }
      const body = JSON.stringify({
        Error: tooLarge ? "The request headers are too large." : "The request is not valid HTTP.",
      });
      socket.end(
        `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    },
  });

  /**
   * The credential headers of a request whose request line and headers overflowed Node's limit, when the
   * bytes that overflowed (Node's `rawPacket`, the chunk being parsed) begin with a request line whose
   * target is a command path; `undefined` otherwise.
   */
  function overflowedCommandRequest(raw: unknown): Record<string, string | string[]> | undefined {
    if (!(raw instanceof Uint8Array)) return undefined;
    const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("latin1");
    // The packet may begin with requests that were answered (pipelined): its first request is the one that
    // overflowed only when its head does not end within the limit.
    const headEnd = text.indexOf("\r\n\r\n");
    if (headEnd >= 0 && headEnd + 4 <= maxHeaderSize) return undefined;
    const line = /^[A-Za-z]+ (?:[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/ \r\n]*)?(\/[^ \r\n]*)/.exec(text);
    if (line === null || !commandPathRe.test(line[1]!)) return undefined;
    const headers: Record<string, string | string[]> = {};
    const start = text.indexOf("\r\n");
    if (start < 0) return headers;
    for (let at = start + 2; ; ) {
      const end = text.indexOf("\r\n", at);
      if (end <= at) break; // the end of the headers, or a line not received whole
      const colon = text.indexOf(":", at);
      if (colon > at && colon < end) {
        const name = text.slice(at, colon).trim().toLowerCase();
        if (name === "d3key" || name === "d3jwt") {
          const value = text.slice(colon + 1, end).trim();
          const before = headers[name];
          headers[name] = before === undefined ? value : [...[before].flat(), value];
        }
      }
      at = end + 2;
    }
    return headers;
  }

  /**
   * Authenticates a request that no route answers (an over-long one, `CONNECT`) and answers on its socket:
   * 429 while its address's budget of failed authentications is spent (whatever the credential, so that a
   * right guess does not stand out), 401 for a missing or invalid credential (counted against that budget),
   * else `status` with `message`.
   */
  async function judgeRaw(
    socket: Socket,
    headers: Readonly<Record<string, string | string[] | undefined>>,
    status: string,
    message: string,
    extraHeaders = "",
  ): Promise<void> {
    const address = socket.remoteAddress ?? "";
    const spent = await addressBudget?.(address, false).catch(() => undefined);
    if (spent !== undefined)
      return answerRaw(socket, "429 Too Many Requests", MESSAGES.rateLimited, `Retry-After: ${spent}\r\n`);
    const auth = await authenticator.authenticate(headers).catch(() => ({ ok: false as const }));
    if (auth.ok) return answerRaw(socket, status, message, extraHeaders);
    const retryAfter = await addressBudget?.(address, true).catch(() => undefined);
    if (retryAfter === undefined) return answerRaw(socket, "401 Unauthorized", MESSAGES.unauthorized);
    return answerRaw(socket, "429 Too Many Requests", MESSAGES.rateLimited, `Retry-After: ${retryAfter}\r\n`);
  }

  /** Writes a whole answer with an `Error` body on a socket no request object owns, and closes it. */
  function answerRaw(socket: Socket, status: string, message: string, headers = ""): void {
    if (socket.destroyed || !socket.writable) return;
    const body = JSON.stringify({ Error: message });
    socket.end(
      `HTTP/1.1 ${status}\r\n${headers}` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }

  // CONNECT never reaches a route (Node hands it to this event, and closes the socket when nobody listens):
  // on a command path it authenticates first like every other method, then 405 (docs/semantics.md 3.1).
  app.server.on("connect", (request: IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    if (commandPathRe.test(pathOf(request.url ?? ""))) {
      const message = "Method CONNECT is not allowed: commands are called with POST.";
      void judgeRaw(socket, request.headers, "405 Method Not Allowed", message, "Allow: POST\r\n");
    } else answerRaw(socket, "404 Not Found", "Not found.");
  });

  // Connection caps (docs/semantics.md 3.1): all addresses by Node's maxConnections, each address here.
  app.server.maxConnections = maxConnections;
  const openByAddress = new Map<string, number>();
  app.server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const open = openByAddress.get(address) ?? 0;
    if (open >= maxConnectionsPerAddress) {
      app.log.debug({ remoteAddress: address }, "connection refused: per-address cap");
      socket.destroy();
      return;
    }
    openByAddress.set(address, open + 1);
    socket.once("close", () => {
      const left = (openByAddress.get(address) ?? 1) - 1;
      if (left <= 0) openByAddress.delete(address);
      else openByAddress.set(address, left);
    });
  });

  // An `Expect` other than `100-continue`: Node would answer 417 with an empty body; answer it with an
  // `Error` body and close, since the client may send its body anyway (docs/server.md "Malformed HTTP").
  app.server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(417, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(EXPECTATION_FAILED_BODY),
      connection: "close",
    });
    response.end(EXPECTATION_FAILED_BODY);
  });

  // Idle keep-alive (docs/semantics.md 3.1): Node arms the idle timer of a kept-alive socket at keepAliveTimeout
  // plus a one-second grace of its own once an answer is finished; re-arm it at exactly keepAliveTimeoutMs
  // (Node disarms it when the next request begins, as before).
  // An answer the client does not read (docs/server.md "Slow and greedy clients"): once the whole answer
  // is handed to the socket, the socket must make progress (write or read a byte) every requestTimeoutMs,
  // or it is destroyed with whatever is still buffered for it. A steady reader, however slow, is kept.
  app.server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    response.once("prefinish", () => {
      const socket = request.socket;
      if (!socket.destroyed && !response.writableFinished) socket.setTimeout(requestTimeoutMs);
    });
    response.once("finish", () => {
      const socket = request.socket;
      if (!socket.destroyed && (socket.timeout ?? 0) > 0) socket.setTimeout(keepAliveTimeoutMs);
    });
  });

  // Body: every media type is read as bytes (up to bodyLimit) and judged here, so that a Content-Type
  // other than application/json gets the specification's 400 body rather than Fastify's 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    if (!isJsonContentType(request.headers["content-type"])) {
      done(null, INVALID_JSON);
      return;
    }
    let value: unknown;
    try {
      value = readJsonBody(body as Buffer, maxBodyDepth);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.header("cache-control", "no-store");
    // RFC 9112 3.2: an HTTP/1.1 request without Host is 400 (Node's own check is off, see `http` above).
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      reply.header("connection", "close");
      return sendError(reply, 400, "The request is not valid HTTP: an HTTP/1.1 request needs a Host header.");
    }
    return undefined;
  });

  app.addHook("onResponse", async (request, reply) => {
    const state = states.get(request);
    request.log.info(
      {
        method: request.method,
        path: pathOf(request.url),
        command: state?.command,
        user: state?.caller?.username,
        authFailure: state?.authFailure,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      "request",
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof BodyTooDeepError || error instanceof BodyDuplicateKeyError) {
      return sendError(reply, 400, error.message);
    }
    const status = error.statusCode ?? 500;
    if (status === 413 || error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return sendError(reply, 413, `The body of the request exceeds the limit of ${bodyLimit} bytes.`);
    }
    if (status >= 400 && status < 500) return sendError(reply, 400, MESSAGES.badBody);
    request.log.error({ err: error }, "unexpected error");
    return sendError(reply, 500, MESSAGES.unexpected);
  });

  app.setNotFoundHandler(async (request, reply) => {
    if (request.method !== "POST" && commandPathRe.test(pathOf(request.url))) {
      // Authentication comes first, whatever the method (docs/semantics.md 3.1).
      if (gate !== undefined && !(await gate(request, reply))) return reply;
      return reply
        .header("allow", "POST")
        .code(405)
        .type("application/json; charset=utf-8")
        .send(
          JSON.stringify({
            Error: `Method ${request.method} is not allowed: commands are called with POST.`,
          }),
        );
    }
    // RFC 9110 15.5.6: a path that exists, asked with a method it does not answer, is 405 with `Allow`.
    if (/^\/healthz$/i.test(pathOf(request.url))) {
      reply.header("allow", "GET, HEAD");
      return sendError(reply, 405, `Method ${request.method} is not allowed: /healthz answers GET.`);
    }
    return sendError(reply, 404, `Not found. Commands are served at POST ${basePath}/Command/{Name}.`);
  });

  app.get("/healthz", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send('{"status":"ok"}'),
  );
  // GET /openapi.json, /schema/search-conditions.json, /playground (docs/server.md): no data, no credential.
  registerWebRoutes(app, { basePath, catalog });

  app.register(async (scope) => {
    await scope.register(rateLimitPlugin, { global: false });
    const limiter = scope.createRateLimit({
      max: rateLimit,
      timeWindow: rateLimitWindowMs,
      keyGenerator: (request) => {
        const caller = states.get(request)?.caller;
        return caller === undefined ? `address:${request.ip}` : `user:${caller.username}`;
      },
    });

    /** Runs the limiter; answers 429 and returns false when the budget is spent. */
    async function withinLimit(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
      const result = await limiter(request);
      if (result.isAllowed) return true;
      const reset = Math.max(1, result.ttlInSeconds);
      reply.header("x-ratelimit-limit", result.max);
      reply.header("x-ratelimit-remaining", result.remaining);
      reply.header("x-ratelimit-reset", reset);
      if (!result.isExceeded) return true;
      reply.header("retry-after", reset);
      sendError(reply, 429, MESSAGES.rateLimited);
      return false;
    }

    /**
     * The budget of failed authentications of an address (see `addressBudget`). The limiter reads only the
     * address (through `keyGenerator`, which keys a request without a caller by its address) and the
     * route's config of a request.
     */
    const budgetOf = async (address: string, count: boolean): Promise<number | undefined> => {
      const result = await limiter(
        { ip: address, routeOptions: { config: {} } } as unknown as FastifyRequest,
        { increment: count },
      );
      return result.isAllowed || !result.isExceeded ? undefined : Math.max(1, result.ttlInSeconds);
    };
    addressBudget = budgetOf;

    /**
     * Authentication, then the rate limit: false once it has answered (401 or 429). An address whose
     * failed authentications spent its budget gets 429 whatever its credential, so that a right guess
     * does not stand out from the wrong ones.
     */
    async function authenticated(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
      const state = stateOf(request);
      const auth = await authenticator.authenticate(request.headers);
      if (auth.ok) {
        const spent = await budgetOf(request.ip, false);
        if (spent !== undefined) {
          reply.header("retry-after", spent);
          sendError(reply, 429, MESSAGES.rateLimited);
          return false;
        }
        state.caller = auth.caller;
      } else state.authFailure = auth.reason;
      if (!(await withinLimit(request, reply))) return false;
      if (!auth.ok) {
        sendError(reply, 401, MESSAGES.unauthorized);
        return false;
      }
      return true;
    }
    gate = authenticated;

    // A wildcard, not a `:name` parameter: a parameter is capped in length by the router (a long name
    // would be 404 before authentication), a wildcard is not; the handler judges the name.
    scope.route<{ Params: { "*": string } }>({
      method: "POST",
      url: `${basePath}/Command/*`,
      onRequest: async (request, reply) => {
        stateOf(request).command = request.params["*"];
        if (!(await authenticated(request, reply))) return reply;
        const encoding = request.headers["content-encoding"];
        if (!isIdentityEncoding(encoding)) {
          return sendError(
            reply,
            415,
            `The Content-Encoding '${String(encoding).slice(0, 100)}' is not supported: send the body uncompressed (identity).`,
          );
        }
        return undefined;
      },
      handler: async (request, reply) => {
        const state = stateOf(request);
        const caller = state.caller;
        if (caller === undefined) return sendError(reply, 401, MESSAGES.unauthorized);
        const body: unknown = request.body === undefined ? INVALID_JSON : request.body;
        // A blank `Username` is the envelope's 400 (the handler names the field), not a mismatch.
        if (
          isPlainObject(body) &&
          typeof body.Username === "string" &&
          body.Username.trim() !== "" &&
          body.Username !== caller.username
        ) {
          state.authFailure = "username_mismatch";
          return sendError(reply, 401, MESSAGES.unauthorized);
        }
        let response: Awaited<ReturnType<CommandHandler>> | typeof LATE;
        let timer: NodeJS.Timeout | undefined;
        try {
          // docs/semantics.md 3.1, "When the data cannot be reached": an answer within commandTimeoutMs.
          const late = new Promise<typeof LATE>((resolve) => {
            timer = setTimeout(() => resolve(LATE), commandTimeoutMs);
          });
          const answer = currentRequest.run(request, () => handler(request.params["*"], body, caller));
          response = await Promise.race([answer, late]);
          if (response === LATE) {
            answer.then(
              (finished) =>
                request.log.warn(
                  { status: finished.status, command: state.command },
                  "a command answered after its time had run out",
                ),
              (error: unknown) => request.log.error({ err: error }, "the command handler rejected late"),
            );
          }
        } catch (error) {
          request.log.error({ err: error }, "the command handler rejected");
          return sendError(reply, 500, MESSAGES.unexpected);
        } finally {
          clearTimeout(timer);
        }
        if (response === LATE) {
          request.log.error(
            { command: state.command, commandTimeoutMs },
            `the command did not answer within ${commandTimeoutMs} ms`,
          );
          return sendError(reply, 500, MESSAGES.unexpected);
        }
        if (response.status === 503) {
          reply.header("retry-after", String(response.retryAfterSeconds ?? 1));
        }
        return reply
          .code(response.status)
          .type("application/json; charset=utf-8")
          .send(JSON.stringify(response.body));
      },
    });
  });

  return app;
}

function positiveInteger(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    const bound = max === Number.MAX_SAFE_INTEGER ? "" : ` of at most ${max} (${MAX_TIMER_NOTE})`;
    throw new Error(`${name} must be a positive integer${bound}; found ${String(value)}.`);
  }
  return value;
}

/** What the command deadline resolves with (the handler's answer did not come in time). */
const LATE: unique symbol = Symbol("late");

/** The longest delay Node's timers hold, in milliseconds: a longer one is cut to it, with a warning. */
const MAX_TIMER_MS = 2_147_483_647;
const MAX_TIMER_NOTE = "the longest timer Node holds, about 24.8 days";
