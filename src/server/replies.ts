/**
 * The server's answers of its own (docs/semantics.md 3.1): every error body is `{"Error": "…"}`, as JSON
 * through Fastify, or written whole on a socket that no request object owns; and the request path as the
 * log line and the command-path test read it.
 */
import type { FastifyReply } from "fastify";

/** The media type of every body the server writes. */
export const JSON_TYPE = "application/json; charset=utf-8";

/** Answers `status` with the body `{"Error": message}`. */
export const sendError = (reply: FastifyReply, status: number, message: string): FastifyReply =>
  reply
    .code(status)
    .type(JSON_TYPE)
    .send(JSON.stringify({ Error: message }));

/** The request path without its query string, cut to 200 characters for the log. */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

/**
 * A whole HTTP/1.1 answer that closes its connection, as the bytes written on a raw socket.
 * @param status - the status line's code and reason, `"408 Request Timeout"`
 * @param body - the JSON body
 * @param headers - further header lines, each ending in `\r\n`
 */
export function rawAnswer(status: string, body: string, headers = ""): string {
  return (
    `HTTP/1.1 ${status}\r\n${headers}` +
    `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}
