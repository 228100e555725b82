/**
 * The OpenAPI document and the wire types of `commands` describe the same bodies (docs/server.md, "OpenAPI
 * and JSON Schema"). The document is plain data built by hand and the wire types are TypeScript types,
 * so each is held to the other here: each table below is typed by `Shape<T>` of its wire type, so that a
 * field added to, removed from or made optional in a wire type fails the type check of this file until
 * the table follows; and the test fails until the document's schema has the same properties, required
 * exactly where the type requires them. The server suites' responses are validated against the document
 * besides (test/support/openapi-responses.setup.ts).
 */
import { describe, expect, it } from "vitest";
import {
  type AddNotesResponseBody,
  type ArtifactNoteContextItem,
  COMMAND_NAMES,
  type CommandEnvelope,
  type ErrorResponseBody,
  type TimelineEntryData,
  type TimelineResponseBody,
  type TimelineReturnData,
  type TriggeredIncidentData,
  type TriggeredPlaybook,
  type TriggerResponseBody,
  type TriggerReturnData,
} from "../../src/commands/wire.js";
import { openApiDocument } from "../../src/server/openapi.js";

/** Every key of `T`, each marked required or optional: an object literal of this type names them all. */
type Shape<T> = {
  readonly [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? "optional" : "required";
};
/** Every `Status` of a `returnData` union. */
type Statuses<T extends { readonly Status: string }> = { readonly [S in T["Status"]]: true };

type Json = { readonly [key: string]: unknown };

const document = openApiDocument({}) as unknown as Json;
const at = (value: unknown, ...path: (string | number)[]): Json => {
  let here = value;
  for (const step of path) here = (here as Record<string | number, unknown>)[step];
  expect(here, path.join(".")).toBeTypeOf("object");
  return here as Json;
};
const schemas = at(document, "components", "schemas");

const error: Shape<ErrorResponseBody> = { Error: "required" };
const timelineEntry: Shape<TimelineEntryData> = {
  TimelineID: "required",
  Time: "required",
  Summary: "required",
  Note: "required",
  EventType: "required",
  Tactic: "required",
  Technique: "required",
  RiskLevel: "required",
  Description: "required",
  Author: "required",
};
const triggeredIncident: Shape<TriggeredIncidentData> = {
  IncidentId: "required",
  IncidentNo: "required",
  TriggeredPlaybooks: "required",
  DryRun: "optional",
  PlaybooksToRun: "optional",
};
const triggeredPlaybook: Shape<TriggeredPlaybook> = { RuntimeId: "required", PlaybookName: "required" };
const playbookToRun: Shape<NonNullable<TriggeredIncidentData["PlaybooksToRun"]>[number]> = {
  PlaybookName: "required",
};
const artifactNote: Shape<ArtifactNoteContextItem> = {
  "Artifact Name": "required",
  "Artifact Type": "required",
  Note: "required",
  LastModifiedLocalDate: "required",
  Result: "required",
};
const addNotes: Shape<AddNotesResponseBody> = {
  result: "required",
  error: "required",
  returnData: "required",
  contextData: "required",
};
const timelineBody: Shape<TimelineResponseBody> = { error: "required", returnData: "required" };
const triggerBody: Shape<TriggerResponseBody> = { error: "required", returnData: "required" };
const timelineReturn: Shape<TimelineReturnData> = { Status: "required", Data: "required" };
const triggerReturn: Shape<TriggerReturnData> = { Status: "required", Data: "required" };
const envelope: Shape<CommandEnvelope> = {
  Username: "required",
  Site: "required",
  CommandParams: "required",
};

const timelineStatuses: Statuses<TimelineReturnData> = { Successful: true, Failed: true };
const triggerStatuses: Statuses<TriggerReturnData> = { Successful: true, Failed: true };
const addNotesStatuses: { readonly [S in AddNotesResponseBody["returnData"]]: true } = {
  Successful: true,
  Failed: true,
};

/** The document's schemas of each wire type, with the table of that type. */
const CASES: readonly [string, () => Json, Record<string, "required" | "optional">][] = [
  ["Error", () => at(schemas, "Error"), error],
  ["TimelineEntry", () => at(schemas, "TimelineEntry"), timelineEntry],
  ["TriggeredIncident", () => at(schemas, "TriggeredIncident"), triggeredIncident],
  [
    "TriggeredIncident.TriggeredPlaybooks[]",
    () => at(schemas, "TriggeredIncident", "properties", "TriggeredPlaybooks", "items"),
    triggeredPlaybook,
  ],
  [
    "TriggeredIncident.PlaybooksToRun[]",
    () => at(schemas, "TriggeredIncident", "properties", "PlaybooksToRun", "items"),
    playbookToRun,
  ],
  ["ArtifactNote", () => at(schemas, "ArtifactNote"), artifactNote],
  ["AddNotesResponse (success)", () => at(schemas, "AddNotesResponse", "oneOf", 0), addNotes],
  ["AddNotesResponse (failure)", () => at(schemas, "AddNotesResponse", "oneOf", 1), addNotes],
  ...[0, 1].flatMap((k): [string, () => Json, Record<string, "required" | "optional">][] => [
    [`TimelineResponse (${k})`, () => at(schemas, "TimelineResponse", "oneOf", k), timelineBody],
    [
      `TimelineResponse (${k}).returnData`,
      () => at(schemas, "TimelineResponse", "oneOf", k, "properties", "returnData"),
      timelineReturn,
    ],
    [`TriggerResponse (${k})`, () => at(schemas, "TriggerResponse", "oneOf", k), triggerBody],
    [
      `TriggerResponse (${k}).returnData`,
      () => at(schemas, "TriggerResponse", "oneOf", k, "properties", "returnData"),
      triggerReturn,
    ],
  ]),
];

/** The request body of each command's path (each an envelope). */
function requestBodies(): [string, Json][] {
  const paths = at(document, "paths");
  return COMMAND_NAMES.map((name) => {
    const path = Object.keys(paths).find((key) => key.endsWith(`/${name}`));
    expect(path, name).toBeDefined();
    return [path!, at(paths, path!, "post", "requestBody", "content", "application/json", "schema")];
  });
}

describe("the OpenAPI document describes the wire types of commands", () => {
  it.each([
    ...CASES,
    ...requestBodies().map(
      ([path, schema]): [string, () => Json, Record<string, "required" | "optional">] => [
        `POST ${path}`,
        () => schema,
        envelope,
      ],
    ),
  ])("%s: the same properties, required where the type requires them", (_name, schema, table) => {
    const described = schema();
    expect(Object.keys(at(described, "properties")).sort()).toEqual(Object.keys(table).sort());
    const required = Object.keys(table).filter((key) => table[key] === "required");
    expect([...(described.required as string[])].sort()).toEqual(required.sort());
  });

  it("describes a path for each of the three commands", () => {
    expect(requestBodies().map(([path]) => path)).toEqual(COMMAND_NAMES.map((name) => `/Command/${name}`));
  });

  it.each([
    ["TimelineResponse", timelineStatuses],
    ["TriggerResponse", triggerStatuses],
  ] as const)("%s: one variant per Status of the type", (name, statuses) => {
    const consts = (at(schemas, name).oneOf as unknown[]).map(
      (variant) => at(variant, "properties", "returnData", "properties", "Status").const,
    );
    expect(consts.sort()).toEqual(Object.keys(statuses).sort());
  });

  it("AddNotesResponse: one variant per returnData of the type", () => {
    const consts = (at(schemas, "AddNotesResponse").oneOf as unknown[]).map(
      (variant) => at(variant, "properties", "returnData").const,
    );
    expect(consts.sort()).toEqual(Object.keys(addNotesStatuses).sort());
  });
});
