/**
 * The command route `POST {basePath}/Command/{Name}` (docs/semantics.md 3.1): authentication, the rate
 * limit per authenticated user (and per address for failed authentications), the `Content-Encoding`, the
 * body's `Username` against the credential, and the handler's answer within `commandTimeoutMs`.
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import rateLimitPlugin from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Caller, type CommandHandler, INVALID_JSON, MESSAGES } from "../commands/index.js";
import type { Authenticator, AuthFailure } from "./auth.js";
import { isIdentityEncoding } from "./body.js";
import type { AddressBudget } from "./raw-http.js";
import { JSON_TYPE, sendError } from "./replies.js";

/** The state of one command request, kept beside the request object. */
export interface RequestState {
  caller?: Caller;
  command?: string;
  authFailure?: AuthFailure;
}

/** The states of the requests in flight, each made on first use (the log line of a request reads it). */
export class RequestStates {
  private readonly states = new WeakMap<FastifyRequest, RequestState>();

  /** The state of `request`, when it has one. */
  peek(request: FastifyRequest): RequestState | undefined {
    return this.states.get(request);
  }

  /** The state of `request`, made on first use. */
  of(request: FastifyRequest): RequestState {
    let state = this.states.get(request);
    if (state === undefined) {
      state = {};
      this.states.set(request, state);
    }
    return state;
  }
}

/** Authentication, then the rate limit, of a command path: false once it has answered (401 or 429). */
export type Gate = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/** What the command route needs of the server. */
export interface CommandRouteOptions {
  readonly basePath: string;
  readonly authenticator: Authenticator;
  readonly handler: CommandHandler;
  readonly states: RequestStates;
  /** The request being handled, for the default handler's `onError` (its log line). */
  readonly currentRequest: AsyncLocalStorage<FastifyRequest>;
  readonly rateLimit: number;
  readonly rateLimitWindowMs: number;
  readonly commandTimeoutMs: number;
}

/** What the command route lends the rest of the server once registered. */
export interface CommandGate {
  gate?: Gate;
  addressBudget?: AddressBudget;
}

/** What the command deadline resolves with (the handler's answer did not come in time). */
const LATE: unique symbol = Symbol("late");

/**
 * Registers the command route in a scope of its own (the rate limiter's), and lends `lent` the gate and the
 * address budget that the server's other answers (405, an over-long request, `CONNECT`) apply first.
 */
export function registerCommandRoute(
  app: FastifyInstance,
  options: CommandRouteOptions,
  lent: CommandGate,
): void {
  const { authenticator, handler, states, commandTimeoutMs } = options;
  app.register(async (scope) => {
    await scope.register(rateLimitPlugin, { global: false });
    const limiter = scope.createRateLimit({
      max: options.rateLimit,
      timeWindow: options.rateLimitWindowMs,
      keyGenerator: (request) => {
        const caller = states.peek(request)?.caller;
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
     * The budget of failed authentications of an address (see `AddressBudget`). The limiter reads only the
     * address (through `keyGenerator`, which keys a request without a caller by its address) and the
     * route's config of a request.
     */
    const budgetOf: AddressBudget = async (address, count) => {
      const result = await limiter(
        { ip: address, routeOptions: { config: {} } } as unknown as FastifyRequest,
        { increment: count },
      );
      return result.isAllowed || !result.isExceeded ? undefined : Math.max(1, result.ttlInSeconds);
    };
    lent.addressBudget = budgetOf;

    /**
     * Authentication, then the rate limit: false once it has answered (401 or 429). An address whose
     * failed authentications spent its budget gets 429 whatever its credential, so that a right guess
     * does not stand out from the wrong ones.
     */
    async function authenticated(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
      const state = states.of(request);
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
    lent.gate = authenticated;

    // A wildcard, not a `:name` parameter: a parameter is capped in length by the router (a long name
    // would be 404 before authentication), a wildcard is not; the handler judges the name.
    scope.route<{ Params: { "*": string } }>({
      method: "POST",
      url: `${options.basePath}/Command/*`,
      onRequest: async (request, reply) => {
        states.of(request).command = request.params["*"];
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
        const state = states.of(request);
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
          const answer = options.currentRequest.run(request, () =>
            handler(request.params["*"], body, caller),
          );
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
        return reply.code(response.status).type(JSON_TYPE).send(JSON.stringify(response.body));
      },
    });
  });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
