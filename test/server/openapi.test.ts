/**
 * `/openapi.json` and `/schema/search-conditions.json` (docs/server.md, "OpenAPI and JSON
 * Schema"): the document is valid OpenAPI 3.1 for a maintained validator, describes the server's base path
 * and catalogue, and every response the server test suites receive validates against it (the hook of
 * test/support/openapi-responses.setup.ts, checked here to be installed and to catch a wrong body).
 */
import { validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryBackend } from "../../src/commands/index.js";
import { DEFAULT_CATALOG, extendCatalog } from "../../src/conditions/catalog.js";
import { searchConditionsJsonSchema } from "../../src/conditions/json-schema.js";
import { openApiDocument } from "../../src/server/openapi.js";
import { responseChecker } from "../support/openapi-responses.js";
import { responsesChecked } from "../support/openapi-responses.setup.js";
import { envelope, KEYS, post, type RunningServer, send, startServer, TEST_DATASET } from "./fixtures.js";

const catalog = extendCatalog(DEFAULT_CATALOG, { labels: { Severity: ["Unassigned"] } });

describe("the OpenAPI document", () => {
  it.each([
    ["no base path", {}],
    ["a base path and a custom catalogue", { basePath: "/VSOC/api", catalog }],
  ])("is valid OpenAPI 3.1 (@readme/openapi-parser), with %s", async (_what, options) => {
    const document = openApiDocument(options);
    const result = await validate(structuredClone(document) as never);
    expect(result).toMatchObject({ valid: true, specification: "OpenAPI" });
    expect(document.openapi).toBe("3.1.0");
  });

  it("is refused by the validator when broken (the validation can fail)", async () => {
    const document = openApiDocument() as Record<string, unknown>;
    const broken = { ...document, paths: { "/x": { post: { responses: { "200": { content: 5 } } } } } };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it("names the three commands under the base path, both security schemes, and every status", () => {
    const document = openApiDocument({ basePath: "/VSOC/api" }) as {
      paths: Record<string, { post?: { security: unknown; responses: Record<string, unknown> } }>;
      components: { securitySchemes: Record<string, unknown> };
    };
    for (const name of [
      "GetIncidentTimelineEntries",
      "TriggerIncidentExternalAction",
      "AddNotesToArtifacts",
    ]) {
      const operation = document.paths[`/VSOC/api/Command/${name}`]?.post;
      expect(operation?.security).toEqual([{ d3key: [] }, { d3jwt: [] }]);
      expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(
        ["200", "400", "401", "408", "413", "415", "417", "429", "431", "500", "503"].sort(),
      );
    }
    expect(document.components.securitySchemes).toEqual({
      d3key: expect.objectContaining({ type: "apiKey", in: "header", name: "d3key" }),
      d3jwt: expect.objectContaining({ type: "apiKey", in: "header", name: "d3jwt" }),
    });
  });

  it("catches a body the server does not send (the response check can fail)", () => {
    const check = responseChecker();
    const base = { method: "POST", url: "/Command/AddNotesToArtifacts", contentType: "application/json" };
    expect(check({ ...base, status: 200, body: '{"error":"","returnData":"Successful"}' })).toMatch(
      /required property/,
    );
    expect(check({ ...base, status: 401, body: '{"error":"Invalid authentication key."}' })).toMatch(/Error/);
    expect(check({ ...base, status: 302, body: "{}" })).toMatch(/status not in the document/);
    expect(check({ ...base, url: "/nowhere", status: 404, body: '{"Error":"Not found."}' })).toBeUndefined();
    expect(
      check({ ...base, url: "/command/addnotestoartifacts", status: 401, body: '{"Error":"x"}' }),
    ).toBeUndefined();
  });
});

describe("the routes", () => {
  let running: RunningServer;
  const backend = createMemoryBackend(TEST_DATASET, { catalog });
  beforeAll(async () => {
    running = await startServer({ backend, catalog, basePath: "/VSOC/api" });
  });
  afterAll(() => running.server.close());

  it("GET /openapi.json is the document of the server's base path and catalogue, without a credential", async () => {
    const answer = await send(`${running.url}/openapi.json`, { method: "GET" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(answer.json).toEqual(openApiDocument({ basePath: "/VSOC/api", catalog }));
  });

  it("GET /schema/search-conditions.json is the JSON Schema of the server's catalogue", async () => {
    const answer = await send(`${running.url}/schema/search-conditions.json`, { method: "GET" });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(searchConditionsJsonSchema({ catalog }));
    const validate = new Ajv2020({ allowUnionTypes: true }).compile(answer.json as object);
    expect(validate({ Severity: "Unassigned" })).toBe(true);
    expect(validate({ Severity: "Unasigned" })).toBe(false);
  });

  it("holds this file's responses to the document (the hook is installed)", async () => {
    const before = responsesChecked();
    const answer = await post(
      `${running.url}/VSOC/api`,
      "TriggerIncidentExternalAction",
      envelope({ "Search Conditions": { Type: "Phishing" }, "Trigger Data": {}, "Dry Run": true }),
    );
    expect(answer.status).toBe(200);
    expect(responsesChecked()).toBe(before + 1);
  });

  it("a Dry Run over HTTP is authenticated like the command, and records nothing", async () => {
    const body = envelope({ "Search Conditions": { Type: "Phishing" }, "Trigger Data": {}, "Dry Run": true });
    const stranger = await post(`${running.url}/VSOC/api`, "TriggerIncidentExternalAction", body, {
      d3key: "wrong",
    });
    expect(stranger).toMatchObject({ status: 401, json: { Error: "Invalid authentication key." } });
    const answer = await post(`${running.url}/VSOC/api`, "TriggerIncidentExternalAction", body, {
      d3key: KEYS.analyst,
    });
    expect(answer.json).toEqual({
      error: "",
      returnData: {
        Status: "Successful",
        Data: {
          IncidentId: 101,
          IncidentNo: "20240101-1",
          TriggeredPlaybooks: [],
          DryRun: true,
          PlaybooksToRun: [{ PlaybookName: "Phishing Response" }, { PlaybookName: "Notify Owner" }],
        },
      },
    });
    expect(backend.runs()).toEqual([]);
  });
});
