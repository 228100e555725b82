import { describe, expect, it } from "vitest";
import * as client from "../src/client/index.js";
import * as commands from "../src/commands/index.js";
import * as engine from "../src/index.js";
import * as mongodb from "../src/mongodb/index.js";
import * as node from "../src/node/index.js";
import * as server from "../src/server/index.js";

// The public names users rely on (docs/architecture.md). A change here is an API change: update the
// CHANGELOG with it.
describe("public API", () => {
  it("the engine entry exports exactly these runtime names", () => {
    expect(Object.keys(engine).sort()).toMatchInlineSnapshot(`
      [
        "BUDGET_CHECK_INTERVAL",
        "DEFAULT_CATALOG",
        "DEFAULT_LIMITS",
        "IncidentSet",
        "InvalidSortOrderError",
        "MAX_CONDITION_DEPTH",
        "SORT_ORDER_TOKENS",
        "SearchConditionsError",
        "SearchTimeoutError",
        "TimelineIndex",
        "assertNever",
        "budgetedPredicate",
        "buildArtifactNoteResult",
        "cacheStats",
        "clearCaches",
        "compile",
        "createTimelineIndex",
        "evaluate",
        "explain",
        "extendCatalog",
        "formatIssues",
        "formatLocalDate",
        "formatPath",
        "isParsedCondition",
        "matchesEverythingByShape",
        "parseSearchConditions",
        "parseSortOrder",
        "queryTimeline",
        "renderNoteResultTable",
        "safeParseSearchConditions",
        "searchConditionsJsonSchema",
        "startBudget",
        "toMongoFilter",
        "toMongoFind",
        "toSearchConditions",
        "validateTimelineEntries",
      ]
    `);
  });

  it("the commands, server, client and mongodb entries export their documented names", () => {
    expect(Object.keys(commands)).toEqual(
      expect.arrayContaining([
        "createCommandHandler",
        "createMemoryBackend",
        "loadSampleDataset",
        "validateDataset",
        "INVALID_JSON",
      ]),
    );
    expect(Object.keys(server)).toEqual(expect.arrayContaining(["createServer"]));
    expect(Object.keys(client)).toEqual(
      expect.arrayContaining(["createCommandClient", "CommandClientError"]),
    );
    expect(Object.keys(mongodb).sort()).toEqual(["firstMatchingIncident", "toMongoFilter", "toMongoFind"]);
  });

  it("the node entry exports exactly these runtime names", () => {
    expect(Object.keys(node).sort()).toEqual(["NdjsonInputError", "fromNdjson", "matchNdjson"]);
  });
});
