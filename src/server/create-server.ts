/**
 * The reference command server: a thin Fastify 5 adapter over the command handler (docs/architecture.md, "Layers").
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
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from "fastify";
import {
  createCommandHandler,
  createMemoryBackend,
  INVALID_JSON,
  loadSampleDataset,
  MESSAGES,
} from "../commands/index.js";
import { createAuthenticator } from "./auth.js";
import { BodyDuplicateKeyError, BodyTooDeepError, isJsonContentType, readJsonBody } from "./body.js";
import { type CommandGate, RequestStates, registerCommandRoute } from "./command-route.js";
import { loggerOption, normalizeBasePath, resolveLimits, type ServerOptions } from "./options.js";
import { clientErrorHandler, guardSockets, type RawContext } from "./raw-http.js";
import { JSON_TYPE, pathOf, sendError } from "./replies.js";
import { registerWebRoutes } from "./web-routes.js";

export { BodyDuplicateKeyError, BodyTooDeepError, readJsonBody } from "./body.js";
export * from "./defaults.js";
export type { ServerLoggerOptions, ServerOptions } from "./options.js";
export { normalizeBasePath } from "./options.js";

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

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
  const limits = resolveLimits(options);
  const { bodyLimit, requestTimeoutMs, keepAliveTimeoutMs, maxBodyDepth } = limits;
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
        maxTimeMS: limits.maxTimeMS,
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
  const states = new RequestStates();
  /** Authentication and rate limit of a command path, and the address budget (set once registered). */
  const lent: CommandGate = {};
  const raw: RawContext = {
    authenticator,
    commandPathRe,
    addressBudget: () => lent.addressBudget,
    log: () => app.log,
  };

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
      if (commandPathRe.test(pathOf(request.url)) && lent.gate !== undefined) {
        const check = lent.gate;
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
    clientErrorHandler: clientErrorHandler(raw),
  });

  guardSockets(app.server, raw, limits);

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
    const state = states.peek(request);
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
      if (lent.gate !== undefined && !(await lent.gate(request, reply))) return reply;
      return reply
        .header("allow", "POST")
        .code(405)
        .type(JSON_TYPE)
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

  app.get("/healthz", async (_request, reply) => reply.type(JSON_TYPE).send('{"status":"ok"}'));
  // GET /openapi.json, /schema/search-conditions.json, /playground (docs/server.md): no data, no credential.
  registerWebRoutes(app, { basePath, catalog });

  registerCommandRoute(
    app,
    {
      basePath,
      authenticator,
      handler,
      states,
      currentRequest,
      rateLimit: limits.rateLimit,
      rateLimitWindowMs: limits.rateLimitWindowMs,
      commandTimeoutMs: limits.commandTimeoutMs,
    },
    lent,
  );

  return app;
}
