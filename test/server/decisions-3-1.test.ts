/**
 * Audit probes of docs/semantics.md 3.1 (transport), through Fastify's inject.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "../../src/server/index.js";
import { KEYS, SOC, TEST_DATASET } from "./fixtures.js";

const UNAUTHORIZED = { Error: "Invalid authentication key." };
const BAD_BODY = { Error: "The body of the request must be a valid JSON object" };
let app: ReturnType<typeof createServer>;
beforeAll(async () => {
  app = createServer({
    dataset: TEST_DATASET,
    apiKeys: [
      { username: "analyst", key: KEYS.analyst },
      { username: "lead", key: KEYS.lead },
    ],
    basePath: "/VSOC/api",
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
});

const inject = (
  method: string,
  url: string,
  body?: string,
  headers: Record<string, string> = { d3key: KEYS.analyst, "content-type": "application/json" },
) => app.inject({ method: method as "POST", url, headers, ...(body === undefined ? {} : { payload: body }) });

const env = (CommandParams: unknown) => JSON.stringify({ Username: "analyst", Site: SOC, CommandParams });

describe("docs/semantics.md 3.1: authentication comes first, for any path under {basePath}/Command/", () => {
  it.each(["GET", "PUT", "DELETE", "PATCH"])(
    "answers 401 (not 405) to %s without a credential",
    async (method) => {
      const r = await inject(method, "/VSOC/api/Command/GetIncidentTimelineEntries", undefined, {});
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual(UNAUTHORIZED);
    },
  );

  it("answers 401 (not 405) to GET of an unknown command without a credential", async () => {
    const r = await inject("GET", "/VSOC/api/Command/Nope", undefined, {});
    expect(r.statusCode).toBe(401);
  });

  it("answers 405 to GET with a valid credential", async () => {
    const r = await inject("GET", "/VSOC/api/Command/GetIncidentTimelineEntries", undefined, {
      d3key: KEYS.analyst,
    });
    expect(r.statusCode).toBe(405);
    expect(typeof r.json().Error).toBe("string");
  });

  it.each([
    ["a long name", "x".repeat(5000)],
    ["encoded slash", "a%2Fb"],
    ["nested segments", "a/b/c"],
    ["unicode", "%E2%98%83"],
    ["bad percent encoding", "%zz"],
    ["an empty name", ""],
    ["lower-case command segment", null],
  ])("answers POST 401 without a credential for %s", async (_n, name) => {
    const url = name === null ? "/vsoc/api/command/Nope" : `/VSOC/api/Command/${name}`;
    const r = await inject("POST", url, env({}), { "content-type": "application/json" });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toEqual(UNAUTHORIZED);
  });

  it("answers 401 for GET on an invalid percent-encoding without a credential", async () => {
    const r = await inject("GET", "/VSOC/api/Command/%zz", undefined, {});
    expect(r.statusCode).toBe(401);
  });
});

describe("docs/semantics.md 3.1: case-insensitive Command segment and command names", () => {
  it.each([
    "/VSOC/api/command/getincidenttimelineentries",
    "/VSOC/api/COMMAND/GETINCIDENTTIMELINEENTRIES",
    "/vsoc/API/Command/GetIncidentTimelineEntries",
  ])("routes %s", async (url) => {
    const r = await inject("POST", url, env({ "Incident Number": "20240101-1" }));
    expect(r.statusCode).toBe(200);
    expect(r.json().error).toBe("");
  });

  it("answers 404 with the exact Unknown command body", async () => {
    const r = await inject("POST", "/VSOC/api/Command/Nope", env({}));
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ Error: "Unknown command 'Nope'." });
  });
});

describe("docs/semantics.md 3.1: 400 for a body that is not a JSON object, for every command", () => {
  const names = ["GetIncidentTimelineEntries", "TriggerIncidentExternalAction", "AddNotesToArtifacts"];
  const bodies: [string, string | undefined][] = [
    ["invalid JSON", "{"],
    ["an array", "[]"],
    ["a string", '"x"'],
    ["a number", "1"],
    ["null", "null"],
    ["empty", ""],
    ["no body", undefined],
    ["whitespace", "  "],
  ];
  for (const name of names) {
    it.each(bodies)(`${name}: %s`, async (_n, body) => {
      const r = await inject("POST", `/VSOC/api/Command/${name}`, body);
      expect(r.statusCode).toBe(400);
      expect(r.json()).toEqual(BAD_BODY);
    });
  }
});

describe("docs/semantics.md 3.1: envelope fields", () => {
  it.each([
    ["Username missing", { Site: SOC, CommandParams: {} }, "Username"],
    ["Username a number", { Username: 1, Site: SOC, CommandParams: {} }, "Username"],
    ["Username empty", { Username: "", Site: SOC, CommandParams: {} }, "Username"],
    ["Username null", { Username: null, Site: SOC, CommandParams: {} }, "Username"],
    ["Username an array", { Username: ["analyst"], Site: SOC, CommandParams: {} }, "Username"],
    ["Site missing", { Username: "analyst", CommandParams: {} }, "Site"],
    ["Site empty", { Username: "analyst", Site: "", CommandParams: {} }, "Site"],
    ["Site an object", { Username: "analyst", Site: {}, CommandParams: {} }, "Site"],
    ["CommandParams missing", { Username: "analyst", Site: SOC }, "CommandParams"],
    ["CommandParams an array", { Username: "analyst", Site: SOC, CommandParams: [] }, "CommandParams"],
    ["CommandParams a string", { Username: "analyst", Site: SOC, CommandParams: "{}" }, "CommandParams"],
    ["CommandParams null", { Username: "analyst", Site: SOC, CommandParams: null }, "CommandParams"],
  ])("%s: 400 naming the field", async (_n, body, field) => {
    const r = await inject("POST", "/VSOC/api/Command/GetIncidentTimelineEntries", JSON.stringify(body));
    expect(r.statusCode).toBe(400);
    expect(r.json().Error).toContain(field);
  });

  it("ignores extra envelope fields such as Timestamp", async () => {
    const r = await inject(
      "POST",
      "/VSOC/api/Command/GetIncidentTimelineEntries",
      JSON.stringify({
        Username: "analyst",
        Site: SOC,
        CommandParams: { "Incident Number": "20240101-1" },
        Timestamp: "2024-01-01T00:00:00Z",
        Extra: { nested: [1, 2] },
        extra2: null,
      }),
    );
    expect(r.statusCode).toBe(200);
    expect(r.json().error).toBe("");
  });
});

describe("docs/semantics.md 3.1: 413 and 415", () => {
  it("413 with an Error body one byte over 1 MiB; 1 MiB itself is accepted", async () => {
    const base = env({ "Incident Number": "20240101-1" });
    const pad = (n: number) => `${base.slice(0, -1)},"Pad":"${"x".repeat(n - base.length - 9)}"}`;
    const exact = pad(1_048_576);
    expect(Buffer.byteLength(exact)).toBe(1_048_576);
    const ok = await inject("POST", "/VSOC/api/Command/GetIncidentTimelineEntries", exact);
    expect(ok.statusCode).toBe(200);
    const over = pad(1_048_577);
    const r = await inject("POST", "/VSOC/api/Command/GetIncidentTimelineEntries", over);
    expect(r.statusCode).toBe(413);
    expect(typeof r.json().Error).toBe("string");
  });

  it.each(["gzip", "deflate", "br", "identity, gzip", "x-unknown"])(
    "415 with an Error body for Content-Encoding %s",
    async (encoding) => {
      const r = await inject("POST", "/VSOC/api/Command/GetIncidentTimelineEntries", env({}), {
        d3key: KEYS.analyst,
        "content-type": "application/json",
        "content-encoding": encoding,
      });
      expect(r.statusCode).toBe(415);
      expect(typeof r.json().Error).toBe("string");
    },
  );

  it.each(["identity", "IDENTITY"])("accepts Content-Encoding %s", async (encoding) => {
    const r = await inject(
      "POST",
      "/VSOC/api/Command/GetIncidentTimelineEntries",
      env({ "Incident Number": "20240101-1" }),
      { d3key: KEYS.analyst, "content-type": "application/json", "content-encoding": encoding },
    );
    expect(r.statusCode).toBe(200);
  });
});

describe("docs/semantics.md 3: access to the site", () => {
  it("the same message whether or not the site exists", async () => {
    const lead = { d3key: KEYS.lead, "content-type": "application/json" };
    for (const site of ["Berlin Lab", "Nowhere"]) {
      const r = await inject(
        "POST",
        "/VSOC/api/Command/GetIncidentTimelineEntries",
        JSON.stringify({ Username: "lead", Site: site, CommandParams: { "Incident Number": "20240103-1" } }),
        lead,
      );
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        error: `User 'lead' has no access to site '${site}'.`,
        returnData: { Status: "Failed", Data: [] },
      });
    }
  });
});

describe("docs/semantics.md 3.1: authentication before 413 and 415", () => {
  it("answers 401 to an unauthenticated body over the size limit", async () => {
    const big = env({ Note: "x".repeat(2_000_000) });
    const r = await inject("POST", "/VSOC/api/Command/AddNotesToArtifacts", big, {
      "content-type": "application/json",
    });
    expect(r.statusCode).toBe(401);
  });
  it("answers 401 to an unauthenticated gzip body", async () => {
    const r = await inject("POST", "/VSOC/api/Command/AddNotesToArtifacts", env({}), {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(r.statusCode).toBe(401);
  });
});

describe("docs/semantics.md 3.1 / 1.1: a body that is a JSON object is not answered 'must be a valid JSON object'", () => {
  it("ignores an extra envelope field named __proto__ (envelope fields other than the three are ignored)", async () => {
    const body = `{"Username":"analyst","Site":"${SOC}","CommandParams":{"Incident Number":"20240101-1"},"__proto__":{"x":1}}`;
    const r = await inject("POST", "/VSOC/api/Command/GetIncidentTimelineEntries", body);
    expect(r.statusCode).toBe(200);
    expect(r.json().error).toBe("");
  });

  it("answers a __proto__ key inside Search Conditions as a Search Conditions issue (200, with its path), not 400", async () => {
    const body = `{"Username":"analyst","Site":"${SOC}","CommandParams":{"Search Conditions":{"Severity":"High","__proto__":{"Title":"x"}},"Trigger Data":{}}}`;
    const r = await inject("POST", "/VSOC/api/Command/TriggerIncidentExternalAction", body);
    expect(r.statusCode).toBe(200);
    expect(r.json().returnData.Status).toBe("Failed");
    expect(r.json().error).toContain("__proto__");
  });

  it("refuses a __proto__ key inside Trigger Data as a command failure naming the key, and pollutes nothing", async () => {
    const body = `{"Username":"analyst","Site":"${SOC}","CommandParams":{"Search Conditions":{"Severity":"High"},"Trigger Data":{"a":{"__proto__":{"polluted":1}}}}}`;
    const r = await inject("POST", "/VSOC/api/Command/TriggerIncidentExternalAction", body);
    expect(r.statusCode).toBe(200);
    expect(r.json().returnData.Status).toBe("Failed");
    expect(r.json().error).toBe(
      "Parameter 'Trigger Data' must not contain the key '__proto__' (at a.__proto__).",
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("docs/semantics.md 3.1: 401 whatever the command name's length (over real HTTP)", () => {
  /** Sends a POST with a 20,000-character command name; its status and Retry-After. */
  async function overLong(
    port: number,
    credential: Record<string, string>,
  ): Promise<{ status: number; retryAfter: string | undefined }> {
    const http = await import("node:http");
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: `/Command/${"x".repeat(20_000)}`,
          method: "POST",
          headers: { "content-type": "application/json", ...credential },
        },
        (res) => {
          res.resume();
          const retry = res.headers["retry-after"];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retry) ? retry[0] : retry });
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
  }

  async function listening(options: { rateLimit?: number } = {}) {
    const server = createServer({
      dataset: TEST_DATASET,
      apiKeys: [{ username: "analyst", key: KEYS.analyst }],
      ...options,
    });
    await server.listen({ host: "127.0.0.1", port: 0 });
    const address = server.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    return { server, port: address.port };
  }

  it.each([
    ["no credential", {}, 401],
    ["a wrong key", { d3key: "wrong" }, 401],
    ["a valid key", { d3key: KEYS.analyst }, 431],
  ] as const)(
    "a POST whose command name is 20,000 characters, with %s: %i",
    async (_name, credential, expected) => {
      const { server, port } = await listening();
      try {
        expect((await overLong(port, credential)).status).toBe(expected);
      } finally {
        await server.close();
      }
    },
  );

  it("counts failed over-long authentications against the address's budget: 429 with Retry-After past it", async () => {
    const { server, port } = await listening({ rateLimit: 2 });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await overLong(port, { d3key: `guess-${i}` }));
      expect(answers.map((a) => a.status)).toEqual([401, 401, 429, 429]);
      expect(Number(answers[2]!.retryAfter)).toBeGreaterThanOrEqual(1);
      // Past the budget a right guess is answered as a wrong one: nothing tells the two apart.
      expect((await overLong(port, { d3key: KEYS.analyst })).status).toBe(429);
    } finally {
      await server.close();
    }
  });
});
