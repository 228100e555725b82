/**
 * Unit tests of the HTTP adapter itself, with a recording fake handler and Fastify's in-process injection
 * (the real-network end-to-end tests with the real handler are under test/server/).
 */
import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { type Caller, type CommandHandler, INVALID_JSON } from "../commands/handler-types.js";
import {
  BodyTooDeepError,
  createServer,
  DEFAULT_MAX_BODY_DEPTH,
  normalizeBasePath,
  readJsonBody,
  type ServerOptions,
} from "./create-server.js";

const BAD_BODY = { Error: "The body of the request must be a valid JSON object" };
const UNAUTHORIZED = { Error: "Invalid authentication key." };

interface Call {
  command: string;
  body: unknown;
  caller: Caller;
}

function fakeServer(options: ServerOptions = {}, answer?: CommandHandler) {
  const calls: Call[] = [];
  const handler: CommandHandler = async (command, body, caller) => {
    calls.push({ command, body, caller });
    if (answer !== undefined) return answer(command, body, caller);
    if (body === INVALID_JSON || typeof body !== "object" || body === null || Array.isArray(body)) {
      return { status: 400, body: BAD_BODY };
    }
    return { status: 200, body: { error: "", echo: body } };
  };
  const app = createServer({ handler, apiKeys: [{ username: "analyst", key: "k1" }], ...options });
  servers.push(app);
  return { app, calls };
}

const servers: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((app) => app.close()));
});

const json = (body: unknown) => JSON.stringify(body);
const envelope = { Username: "analyst", Site: "S", CommandParams: {} };

/** `POST /Command/X` with these headers and body (by default the envelope, as JSON). */
function postCommand(
  app: FastifyInstance,
  headers: Record<string, string>,
  payload: string | Buffer = json(envelope),
): Promise<Awaited<ReturnType<FastifyInstance["inject"]>>> {
  return app.inject({ method: "POST", url: "/Command/X", headers, payload });
}

describe("readJsonBody", () => {
  const enc = (text: string) => new TextEncoder().encode(text);
  it.each([
    ['{"a":1}', { a: 1 }],
    ["[1,2]", [1, 2]],
    ['"text"', "text"],
    ["\uFEFF{}", {}],
    ['{"constructor": "a string is fine"}', { constructor: "a string is fine" }],
    ['{"x": {"prototype": 1}}', { x: { prototype: 1 } }],
  ])("reads %s", (text, value) => {
    expect(readJsonBody(enc(text))).toEqual(value);
  });

  it.each([[""], ["{"], ["{'a': 1}"]])("refuses %s", (text) => {
    expect(readJsonBody(enc(text))).toBe(INVALID_JSON);
  });

  it.each([
    ['{"__proto__": {"admin": true}}'],
    ['{"a": [{"__proto__": null}]}'],
    ['{"\\u005f_proto__": {}}'],
    ['{"constructor": {"prototype": {"admin": true}}}'],
  ])("reads %s as JSON.parse does: prototype keys are own data, judged by the command layer", (text) => {
    const read = readJsonBody(enc(text)) as Record<string, unknown>;
    expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(text)));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("refuses bytes that are not UTF-8", () => {
    expect(readJsonBody(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).toBe(INVALID_JSON);
  });

  it("never pollutes Object.prototype and agrees with JSON.parse on clean input (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const read = readJsonBody(enc(text));
        if (!text.includes("__proto__")) expect(read).toEqual(JSON.parse(text));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      fcOptions(300),
    );
  });
});

describe("readJsonBody: prototype keys in every position (property)", () => {
  // Texts written by hand, so that `__proto__` is a literal key (JSON.stringify of an object never writes
  // one), with the dangerous keys at every depth, in arrays and objects, escaped or not.
  type Tree = null | number | string | Tree[] | { readonly entries: readonly (readonly [string, Tree])[] };
  const KEYS = ["__proto__", "\\u005f_proto__", "constructor", "prototype", "polluted", "a"];
  const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(null, 1, "x"),
      fc.array(tie("tree"), { maxLength: 3 }),
      fc
        .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie("tree")), {
          maxLength: 4,
          selector: ([key]) => key.replace("\\u005f", "_"),
        })
        .map((entries) => ({ entries })),
    ),
  }));
  const write = (node: Tree): string =>
    Array.isArray(node)
      ? `[${node.map(write).join(",")}]`
      : typeof node === "object" && node !== null
        ? `{${node.entries.map(([key, value]) => `"${key}":${write(value)}`).join(",")}}`
        : JSON.stringify(node);
  const poisoned = (node: Tree): boolean =>
    Array.isArray(node)
      ? node.some(poisoned)
      : typeof node === "object" && node !== null
        ? node.entries.some(
            ([key, value]) =>
              key.replace("\\u005f", "_") === "__proto__" ||
              (key === "constructor" &&
                typeof value === "object" &&
                value !== null &&
                !Array.isArray(value) &&
                value.entries.some(([inner]) => inner === "prototype")) ||
              poisoned(value),
          )
        : false;

  it("reads every body as JSON.parse does, sets no prototype, and never pollutes", () => {
    const enc = (text: string) => new TextEncoder().encode(text);
    const prototypesKept = (value: unknown): boolean =>
      typeof value !== "object" || value === null
        ? true
        : Object.getPrototypeOf(value) === (Array.isArray(value) ? Array.prototype : Object.prototype) &&
          Object.values(value).every(prototypesKept);
    fc.assert(
      fc.property(tree, (node) => {
        const text = write(node);
        const read = readJsonBody(enc(text));
        expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(text)));
        expect(prototypesKept(read)).toBe(true);
        if (!poisoned(node)) expect(read).toEqual(JSON.parse(text));
        expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      fcOptions(500),
    );
  });
});

/** `depth` levels of arrays: `[[[]]]` is 3. */
const nestedArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
/** `depth` levels of objects: `{"a":{"a":{}}}` is 3. */
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

describe("readJsonBody: nesting depth (docs/semantics.md section 3)", () => {
  const enc = (text: string) => new TextEncoder().encode(text);
  it.each([[3_000], [100_000]])(
    "refuses %i levels with a BodyTooDeepError, not a stack overflow",
    (depth) => {
      for (const text of [nestedArrays(depth), nestedObjects(depth)]) {
        expect(() => readJsonBody(enc(text))).toThrow(BodyTooDeepError);
        expect(() => readJsonBody(enc(text))).toThrow(
          "The body of the request is nested deeper than 256 levels of objects and arrays.",
        );
      }
    },
  );

  it("accepts exactly the limit and refuses one more level", () => {
    expect(DEFAULT_MAX_BODY_DEPTH).toBe(256);
    expect(readJsonBody(enc(nestedObjects(256)))).toEqual(JSON.parse(nestedObjects(256)));
    expect(() => readJsonBody(enc(nestedObjects(257)))).toThrow(BodyTooDeepError);
    expect(readJsonBody(enc(nestedArrays(4)), 4)).toEqual([[[[]]]]);
    expect(() => readJsonBody(enc(nestedArrays(5)), 4)).toThrow(BodyTooDeepError);
  });

  it("still answers INVALID_JSON for deep text that is not JSON", () => {
    expect(readJsonBody(enc("[".repeat(100_000)))).toBe(INVALID_JSON);
  });
});

describe("normalizeBasePath", () => {
  it.each([
    ["", ""],
    ["/", ""],
    ["/VSOC/api", "/VSOC/api"],
    ["/VSOC/api/", "/VSOC/api"],
  ])("%j → %j", (input, output) => {
    expect(normalizeBasePath(input)).toBe(output);
  });
  it.each([["api"], ["/a/:b"], ["/a*"], ["/a?b"], ["//a"], ["/a#b"], ["/a b"]])("refuses %j", (input) => {
    expect(() => normalizeBasePath(input)).toThrow(/base path/);
  });
});

describe("createServer: options", () => {
  it.each([
    [{ rateLimit: 0 }, /rateLimit must be a positive integer/],
    [{ rateLimit: 1.5 }, /rateLimit must be a positive integer/],
    [{ bodyLimit: -1 }, /bodyLimit must be a positive integer/],
    [{ rateLimitWindowMs: Number.NaN }, /rateLimitWindowMs must be a positive integer/],
    [{ basePath: "api" }, /base path/],
    [{ apiKeys: [] }, /No credential is configured/],
    [{ requestTimeoutMs: 0 }, /requestTimeoutMs must be a positive integer/],
    [{ keepAliveTimeoutMs: 1.5 }, /keepAliveTimeoutMs must be a positive integer/],
    [{ maxConnectionsPerAddress: 0 }, /maxConnectionsPerAddress must be a positive integer/],
    [{ maxConnections: -1 }, /maxConnections must be a positive integer/],
    [{ maxTimeMS: 0 }, /maxTimeMS must be a positive integer/],
    [{ maxBodyDepth: Number.POSITIVE_INFINITY }, /maxBodyDepth must be a positive integer/],
    // Node's timers hold at most 2**31 - 1 ms: a longer timeout would be cut short, with a warning a connection.
    [{ requestTimeoutMs: 2 ** 31 }, /requestTimeoutMs must be a positive integer of at most 2147483647/],
    [{ keepAliveTimeoutMs: 3e9 }, /keepAliveTimeoutMs must be a positive integer of at most 2147483647/],
    [{ rateLimitWindowMs: 2 ** 31 }, /rateLimitWindowMs must be a positive integer of at most 2147483647/],
    [{ maxTimeMS: 2 ** 40 }, /maxTimeMS must be a positive integer of at most 2147483647/],
  ])("throws for %j", (options, message) => {
    const handler: CommandHandler = async () => ({ status: 200, body: {} });
    expect(() => createServer({ handler, apiKeys: [{ username: "u", key: "k" }], ...options })).toThrow(
      message,
    );
  });
});

describe("createServer: transport defaults (docs/semantics.md 3.1)", () => {
  it("sets Node's request, headers and keep-alive timeouts and the connection cap", () => {
    const { app } = fakeServer();
    expect(app.server.requestTimeout).toBe(30_000);
    expect(app.server.headersTimeout).toBe(30_000);
    expect(app.server.keepAliveTimeout).toBe(5_000);
    expect(app.server.maxConnections).toBe(1_000);
  });

  it("takes each number as an option", () => {
    const { app } = fakeServer({ requestTimeoutMs: 1_234, keepAliveTimeoutMs: 567, maxConnections: 9 });
    expect(app.server.requestTimeout).toBe(1_234);
    expect(app.server.headersTimeout).toBe(1_234);
    expect(app.server.keepAliveTimeout).toBe(567);
    expect(app.server.maxConnections).toBe(9);
  });
});

describe("createServer: command paths authenticate first (docs/semantics.md 3.1)", () => {
  const long = "A".repeat(101);
  const veryLong = "B".repeat(5_000);
  it.each([
    ["a name of 101 characters", `/Command/${long}`],
    ["a name of 5,000 characters", `/Command/${veryLong}`],
    ["a name with a slash", "/Command/a/b"],
    ["an empty name", "/Command/"],
    ["a name that is not valid percent-encoding", "/Command/%zz"],
    ["a name with encoded characters", "/command/%E2%9C%93%20x"],
  ])("answers 401 to a stranger for %s", async (_name, url) => {
    const { app, calls } = fakeServer();
    const response = await app.inject({ method: "POST", url, headers: { d3key: "wrong" }, payload: "{}" });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(UNAUTHORIZED);
    expect(calls).toEqual([]);
  });

  it("hands a long or odd name to the handler once authenticated", async () => {
    const { app, calls } = fakeServer();
    for (const [url, name] of [
      [`/Command/${veryLong}`, veryLong],
      ["/Command/a/b", "a/b"],
      ["/command/%E2%9C%93%20x", "\u2713 x"],
    ] as const) {
      const response = await app.inject({
        method: "POST",
        url,
        headers: { d3key: "k1" },
        payload: json(envelope),
      });
      expect(response.statusCode).toBe(200);
      expect(calls.at(-1)?.command).toBe(name);
    }
  });

  it("answers 400 to an authenticated caller for a name that is not valid percent-encoding", async () => {
    const { app, calls } = fakeServer();
    const response = await app.inject({
      method: "POST",
      url: "/Command/%zz",
      headers: { d3key: "k1" },
      payload: "{}",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Error: "The request URL is not valid." });
    expect(calls).toEqual([]);
  });

  it("counts strangers' bad URLs against the per-address rate limit", async () => {
    const { app } = fakeServer({ rateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: "POST", url: "/Command/%zz", headers: { d3key: "x" } });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });

  it("answers 405 for another method on a long name, with Allow: POST", async () => {
    const { app } = fakeServer();
    expect((await app.inject({ method: "GET", url: `/Command/${long}` })).statusCode).toBe(401);
    const response = await app.inject({ method: "GET", url: `/Command/${long}`, headers: { d3key: "k1" } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("POST");
  });
});

describe("createServer: Content-Encoding (docs/semantics.md 3.1)", () => {
  it.each([["gzip"], ["deflate"], ["br"], ["identity, gzip"], [""]])(
    "answers 415 to %j without calling the handler",
    async (encoding) => {
      const { app, calls } = fakeServer();
      const response = await postCommand(app, { d3key: "k1", "content-encoding": encoding });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual({
        Error: `The Content-Encoding '${encoding}' is not supported: send the body uncompressed (identity).`,
      });
      expect(calls).toEqual([]);
    },
  );

  it.each([["identity"], ["IDENTITY"], [" identity "]])("reads the body sent with %j", async (encoding) => {
    const { app, calls } = fakeServer();
    const response = await postCommand(app, { d3key: "k1", "content-encoding": encoding });
    expect(response.statusCode).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it("authenticates before judging the encoding", async () => {
    const { app } = fakeServer();
    const response = await postCommand(app, { d3key: "wrong", "content-encoding": "gzip" }, "{}");
    expect(response.statusCode).toBe(401);
  });
});

describe("createServer: duplicate keys (docs/semantics.md 3.1)", () => {
  it.each([
    [
      '{"Username":"lead","Username":"analyst","Site":"S","CommandParams":{}}',
      "The body of the request repeats the key 'Username' in one object (at Username): each key may appear once.",
    ],
    [
      '{"Username":"analyst","Site":"S","CommandParams":{"Search Conditions":{"Type":"Phishing","\\u0054ype":"Malware"}}}',
      `The body of the request repeats the key 'Type' in one object (at CommandParams["Search Conditions"].Type): each key may appear once.`,
    ],
    [
      '{"Username":"analyst","Site":"S","CommandParams":{"Trigger Data":[{"a":1},{"b":1,"b":2}]}}',
      `The body of the request repeats the key 'b' in one object (at CommandParams["Trigger Data"][1].b): each key may appear once.`,
    ],
  ])(
    "answers 400 naming the repeated key and its path, and never calls the handler: %s",
    async (body, error) => {
      const { app, calls } = fakeServer();
      const response = await app.inject({
        method: "POST",
        url: "/Command/TriggerIncidentExternalAction",
        headers: { d3key: "k1", "content-type": "application/json" },
        payload: body,
      });
      expect([response.statusCode, response.json()]).toEqual([400, { Error: error }]);
      expect(calls).toEqual([]);
    },
  );

  it("still answers 401 first to a stranger", async () => {
    const { app } = fakeServer();
    const response = await postCommand(app, { "content-type": "application/json" }, '{"a":1,"a":2}');
    expect(response.statusCode).toBe(401);
  });
});

describe("createServer: deeply nested bodies (docs/semantics.md section 3)", () => {
  it.each([[3_000], [100_000]])("answers 400 naming the limit to a body %i levels deep", async (depth) => {
    const { app, calls } = fakeServer();
    const deep = `{"Username":"analyst","Site":"S","CommandParams":{"Trigger Data":${nestedArrays(depth)}}}`;
    const response = await app.inject({
      method: "POST",
      url: "/Command/TriggerIncidentExternalAction",
      headers: { d3key: "k1", "content-type": "application/json" },
      payload: deep,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      Error: "The body of the request is nested deeper than 256 levels of objects and arrays.",
    });
    expect(calls).toEqual([]);
  });

  it("passes a body at the configured depth and refuses one level more", async () => {
    const { app, calls } = fakeServer({ maxBodyDepth: 8 });
    const at = (depth: number) =>
      postCommand(
        app,
        { d3key: "k1" },
        `{"Username":"analyst","Site":"S","CommandParams":{"x":${nestedArrays(depth - 2)}}}`,
      );
    expect((await at(8)).statusCode).toBe(200);
    expect(calls).toHaveLength(1);
    const refused = await at(9);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      Error: "The body of the request is nested deeper than 8 levels of objects and arrays.",
    });
  });
});

describe("createServer: the adapter", () => {
  it("passes the URL's command name, the parsed body and the caller to the handler", async () => {
    const { app, calls } = fakeServer();
    const response = await app.inject({
      method: "POST",
      url: "/command/getINCIDENTtimelineentries",
      headers: { d3key: "k1", "content-type": "application/json" },
      payload: json(envelope),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ error: "", echo: envelope });
    expect(calls).toEqual([
      { command: "getINCIDENTtimelineentries", body: envelope, caller: { username: "analyst" } },
    ]);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ["no Content-Type", undefined, json(envelope), 200],
    ["application/json; charset=utf-8", "application/json; charset=utf-8", json(envelope), 200],
    ['APPLICATION/JSON;Charset="UTF-8"', 'APPLICATION/JSON;Charset="UTF-8"', json(envelope), 200],
    ["text/plain", "text/plain", json(envelope), 400],
    ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded", json(envelope), 400],
    ["application/json; charset=latin1", "application/json; charset=latin1", json(envelope), 400],
    ["application/vnd.api+json", "application/vnd.api+json", json(envelope), 400],
    ["an unparseable media type", "not a type", json(envelope), 400],
    ["an empty body", "application/json", "", 400],
    ["no body and no Content-Type", undefined, undefined, 400],
  ])("Content-Type: %s", async (_name, contentType, payload, status) => {
    const { app, calls } = fakeServer();
    const response = await app.inject({
      method: "POST",
      url: "/Command/X",
      headers: { d3key: "k1", ...(contentType === undefined ? {} : { "content-type": contentType }) },
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode).toBe(status);
    if (status === 400) {
      expect(response.json()).toEqual(BAD_BODY);
      // The handler sees INVALID_JSON, or is not called at all (a media type Fastify cannot parse).
      expect(calls.every((call) => call.body === INVALID_JSON)).toBe(true);
    }
  });

  it("answers 401 before reading the body, and never calls the handler", async () => {
    const { app, calls } = fakeServer({ bodyLimit: 10 });
    const response = await postCommand(
      app,
      { d3key: "wrong", "content-type": "application/json" },
      "x".repeat(100),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(UNAUTHORIZED);
    expect(calls).toEqual([]);
  });

  it("answers 401 when the body's Username is not the credential's user", async () => {
    const { app, calls } = fakeServer();
    const response = await postCommand(app, { d3key: "k1" }, json({ ...envelope, Username: "Analyst" }));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(UNAUTHORIZED);
    expect(calls).toEqual([]);
  });

  it("leaves a missing or ill-typed Username to the handler (400 naming the field)", async () => {
    const { app, calls } = fakeServer();
    for (const Username of [undefined, 7, null]) {
      await postCommand(app, { d3key: "k1" }, json({ ...envelope, Username }));
    }
    expect(calls).toHaveLength(3);
  });

  it("answers 500 Unexpected Error when the handler rejects, with details only in the log", async () => {
    const lines: string[] = [];
    const { app } = fakeServer({ logger: { stream: { write: (line) => lines.push(line) } } }, async () => {
      throw new Error("database exploded at 10.1.2.3");
    });
    const response = await postCommand(app, { d3key: "k1" }, "{}");
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('{"Error":"Unexpected Error."}');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const error = logged.find((line) => line.msg === "the command handler rejected");
    expect(JSON.stringify(error)).toContain("database exploded");
    expect(error?.reqId).toBe(response.headers["x-request-id"]);
  });

  it("never answers 5xx nor calls the handler with anything but JSON values or INVALID_JSON (property)", async () => {
    const { app, calls } = fakeServer();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.jsonValue().map((value) => new TextEncoder().encode(JSON.stringify(value))),
          fc.string().map((text) => new TextEncoder().encode(text)),
        ),
        fc.constantFrom(undefined, "application/json", "text/plain", "application/json; charset=utf-8"),
        async (payload, contentType) => {
          calls.length = 0;
          const response = await postCommand(
            app,
            { d3key: "k1", ...(contentType === undefined ? {} : { "content-type": contentType }) },
            Buffer.from(payload),
          );
          expect(response.statusCode).toBeLessThan(500);
          expect(Object.keys(response.json() as object).length).toBeGreaterThan(0);
          for (const call of calls) {
            if (call.body !== INVALID_JSON) expect(call.body).toEqual(JSON.parse(JSON.stringify(call.body)));
          }
        },
      ),
      fcOptions(200),
    );
  });
});
