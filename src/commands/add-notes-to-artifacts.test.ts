/**
 * AddNotesToArtifacts through the handler and the memory backend (specification 2.5, 4.3; docs/semantics.md 3,
 * 3.3): success, each missing and ill-typed parameter, not found, ambiguous names, exact bodies, the local
 * date in the site's time zone, and an inert HTML result.
 */
import { parse } from "node-html-parser";
import { describe, expect, it } from "vitest";
import { BERLIN, HQ, NO_ZONE, NOW, setup } from "../../test/support/commands-fixtures.js";
import { renderNoteResultTable } from "../artifacts/note-result.js";

const COMMAND = "AddNotesToArtifacts";

function failure(error: string) {
  return { status: 200, body: { result: "", error, returnData: "Failed", contextData: [] } };
}

function success(name: string, type: string, note: string, local: string) {
  const item = {
    "Artifact Name": name,
    "Artifact Type": type,
    Note: note,
    LastModifiedLocalDate: local,
    Result: "Successful",
  };
  return {
    status: 200,
    body: { result: renderNoteResultTable(item), error: "", returnData: "Successful", contextData: [item] },
  };
}

describe("AddNotesToArtifacts: success", () => {
  it("adds the note and answers with the exact body; the local date is in the site's zone", async () => {
    const { call, backend } = setup();
    const response = await call(COMMAND, { "Artifact Name": "10.0.0.5", Note: "Seen in proxy logs" });
    // NOW is 2024-03-10T07:30:00Z: 03:30 AM in New York (after the DST switch).
    expect(response).toEqual(success("10.0.0.5", "IP Address", "Seen in proxy logs", "03/10/2024 03:30 AM"));
    expect(backend.notes()).toEqual([
      {
        site: HQ,
        artifactName: "10.0.0.5",
        artifactTypeId: 1,
        text: "Seen in proxy logs",
        author: "alice",
        time: NOW,
      },
    ]);
  });

  it.each([
    [BERLIN, "berlin-host", "Hostname", "03/10/2024 08:30 AM"],
    [NO_ZONE, "nozone-host", "Hostname", "03/10/2024 07:30 AM"],
  ])("formats the date in the zone of site %s (UTC when none)", async (site, name, type, local) => {
    const { call } = setup();
    expect(await call(COMMAND, { "Artifact Name": name, Note: "n" }, { site })).toEqual(
      success(name, type, "n", local),
    );
  });

  it.each([
    ["the integer id", 6, "Hostname"],
    ["the label", "Domain", "Domain"],
    ["the label in another case with spaces", "  hOSTNAME ", "Hostname"],
    ["the id as a string of digits", "2", "Domain"],
  ])("chooses among artifacts sharing a name by %s", async (_name, artifactType, label) => {
    const { call, backend } = setup();
    const response = await call(COMMAND, {
      "Artifact Name": "corp.example",
      "Artifact Type": artifactType,
      Note: "x",
    });
    expect(response).toEqual(success("corp.example", label, "x", "03/10/2024 03:30 AM"));
    expect(backend.notes()[0]?.artifactTypeId).toBe(label === "Domain" ? 2 : 6);
  });

  it("accepts a matching Artifact Type for a unique name, and treats null as omitted", async () => {
    const { call } = setup();
    expect(await call(COMMAND, { "Artifact Name": "10.0.0.5", "Artifact Type": 1, Note: "a" })).toEqual(
      success("10.0.0.5", "IP Address", "a", "03/10/2024 03:30 AM"),
    );
    expect(await call(COMMAND, { "Artifact Name": "10.0.0.5", "Artifact Type": null, Note: "b" })).toEqual(
      success("10.0.0.5", "IP Address", "b", "03/10/2024 03:30 AM"),
    );
  });

  // docs/semantics.md 3: an empty or blank string is not an omission.
  it.each([[""], [" "], [" \t\n"]])(
    "refuses the blank Artifact Type %j, naming the accepted types",
    async (blank) => {
      const { call, backend } = setup();
      expect(await call(COMMAND, { "Artifact Name": "10.0.0.5", "Artifact Type": blank, Note: "b" })).toEqual(
        failure(
          "Parameter 'Artifact Type' must not be empty: expected one of 1 'IP Address', 2 'Domain', 6 'Hostname' (or leave the parameter out).",
        ),
      );
      expect(backend.notes()).toEqual([]);
    },
  );

  it("reports a blank Artifact Type together with the other parameter problems", async () => {
    const { call } = setup();
    expect(await call(COMMAND, { "Artifact Type": "", Note: "b" })).toEqual(
      failure(
        "Missing required parameter 'Artifact Name'. Parameter 'Artifact Type' must not be empty: expected one of 1 'IP Address', 2 'Domain', 6 'Hostname' (or leave the parameter out).",
      ),
    );
  });

  it("keeps the note exactly, and returns a script note inert", async () => {
    const { call, backend } = setup();
    const note = "  <script>alert(1)</script>\n& more  ";
    const response = await call(COMMAND, { "Artifact Name": "10.0.0.5", Note: note });
    const body = response.body as { result: string; contextData: { Note: string }[] };
    expect(body.contextData[0]!.Note).toBe(note);
    expect(backend.notes()[0]!.text).toBe(note);
    expect(body.result).not.toContain("<script>");
    const root = parse(body.result);
    expect(root.querySelectorAll("script")).toHaveLength(0);
    const headerRows = root.querySelectorAll("tr").filter((tr) => tr.querySelectorAll("th").length > 0);
    const dataRows = root.querySelectorAll("tr").filter((tr) => tr.querySelectorAll("td").length > 0);
    expect(headerRows).toHaveLength(1);
    expect(dataRows).toHaveLength(1);
    expect(dataRows[0]!.querySelectorAll("td").map((td) => td.text)).toEqual([
      "10.0.0.5",
      "IP Address",
      note,
      "03/10/2024 03:30 AM",
      "Successful",
    ]);
  });

  it("stores every note with its author, in order", async () => {
    const { call, backend } = setup();
    await call(COMMAND, { "Artifact Name": "berlin-host", Note: "one" }, { site: BERLIN, user: "bob" });
    await call(COMMAND, { "Artifact Name": "berlin-host", Note: "two" }, { site: BERLIN, user: "alice" });
    expect(backend.notes().map((n) => [n.text, n.author])).toEqual([
      ["one", "bob"],
      ["two", "alice"],
    ]);
    const stored = backend.snapshot().artifacts!.find((a) => a.name === "berlin-host")!;
    expect(stored.notes!.map((n) => n.text)).toEqual(["old", "one", "two"]);
  });
});

describe("AddNotesToArtifacts: failures", () => {
  it.each([
    ["Artifact Name absent", { Note: "n" }, "Missing required parameter 'Artifact Name'."],
    ["Note absent", { "Artifact Name": "10.0.0.5" }, "Missing required parameter 'Note'."],
    ["both absent", {}, "Missing required parameter 'Artifact Name'. Missing required parameter 'Note'."],
    ["Note null", { "Artifact Name": "10.0.0.5", Note: null }, "Missing required parameter 'Note'."],
    [
      "Note misspelled",
      { "Artifact Name": "10.0.0.5", note: "n" },
      "Unknown parameter 'note': did you mean 'Note'? Nothing was done: parameter names are exact (case, spaces, '_' and '-' count).",
    ],
    [
      "Artifact Name with an underscore",
      { Artifact_Name: "10.0.0.5", Note: "n" },
      "Unknown parameter 'Artifact_Name': did you mean 'Artifact Name'? Nothing was done: parameter names are exact (case, spaces, '_' and '-' count).",
    ],
    [
      "Artifact Name a number",
      { "Artifact Name": 10, Note: "n" },
      "Parameter 'Artifact Name' must be a string, found the number 10.",
    ],
    [
      "Artifact Name empty",
      { "Artifact Name": "", Note: "n" },
      "Parameter 'Artifact Name' must not be empty.",
    ],
    [
      "Note an object",
      { "Artifact Name": "10.0.0.5", Note: { text: "n" } },
      "Parameter 'Note' must be a string, found an object.",
    ],
    ["Note empty", { "Artifact Name": "10.0.0.5", Note: "" }, "Parameter 'Note' must not be empty."],
    [
      "Artifact Type a boolean",
      { "Artifact Name": "10.0.0.5", "Artifact Type": true, Note: "n" },
      "Parameter 'Artifact Type' must be an integer type id or a type label, found the boolean true.",
    ],
    [
      "Artifact Type a fraction",
      { "Artifact Name": "10.0.0.5", "Artifact Type": 1.5, Note: "n" },
      "Parameter 'Artifact Type' must be an integer type id or a type label, found the number 1.5.",
    ],
    [
      "Artifact Type negative",
      { "Artifact Name": "10.0.0.5", "Artifact Type": -1, Note: "n" },
      "Parameter 'Artifact Type' must be an integer type id or a type label, found the number -1.",
    ],
    [
      "Artifact Type an array",
      { "Artifact Name": "10.0.0.5", "Artifact Type": [1], Note: "n" },
      "Parameter 'Artifact Type' must be an integer type id or a type label, found an array.",
    ],
    [
      "Artifact Type unknown id",
      { "Artifact Name": "10.0.0.5", "Artifact Type": 9, Note: "n" },
      "Artifact type id 9 is not known: expected one of 1 'IP Address', 2 'Domain', 6 'Hostname'.",
    ],
    [
      "Artifact Type unknown label",
      { "Artifact Name": "10.0.0.5", "Artifact Type": "IPv4", Note: "n" },
      "Artifact type 'IPv4' is not known: expected one of 1 'IP Address', 2 'Domain', 6 'Hostname'.",
    ],
    [
      "unknown artifact",
      { "Artifact Name": "10.0.0.6", Note: "n" },
      "Artifact '10.0.0.6' was not found in site 'HQ'.",
    ],
    [
      "artifact of another site",
      { "Artifact Name": "berlin-host", Note: "n" },
      "Artifact 'berlin-host' was not found in site 'HQ'.",
    ],
    [
      "name in another case",
      { "Artifact Name": "CORP.EXAMPLE", Note: "n" },
      "Artifact 'CORP.EXAMPLE' was not found in site 'HQ'.",
    ],
    [
      "artifact of another type",
      { "Artifact Name": "10.0.0.5", "Artifact Type": "Domain", Note: "n" },
      "Artifact '10.0.0.5' of type 'Domain' was not found in site 'HQ' (it exists with the type 'IP Address').",
    ],
    [
      "shared name without a type",
      { "Artifact Name": "corp.example", Note: "n" },
      "Several artifacts are named 'corp.example' in site 'HQ' (types 'Domain', 'Hostname'): set 'Artifact Type' to choose one.",
    ],
  ])("%s", async (_name, params, message) => {
    const { call, backend } = setup();
    expect(await call(COMMAND, params)).toEqual(failure(message));
    expect(backend.notes()).toEqual([]);
  });

  it("refuses a note longer than maxNoteLength", async () => {
    const { call, backend } = setup({ maxNoteLength: 10 });
    expect((await call(COMMAND, { "Artifact Name": "10.0.0.5", Note: "x".repeat(10) })).body).toMatchObject({
      error: "",
    });
    expect(await call(COMMAND, { "Artifact Name": "10.0.0.5", Note: "x".repeat(11) })).toEqual(
      failure("Parameter 'Note' must be at most 10 characters, found 11."),
    );
    expect(backend.notes()).toHaveLength(1);
  });
});
