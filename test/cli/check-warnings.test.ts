/**
 * `check` and possible misspellings of field names (docs/semantics.md 1.1, "Near misses by spelling"): a
 * warning on standard error with the field it may mean, exit 0; `--strict` makes it an issue, exit 2.
 * `match` prints the same warning and searches as written.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { runWith } from "../support/run-cli.js";

describe("incident-query check: near-miss field names", () => {
  it.each([
    ['{"Sevrity": "High"}', "Sevrity", "Severity"],
    ['{"Titel": {"$regex": "^Phish"}}', "Titel", "Title"],
    ['{"Status": "Open", "Severty": "High"}', "Severty", "Severity"],
    ['{"$or": [{"Typ": "Phishing"}]}', "$or[0].Typ", "Type"],
  ])(
    "%s: a warning on stderr naming %s and %s, the explanation on stdout, exit 0",
    async (json, path, field) => {
      const { code, out, err } = await runWith({}, "check", json);
      expect(code).toBe(EXIT.ok);
      expect(err).toBe(
        `warning: ${path}: '${path.split(".").at(-1)}' is not a field of the catalogue (kept as an open field, matched as written); did you mean '${field}'?\n`,
      );
      expect(out).not.toBe("");
    },
  );

  it("--strict: the warning is an issue, exit 2 (as for invalid conditions), nothing on stdout", async () => {
    const { code, out, err } = await runWith({}, "check", "--strict", '{"Sevrity": "High"}');
    expect(code).toBe(EXIT.invalid);
    expect(out).toBe("");
    expect(err).toMatch(/^Sevrity: 'Sevrity' is not a field of the catalogue .*did you mean 'Severity'\?\n$/);
  });

  it("no warning for catalogue and custom fields, with or without --strict", async () => {
    for (const argv of [["check"], ["check", "--strict"]]) {
      const { code, err } = await runWith(
        {},
        ...argv,
        '{"Severity": "High", "Custom.Owner": "bob", "CustomField3": "x"}',
      );
      expect(code).toBe(EXIT.ok);
      expect(err).toBe("");
    }
  });

  it("errors are still errors, warnings of the same input not printed beside them", async () => {
    const { code, err } = await runWith({}, "check", '{"Sevrity": "High", "Severity": "Hihg"}');
    expect(code).toBe(EXIT.invalid);
    expect(err.trim().split("\n")).toEqual([expect.stringMatching(/^Severity: 'Hihg' is not a label/)]);
  });
});

describe("incident-query match: the same warnings", () => {
  it("a near-miss key: the warning on stderr, then the search as written (no incident holds Sevrity: exit 1)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "incident-query-warnings-"));
    const incidents = join(dir, "incidents.ndjson");
    writeFileSync(incidents, `${JSON.stringify({ IncidentId: 1, Severity: "High" })}\n`);
    const { code, err } = await runWith({}, "match", "--incidents", incidents, '{"Sevrity": "High"}');
    expect(code).toBe(1);
    expect(err).toContain("warning: Sevrity: 'Sevrity' is not a field of the catalogue");
    expect(err).toContain("did you mean 'Severity'?");
  });
});
