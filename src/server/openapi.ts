/**
 * The OpenAPI 3.1 description of the reference server (docs/server.md, "OpenAPI and JSON Schema"):
 * the three commands under the configured base path, the `d3key` / `d3jwt` security schemes, every request
 * body, and every response status with the body the server really sends (specification 4, 5, 7;
 * docs/semantics.md 3). Served at `GET /openapi.json`. The Search Conditions parameter is described by
 * `searchConditionsJsonSchema` of the server's catalogue, so the document and the parser cannot drift.
 *
 * Pure: builds a fresh plain object. Written by hand beside the wire types of `commands` (wire.ts):
 * test/server/openapi-wire.test.ts holds each schema to its type, property by property.
 */

import { MESSAGES } from "../commands/wire.js";
import { DEFAULT_CATALOG, type FieldCatalog } from "../conditions/catalog.js";
import { searchConditionsJsonSchema } from "../conditions/json-schema.js";
import { TIMELINE_ENTRY_FIELDS } from "../timeline/entry.js";
import { API_KEY_HEADER, JWT_HEADER } from "./auth.js";

/** Options of `openApiDocument`. */
export interface OpenApiOptions {
  /** The server's base path (normalized: `""` or `/VSOC/api`); the command paths are under it. */
  readonly basePath?: string;
  /** The catalogue of the server's Search Conditions parser (default `DEFAULT_CATALOG`). */
  readonly catalog?: FieldCatalog;
  /** The document's `info.version` (default `"0.1.0"`). */
  readonly version?: string;
}

/** The path of the OpenAPI document (always at the root, like `/healthz`). */
export const OPENAPI_PATH = "/openapi.json";
/** The path of the JSON Schema of Search Conditions (always at the root). */
export const SEARCH_CONDITIONS_SCHEMA_PATH = "/schema/search-conditions.json";

type Json = { [key: string]: unknown };

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string, headers?: Json): Json => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: { "application/json": { schema } },
});

/** Moves the `#/$defs/…` references of a standalone schema under `#/components/schemas/{name}/$defs/…`. */
function relocate(value: unknown, name: string): unknown {
  if (Array.isArray(value)) return value.map((item) => relocate(item, name));
  if (typeof value !== "object" || value === null) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "$schema") continue;
    out[key] =
      key === "$ref" && typeof item === "string" && item.startsWith("#/$defs/")
        ? `#/components/schemas/${name}/$defs/${item.slice("#/$defs/".length)}`
        : relocate(item, name);
  }
  return out;
}

/** The responses every command path can answer besides its 200 (specification 7; docs/semantics.md 3.1). */
function transportResponses(): Json {
  const error = ref("Error");
  return {
    "400": json(
      error,
      `The body is not a JSON object ("${MESSAGES.badBody}"), an envelope field is missing or ill-typed, the body is nested too deep or repeats a key, the URL cannot be decoded, or the request is not valid HTTP.`,
    ),
    "401": json(
      error,
      `A missing, unknown, expired or tampered credential, or a Username that is not the credential's user: "${MESSAGES.unauthorized}"`,
    ),
    "408": json(
      error,
      "The request's headers and body did not all arrive in time (30 s by default); the connection is closed.",
    ),
    "413": json(error, "The body exceeds the size limit (1 MiB by default)."),
    "415": json(error, "A Content-Encoding other than identity: bodies are never inflated."),
    "417": json(error, "An Expect header other than 100-continue."),
    "429": json(
      error,
      `Over the rate limit of the credential's user, or of the address's failed authentications: "${MESSAGES.rateLimited}"`,
      {
        "Retry-After": { description: "Seconds to wait.", schema: { type: "integer", minimum: 1 } },
      },
    ),
    "431": json(error, "The request line and headers exceed 16 KiB (to a caller with a valid credential)."),
    "500": json(
      error,
      `An unexpected failure: "${MESSAGES.unexpected}" (details in the server log under the x-request-id), or a write whose outcome is unknown because the data could not be reached.`,
    ),
    "503": json(
      error,
      "The data could not be reached and nothing was done (docs/semantics.md 3.1, 'When the data cannot be reached'): retry after the header's seconds.",
      {
        "Retry-After": { description: "Seconds to wait.", schema: { type: "integer", minimum: 1 } },
      },
    ),
  };
}

/** The answers of a GET route besides its 200: malformed HTTP (no Host on HTTP/1.1), a failure. */
function getResponses(): Json {
  return {
    "400": json(ref("Error"), "The request is not valid HTTP (an HTTP/1.1 request without Host)."),
    "500": json(ref("Error"), `An unexpected failure: "${MESSAGES.unexpected}"`),
  };
}

/** The command-specific parameters and 200 bodies. */
const COMMANDS: readonly { name: string; summary: string; params: string; ok: string }[] = [
  {
    name: "GetIncidentTimelineEntries",
    summary: "The timeline entries of one incident of the site, filtered and sorted (specification 4.1).",
    params: "TimelineParams",
    ok: "TimelineResponse",
  },
  {
    name: "TriggerIncidentExternalAction",
    summary:
      "Fires 'On Incident External Action' for the first incident of the site that matches the Search Conditions (specification 4.2); with Dry Run, only names the playbooks that would run.",
    params: "TriggerParams",
    ok: "TriggerResponse",
  },
  {
    name: "AddNotesToArtifacts",
    summary: "Adds a note to an artifact of the site (specification 4.3).",
    params: "AddNotesParams",
    ok: "AddNotesResponse",
  },
];

/**
 * Builds the OpenAPI 3.1 document of the reference server (docs/server.md, "OpenAPI and JSON Schema").
 * @param options - `basePath` (normalized, as `createServer` keeps it), `catalog`, `version`
 * @returns a plain JSON object: `POST {basePath}/Command/{Name}` for the three commands (and the templated
 *   path, for unknown names: 404), `GET /healthz`, `GET /openapi.json`, `GET /schema/search-conditions.json`,
 *   `GET /playground` and its files,
 *   the `d3key` and `d3jwt` API-key security schemes (either one), and the schemas of every body
 * @example openApiDocument({ basePath: "/VSOC/api" }).paths["/VSOC/api/Command/AddNotesToArtifacts"]
 */
export function openApiDocument(options: OpenApiOptions = {}): Record<string, unknown> {
  const basePath = options.basePath ?? "";
  const catalog = options.catalog ?? DEFAULT_CATALOG;
  const security = [{ [API_KEY_HEADER]: [] }, { [JWT_HEADER]: [] }];
  const requestId = {
    "x-request-id": { description: "The request's id, as logged.", schema: { type: "string" } },
  };
  const paths: Json = {};
  for (const command of COMMANDS) {
    paths[`${basePath}/Command/${command.name}`] = {
      post: {
        operationId: command.name,
        summary: command.summary,
        security,
        requestBody: {
          required: true,
          content: { "application/json": { schema: envelope(command.params) } },
        },
        responses: {
          "200": json(
            ref(command.ok),
            "The command's result: a success, or a failure with a message in `error` (docs/semantics.md 3.2).",
            requestId,
          ),
          ...transportResponses(),
        },
      },
    };
  }
  paths[`${basePath}/Command/{command}`] = {
    post: {
      operationId: "UnknownCommand",
      summary: "Any other command name: authentication first, then 404.",
      security,
      parameters: [{ name: "command", in: "path", required: true, schema: { type: "string" } }],
      requestBody: { content: { "application/json": { schema: { type: "object" } } } },
      responses: {
        "404": json(ref("Error"), "Unknown command 'X'."),
        ...transportResponses(),
      },
    },
  };
  paths["/healthz"] = {
    get: {
      operationId: "Health",
      summary: "Liveness, without credentials.",
      security: [],
      responses: {
        "200": json(
          {
            type: "object",
            required: ["status"],
            properties: { status: { const: "ok" } },
            additionalProperties: false,
          },
          "The server is up.",
        ),
        ...getResponses(),
      },
    },
  };
  paths[OPENAPI_PATH] = {
    get: {
      operationId: "OpenApi",
      summary: "This document.",
      security: [],
      responses: {
        "200": json({ type: "object", required: ["openapi", "paths"] }, "The OpenAPI 3.1 document."),
      },
    },
  };
  paths[SEARCH_CONDITIONS_SCHEMA_PATH] = {
    get: {
      operationId: "SearchConditionsSchema",
      summary: "The JSON Schema (2020-12) of Search Conditions for the server's catalogue.",
      security: [],
      responses: {
        "200": json({ type: "object", required: ["$schema", "$defs"] }, "The JSON Schema."),
        ...getResponses(),
      },
    },
  };
  const text = (type: string, description: string): Json => ({
    description,
    content: { [type]: { schema: { type: "string" } } },
  });
  paths["/playground"] = {
    get: {
      operationId: "Playground",
      summary: "The Search Conditions playground page (docs/server.md, The playground).",
      security: [],
      responses: { "200": text("text/html", "The page."), ...getResponses() },
    },
  };
  paths["/playground/{file}"] = {
    get: {
      operationId: "PlaygroundFile",
      summary:
        "A file of the playground: app.js, style.css, engine.js (the browser build of the engine), catalog.json.",
      security: [],
      parameters: [{ name: "file", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        "200": {
          description: "The file; catalog.json is the server's field catalogue.",
          content: {
            "text/html": { schema: { type: "string" } },
            "text/javascript": { schema: { type: "string" } },
            "text/css": { schema: { type: "string" } },
            "application/json": { schema: { type: "object", required: ["fields", "alternativeFields"] } },
          },
        },
        "404": json(ref("Error"), "No such file."),
        ...getResponses(),
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "incident-query reference command server",
      version: options.version ?? "0.1.0",
      description:
        "The incident command interface of a SOAR platform: three remote commands, each a POST with a JSON body " +
        "{Username, Site, CommandParams} and a JSON answer. A command that cannot do its work still answers 200, " +
        'with a message in `error`; every other status carries {"Error": "…"}, including 404 for unknown paths and ' +
        "405 (with Allow) for a method other than POST on a command path, once authenticated. Paths match " +
        "case-insensitively. Authenticate with an API key in the d3key header or a JSON web token in the d3jwt " +
        "header (never both).",
    },
    paths,
    components: {
      securitySchemes: {
        [API_KEY_HEADER]: { type: "apiKey", in: "header", name: API_KEY_HEADER, description: "An API key." },
        [JWT_HEADER]: {
          type: "apiKey",
          in: "header",
          name: JWT_HEADER,
          description:
            "A JSON web token (HS256, RS256 or ES256 as configured) whose sub is the user; exp required.",
        },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["Error"],
          properties: { Error: { type: "string", minLength: 1 } },
          additionalProperties: false,
        },
        SearchConditions: relocate(searchConditionsJsonSchema({ catalog }), "SearchConditions"),
        TimelineParams: {
          type: "object",
          required: ["Incident Number"],
          properties: {
            "Incident Number": { type: "string", minLength: 1, examples: ["20240102-1"] },
            Filter: {
              type: "string",
              description:
                "Keeps the entries holding the term, ignoring case, as a literal substring (docs/semantics.md 2).",
            },
            "Sort Order": {
              type: "string",
              description: "ASC, ascending, DESC or descending, any case; empty or absent means ascending.",
              examples: ["ASC", "DESC"],
            },
          },
        },
        TriggerParams: {
          type: "object",
          required: ["Search Conditions", "Trigger Data"],
          properties: {
            "Search Conditions": {
              description: "Search Conditions (docs/semantics.md 1), or a string holding them as JSON text.",
              anyOf: [ref("SearchConditions"), { type: "string" }],
            },
            "Trigger Data": {
              description: "The data each triggered playbook receives: an object, or a string holding one.",
              anyOf: [{ type: "object" }, { type: "string" }],
            },
            "Dry Run": {
              type: ["boolean", "null"],
              description:
                "true: the same checks and search, nothing run or recorded (docs/semantics.md 3.3, Dry run).",
            },
          },
        },
        AddNotesParams: {
          type: "object",
          required: ["Artifact Name", "Note"],
          properties: {
            "Artifact Name": { type: "string", minLength: 1 },
            "Artifact Type": {
              description: "The type's integer id or its label (case-insensitive); needed when names repeat.",
              anyOf: [{ type: "integer" }, { type: "string" }, { type: "null" }],
            },
            Note: { type: "string", minLength: 1 },
          },
        },
        TimelineEntry: {
          type: "object",
          required: [...TIMELINE_ENTRY_FIELDS],
          additionalProperties: false,
          properties: {
            TimelineID: { type: "integer" },
            Time: { type: "string", description: "yyyy-MM-dd HH:mm:ss in the incident's time zone." },
            Summary: { type: "string" },
            Note: { type: "string" },
            EventType: { type: "string" },
            Tactic: { type: "array", items: { type: "string" } },
            Technique: { type: "array", items: { type: "string" } },
            RiskLevel: { type: "string" },
            Description: { type: "string" },
            Author: { type: "string" },
          },
        },
        TimelineResponse: {
          oneOf: [
            success({
              Status: { const: "Successful" },
              Data: { type: "array", items: ref("TimelineEntry") },
            }),
            failure({ Status: { const: "Failed" }, Data: { type: "array", maxItems: 0 } }),
          ],
        },
        TriggeredIncident: {
          type: "object",
          required: ["IncidentId", "IncidentNo", "TriggeredPlaybooks"],
          additionalProperties: false,
          properties: {
            IncidentId: { type: "integer" },
            IncidentNo: { type: "string" },
            TriggeredPlaybooks: {
              type: "array",
              items: {
                type: "object",
                required: ["RuntimeId", "PlaybookName"],
                additionalProperties: false,
                properties: { RuntimeId: { type: "integer" }, PlaybookName: { type: "string" } },
              },
            },
            DryRun: { const: true, description: "Only in the answer to a Dry Run." },
            PlaybooksToRun: {
              description: "Only in the answer to a Dry Run: the playbooks a real run would start, in order.",
              type: "array",
              items: {
                type: "object",
                required: ["PlaybookName"],
                additionalProperties: false,
                properties: { PlaybookName: { type: "string" } },
              },
            },
          },
          dependentRequired: { DryRun: ["PlaybooksToRun"], PlaybooksToRun: ["DryRun"] },
        },
        TriggerResponse: {
          oneOf: [
            success({ Status: { const: "Successful" }, Data: ref("TriggeredIncident") }),
            failure({ Status: { const: "Failed" }, Data: { type: "object", maxProperties: 0 } }),
          ],
        },
        ArtifactNote: {
          type: "object",
          required: ["Artifact Name", "Artifact Type", "Note", "LastModifiedLocalDate", "Result"],
          additionalProperties: false,
          properties: {
            "Artifact Name": { type: "string" },
            "Artifact Type": { type: "string", description: "The type's label." },
            Note: { type: "string" },
            LastModifiedLocalDate: {
              type: "string",
              pattern:
                "^(0[1-9]|1[0-2])/(0[1-9]|[12][0-9]|3[01])/[0-9]{4} (0[1-9]|1[0-2]):[0-5][0-9] (AM|PM)$",
              description: "The note's time in the site's time zone, MM/dd/yyyy hh:mm AM/PM.",
            },
            Result: { const: "Successful" },
          },
        },
        AddNotesResponse: {
          oneOf: [
            {
              type: "object",
              required: ["result", "error", "returnData", "contextData"],
              additionalProperties: false,
              properties: {
                result: {
                  type: "string",
                  minLength: 1,
                  description: "An HTML table: a header row and one data row.",
                },
                error: { const: "" },
                returnData: { const: "Successful" },
                contextData: { type: "array", minItems: 1, maxItems: 1, items: ref("ArtifactNote") },
              },
            },
            {
              type: "object",
              required: ["result", "error", "returnData", "contextData"],
              additionalProperties: false,
              properties: {
                result: { const: "" },
                error: { type: "string", minLength: 1 },
                returnData: { const: "Failed" },
                contextData: { type: "array", maxItems: 0 },
              },
            },
          ],
        },
      },
    },
  };
}

/** The request body of a command: the envelope of specification 2.1 around its parameters. */
function envelope(params: string): Json {
  return {
    type: "object",
    required: ["Username", "Site", "CommandParams"],
    properties: {
      Username: { type: "string", minLength: 1, description: "The credential's user." },
      Site: { type: "string", minLength: 1, description: "The site the command runs on." },
      CommandParams: ref(params),
    },
    description: "Other envelope fields (such as Timestamp) are ignored.",
  };
}

/** A 200 success body: `error` empty, `returnData` with these properties. */
function success(returnData: Json): Json {
  return commandBody({ const: "" }, returnData);
}

/** A 200 failure body: a message in `error`, `returnData` with these properties. */
function failure(returnData: Json): Json {
  return commandBody({ type: "string", minLength: 1 }, returnData);
}

/** A 200 body: `error` of this schema, `returnData` with these properties (`Status` and `Data` required). */
function commandBody(error: Json, returnData: Json): Json {
  return {
    type: "object",
    required: ["error", "returnData"],
    additionalProperties: false,
    properties: {
      error,
      returnData: {
        type: "object",
        required: ["Status", "Data"],
        additionalProperties: false,
        properties: returnData,
      },
    },
  };
}
