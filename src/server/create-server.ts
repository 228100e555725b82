/**
 * The reference command server: a thin Fastify 5 adapter over the command handler (DESIGN.md, layers).
 * It routes `POST {basePath}/Command/{Name}`, authenticates, rate-limits, reads the body, and hands the
 * rest to the handler; no command logic lives here. Every rule is from DECISIONS.md 3.1 unless noted.
 *
 * Order of checks for a command request:
 * 1. routing: a method other than POST on a command path is 405 (before authentication: the method
 *    reveals nothing, and a caller with a wrong method should learn it first);
 * 2. authentication (`d3key` / `d3jwt`): 401, for every command path, known or not;
 * 3. rate limit per authenticated user: 429 with `Retry-After` (failed authentications are limited per
 *    client address with the same budget, so keys cannot be guessed at line speed);
 * 4. body: 413 over the size limit; 400 for anything that is not a JSON object, including a
 *    `Content-Type` other than `application/json` (a missing one is read as JSON);
 * 5. the body's `Username` must be the credential's user: 401;
 * 6. the command handler: 404 unknown command, 400 envelope, 200 command results, 500.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
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
import { type ApiKey, type AuthFailure, createAuthenticator, type JwtOptions } from "./auth.js";

/** Default rate limit: requests per minute per credential (issue 6; DECISIONS.md 3.1). */
export const DEFAULT_RATE_LIMIT = 600;
/** Default body size limit in bytes: 1 MiB (DECISIONS.md 3.1). */
export const DEFAULT_BODY_LIMIT = 1_048_576;

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
}

/** The state of one command request, kept beside the request object. */
interface RequestState {
  caller?: Caller;
  command?: string;
  authFailure?: AuthFailure;
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
 * Reads a request body as JSON: strict UTF-8, then `JSON.parse`; a `__proto__` key anywhere, or a
 * `constructor` object holding a `prototype` key, makes the body invalid (prototype pollution guard).
 * @returns the parsed value, or `INVALID_JSON`
 */
export function readJsonBody(raw: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return INVALID_JSON;
  }
  let poisoned = false;
  try {
    const value: unknown = JSON.parse(text, (key, nested: unknown) => {
      if (key === "__proto__") poisoned = true;
      else if (
        key === "constructor" &&
        typeof nested === "object" &&
        nested !== null &&
        Object.hasOwn(nested, "prototype")
      ) {
        poisoned = true;
      }
      return nested;
    });
    return poisoned ? INVALID_JSON : value;
  } catch {
    return INVALID_JSON;
  }
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
 * Creates the reference command server (specification sections 4, 5, 7, 8; DECISIONS.md 3.1).
 * Routes: `POST {basePath}/Command/{Name}` (the `Command` segment and the name in any case; the whole
 * path matches case-insensitively), and `GET /healthz` (200 `{"status":"ok"}`, no authentication).
 * Every error body is `{"Error": "…"}`. Responses carry an `x-request-id` header; the log holds one
 * JSON line per request with `reqId`, `method`, `path`, `command`, `user`, `status` and `ms`, and never a
 * credential.
 * @param options - credentials (at least one API key or JWT key), handler or data, limits, base path, logger
 * @returns the Fastify instance, not yet listening: call `await server.listen({ host, port })`, and
 *   `await server.close()` to stop
 * @throws {Error} when no credential is configured, a credential is malformed (see `createAuthenticator`),
 *   the base path is invalid, or `rateLimit`, `rateLimitWindowMs` or `bodyLimit` is not a positive integer
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
  const rateLimitWindowMs = positiveInteger("rateLimitWindowMs", options.rateLimitWindowMs ?? 60_000);
  const bodyLimit = positiveInteger("bodyLimit", options.bodyLimit ?? DEFAULT_BODY_LIMIT);
  // The default handler reports unexpected errors through `onError`; the request being handled is found
  // through AsyncLocalStorage so the details reach the log line of that request id.
  const currentRequest = new AsyncLocalStorage<FastifyRequest>();
  const handler =
    options.handler ??
    createCommandHandler(options.backend ?? createMemoryBackend(options.dataset ?? loadSampleDataset()), {
      onError: (error, context) => {
        const log = currentRequest.getStore()?.log ?? app.log;
        log.error(
          { err: error, command: context.command, user: context.username },
          "unexpected error in a command",
        );
      },
    });

  const commandPathRe = new RegExp(`^${escapeRegExp(basePath)}/command/[^/]+$`, "i");
  const states = new WeakMap<FastifyRequest, RequestState>();
  const stateOf = (request: FastifyRequest): RequestState => {
    let state = states.get(request);
    if (state === undefined) {
      state = {};
      states.set(request, state);
    }
    return state;
  };

  const app = Fastify({
    logger: loggerOption(options.logger),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit,
    routerOptions: { caseSensitive: false },
    return503OnClosing: false,
    frameworkErrors: (error, _request, reply) => {
      if (error.code === "FST_ERR_BAD_URL") sendError(reply, 400, "The request URL is not valid.");
      else sendError(reply, 404, "Not found.");
    },
    clientErrorHandler: (error, socket) => {
      const code = (error as { code?: string }).code;
      if (code === "ECONNRESET" || !socket.writable) {
        socket.destroy();
        return;
      }
      const tooLarge = code === "HPE_HEADER_OVERFLOW";
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

  // Body: every media type is read as bytes (up to bodyLimit) and judged here, so that a Content-Type
  // other than application/json gets the specification's 400 body rather than Fastify's 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    done(
      null,
      isJsonContentType(request.headers["content-type"]) ? readJsonBody(body as Buffer) : INVALID_JSON,
    );
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.header("cache-control", "no-store");
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
    const status = error.statusCode ?? 500;
    if (status === 413 || error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return sendError(reply, 413, `The body of the request exceeds the limit of ${bodyLimit} bytes.`);
    }
    if (status >= 400 && status < 500) return sendError(reply, 400, MESSAGES.badBody);
    request.log.error({ err: error }, "unexpected error");
    return sendError(reply, 500, MESSAGES.unexpected);
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.method !== "POST" && commandPathRe.test(pathOf(request.url))) {
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
    return sendError(reply, 404, `Not found. Commands are served at POST ${basePath}/Command/{Name}.`);
  });

  app.get("/healthz", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send('{"status":"ok"}'),
  );

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

    scope.route<{ Params: { name: string } }>({
      method: "POST",
      url: `${basePath}/Command/:name`,
      onRequest: async (request, reply) => {
        const state = stateOf(request);
        state.command = request.params.name;
        const auth = await authenticator.authenticate(request.headers);
        if (auth.ok) state.caller = auth.caller;
        else state.authFailure = auth.reason;
        if (!(await withinLimit(request, reply))) return reply;
        if (!auth.ok) return sendError(reply, 401, MESSAGES.unauthorized);
        return undefined;
      },
      handler: async (request, reply) => {
        const state = stateOf(request);
        const caller = state.caller;
        if (caller === undefined) return sendError(reply, 401, MESSAGES.unauthorized);
        const body: unknown = request.body === undefined ? INVALID_JSON : request.body;
        if (isPlainObject(body) && typeof body.Username === "string" && body.Username !== caller.username) {
          state.authFailure = "username_mismatch";
          return sendError(reply, 401, MESSAGES.unauthorized);
        }
        let response: Awaited<ReturnType<CommandHandler>>;
        try {
          response = await currentRequest.run(request, () => handler(request.params.name, body, caller));
        } catch (error) {
          request.log.error({ err: error }, "the command handler rejected");
          return sendError(reply, 500, MESSAGES.unexpected);
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

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive integer; found ${String(value)}.`);
  }
  return value;
}
