/**
 * Vitest setup (vitest.config.ts): every server that `createServer` makes in a test file gets an `onSend`
 * hook that holds each response to the OpenAPI document (`openapi-responses.ts`); at the end of the file,
 * the violations fail it. The wrapper is installed lazily: a file that never imports the server pays
 * nothing and loads nothing through this file. Servers with a custom `handler` are held only for the answers the server itself makes (the
 * handler's bodies are the test's own), and answers written straight to a socket (408, 431, 417) bypass
 * Fastify's hooks and are checked by their own tests.
 */
import { afterAll, expect, vi } from "vitest";
import type * as CreateServer from "../../src/server/create-server.js";

const violations: string[] = [];
let checked = 0;

/** How many responses this file's servers have had checked so far (the hook is there: a test asks). */
export function responsesChecked(): number {
  return checked;
}

vi.mock("../../src/server/create-server.js", async (importOriginal) => {
  const original = await importOriginal<typeof CreateServer>();
  // Imported here, not at the top: this file runs before every test file, and an import of the engine or
  // the commands here would load them before that file's own vi.mock of one of them.
  const { responseChecker } = await import("./openapi-responses.js");
  const createServer: typeof original.createServer = (options = {}) => {
    const app = original.createServer(options);
    const basePath = original.normalizeBasePath(options.basePath ?? "");
    const check = responseChecker(basePath, options.handler === undefined ? options.catalog : undefined);
    app.addHook("onSend", async (request, reply, payload) => {
      if (typeof payload !== "string") return payload;
      // A custom handler's answers are the test's own bodies (the handler decides them, not the server).
      if (options.handler !== undefined && reply.statusCode === 200) return payload;
      const problem = check({
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        contentType: String(reply.getHeader("content-type") ?? ""),
        body: payload,
      });
      checked += 1;
      if (problem !== undefined) violations.push(problem);
      return payload;
    });
    return app;
  };
  return { ...original, createServer };
});

afterAll(() => {
  expect(violations, "responses that the OpenAPI document does not describe").toEqual([]);
});
