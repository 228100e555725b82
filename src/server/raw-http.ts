/**
 * The server below Fastify's routes (docs/semantics.md 3.1, docs/server.md "Malformed HTTP" and "Slow and
 * greedy clients"): what Node's HTTP parser refuses (a timeout, over-long headers, bytes that are not
 * HTTP), `CONNECT`, an `Expect` other than `100-continue`, the connection caps, and the timers of an answer
 * and of an idle keep-alive connection. Everything answered here is written whole on the socket, with an
 * `Error` body; a command path still authenticates first (`judgeRaw`).
 */
import { type IncomingMessage, maxHeaderSize, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { MESSAGES } from "../commands/index.js";
import type { Authenticator } from "./auth.js";
import { JSON_TYPE, pathOf, rawAnswer } from "./replies.js";

/** The 417 body of a request whose `Expect` header is not `100-continue`. */
const EXPECTATION_FAILED_BODY = JSON.stringify({
  Error: "The Expect header is not supported: only '100-continue' is.",
});

/** The 408 body of a request that took too long to arrive (docs/semantics.md 3.1). */
const REQUEST_TIMEOUT_BODY = JSON.stringify({ Error: "The request took too long to arrive." });

/**
 * The budget of failed authentications of a client address: with `count`, one more failure is counted.
 * The seconds to wait once the budget is spent, else undefined.
 */
export type AddressBudget = (address: string, count: boolean) => Promise<number | undefined>;

/** What the raw answers need of the server. */
export interface RawContext {
  readonly authenticator: Authenticator;
  /** Tests a request path (without its query) for a command path. */
  readonly commandPathRe: RegExp;
  /** The budget of failed authentications (undefined until the command routes are registered). */
  readonly addressBudget: () => AddressBudget | undefined;
  readonly log: () => FastifyBaseLogger;
}

/** Writes a whole answer with an `Error` body on a socket no request object owns, and closes it. */
export function answerRaw(socket: Socket, status: string, message: string, headers = ""): void {
  if (socket.destroyed || !socket.writable) return;
  socket.end(rawAnswer(status, JSON.stringify({ Error: message }), headers));
}

/**
 * Authenticates a request that no route answers (an over-long one, `CONNECT`) and answers on its socket:
 * 429 while its address's budget of failed authentications is spent (whatever the credential, so that a
 * right guess does not stand out), 401 for a missing or invalid credential (counted against that budget),
 * else `status` with `message`.
 */
export async function judgeRaw(
  context: RawContext,
  socket: Socket,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  answer: { readonly status: string; readonly message: string; readonly headers?: string },
): Promise<void> {
  const address = socket.remoteAddress ?? "";
  const budget = context.addressBudget();
  const spent = await budget?.(address, false).catch(() => undefined);
  if (spent !== undefined)
    return answerRaw(socket, "429 Too Many Requests", MESSAGES.rateLimited, `Retry-After: ${spent}\r\n`);
  const auth = await context.authenticator.authenticate(headers).catch(() => ({ ok: false as const }));
  if (auth.ok) return answerRaw(socket, answer.status, answer.message, answer.headers);
  const retryAfter = await budget?.(address, true).catch(() => undefined);
  if (retryAfter === undefined) return answerRaw(socket, "401 Unauthorized", MESSAGES.unauthorized);
  return answerRaw(socket, "429 Too Many Requests", MESSAGES.rateLimited, `Retry-After: ${retryAfter}\r\n`);
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refused. A reset or an answer already begun
 * closes the socket; a request that took too long is 408; over-long headers are 431, but on a command path
 * whose request line is in the bytes that overflowed the credential is judged first (docs/semantics.md
 * 3.1, "Over-long request lines"); anything else is 400.
 */
export function clientErrorHandler(context: RawContext): (error: Error, socket: Socket) => void {
  return (error, socket) => {
    const code = (error as { code?: string }).code;
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
      context.log().info({ remoteAddress: socket.remoteAddress }, "request timeout: answered 408, closed");
      socket.end(rawAnswer("408 Request Timeout", REQUEST_TIMEOUT_BODY));
      socket.destroySoon();
      return;
    }
    const tooLarge = code === "HPE_HEADER_OVERFLOW";
    // A command path authenticates first, whatever its length (docs/semantics.md 3.1, "Over-long request
    // lines"): when the bytes that overflowed hold the request line, the credential they carry is judged.
    const overflowed = tooLarge
      ? overflowedCommandRequest((error as { rawPacket?: unknown }).rawPacket, context.commandPathRe)
      : undefined;
    if (overflowed !== undefined) {
      // 431 to a caller whose credential is valid; else 401 (or 429), counted against the address.
      void judgeRaw(context, socket, overflowed, {
        status: "431 Request Header Fields Too Large",
        message: "The request headers are too large.",
      });
      return;
    }
    const body = JSON.stringify({
      Error: tooLarge ? "The request headers are too large." : "The request is not valid HTTP.",
    });
    socket.end(rawAnswer(tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request", body));
  };
}

/**
 * The credential headers of a request whose request line and headers overflowed Node's limit, when the
 * bytes that overflowed (Node's `rawPacket`, the chunk being parsed) begin with a request line whose
 * target is a command path; `undefined` otherwise.
 */
function overflowedCommandRequest(
  raw: unknown,
  commandPathRe: RegExp,
): Record<string, string | string[]> | undefined {
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

/** The limits the socket-level guards enforce (milliseconds, counts). */
export interface SocketLimits {
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/**
 * Installs the guards of Node's HTTP server: `CONNECT` (authenticated first on a command path, then 405),
 * the connection caps, the 417 of an unsupported `Expect`, and the timers of a finished answer.
 */
export function guardSockets(server: Server, context: RawContext, limits: SocketLimits): void {
  // CONNECT never reaches a route (Node hands it to this event, and closes the socket when nobody listens):
  // on a command path it authenticates first like every other method, then 405 (docs/semantics.md 3.1).
  server.on("connect", (request: IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    if (context.commandPathRe.test(pathOf(request.url ?? ""))) {
      void judgeRaw(context, socket, request.headers, {
        status: "405 Method Not Allowed",
        message: "Method CONNECT is not allowed: commands are called with POST.",
        headers: "Allow: POST\r\n",
      });
    } else answerRaw(socket, "404 Not Found", "Not found.");
  });

  // Connection caps (docs/semantics.md 3.1): all addresses by Node's maxConnections, each address here.
  server.maxConnections = limits.maxConnections;
  const openByAddress = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const open = openByAddress.get(address) ?? 0;
    if (open >= limits.maxConnectionsPerAddress) {
      context.log().debug({ remoteAddress: address }, "connection refused: per-address cap");
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
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(417, {
      "content-type": JSON_TYPE,
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
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    response.once("prefinish", () => {
      const socket = request.socket;
      if (!socket.destroyed && !response.writableFinished) socket.setTimeout(limits.requestTimeoutMs);
    });
    response.once("finish", () => {
      const socket = request.socket;
      if (!socket.destroyed && (socket.timeout ?? 0) > 0) socket.setTimeout(limits.keepAliveTimeoutMs);
    });
  });
}
