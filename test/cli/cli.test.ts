import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/program.js";

/** Runs the CLI in-process and captures what it prints. */
async function run(...argv: string[]) {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += chunk;
  });
  (stderr as unknown as PassThrough).on("data", (chunk) => {
    err += chunk;
  });
  const code = await runCli(argv, { stdout, stderr });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), "incident-query-cli-"));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const incidents = [
  {
    IncidentId: 3,
    Number: "INC-3",
    Severity: "High",
    Title: "Phishing mail",
    CreatedUtcTime: "2024-03-01T00:00:00Z",
  },
  {
    IncidentId: 1,
    Number: "INC-1",
    Severity: "High",
    Title: "Phishing link",
    CreatedUtcTime: "2024-02-01T00:00:00Z",
  },
  {
    IncidentId: 2,
    Number: "INC-2",
    Severity: "Low",
    Title: "Port scan",
    CreatedUtcTime: "2024-01-01T00:00:00Z",
  },
  { IncidentId: 0, Number: "INC-0", Severity: "High", Title: "Phishing, undated" },
];
const arrayFile = file("incidents.json", JSON.stringify(incidents, null, 2));
const ndjsonFile = file("incidents.ndjson", `${incidents.map((i) => JSON.stringify(i)).join("\n")}\n\n`);

describe("incident-query check", () => {
  it("explains valid Search Conditions and exits 0", async () => {
    const { code, out } = await run(
      "check",
      '{"Severity": {"$in": ["High"]}, "Title": {"$regex": "^Phish"}}',
    );
    expect(code).toBe(EXIT.ok);
    expect(out).toContain("Severity");
    expect(out).toContain("Title");
  });

  it("prints every issue as path: message and exits 2", async () => {
    const { code, err } = await run("check", '{"Severity": "Hihg", "CreatedUtcTime": {"$gt": "2024-01-01"}}');
    expect(code).toBe(EXIT.invalid);
    const lines = err.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines.some((l) => l.startsWith("Severity: ") && l.includes("did you mean 'High'?"))).toBe(true);
    expect(lines.some((l) => l.startsWith("CreatedUtcTime.$gt: "))).toBe(true);
  });

  it("reads @file arguments", async () => {
    const path = file("conditions.json", '{"IngestionType": "Webhook|File"}');
    const { code, out } = await run("check", `@${path}`);
    expect(code).toBe(EXIT.ok);
    expect(out).toContain("IngestionType");
  });

  it("exits 2 on JSON that does not parse, 66 on a missing file, 64 on a usage error", async () => {
    expect((await run("check", "{nope")).code).toBe(EXIT.invalid);
    expect((await run("check", `@${join(dir, "missing.json")}`)).code).toBe(EXIT.noInput);
    expect((await run("check")).code).toBe(EXIT.usage);
    expect((await run("frobnicate")).code).toBe(EXIT.usage);
  });
});

describe("incident-query match", () => {
  for (const [format, path] of [
    ["JSON array", arrayFile],
    ["NDJSON", ndjsonFile],
  ] as const) {
    it(`prints the earliest matching incident from a ${format} (DECISIONS 1.9)`, async () => {
      const { code, out } = await run("match", "--incidents", path, '{"Title": {"$regex": "^Phish"}}');
      expect(code).toBe(EXIT.ok);
      expect(JSON.parse(out)).toEqual(incidents[1]);
    });
  }

  it("puts undated incidents after dated ones", async () => {
    const { code, out } = await run(
      "match",
      "--incidents",
      arrayFile,
      '{"Title": {"$regex": "undated|mail"}}',
    );
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out).IncidentId).toBe(3);
  });

  it("exits 1 when nothing matches and 2 on invalid conditions", async () => {
    expect((await run("match", "--incidents", arrayFile, '{"Severity": "Critical"}')).code).toBe(
      EXIT.noMatch,
    );
    expect((await run("match", "--incidents", arrayFile, '{"$where": "1"}')).code).toBe(EXIT.invalid);
  });

  it("exits 65 on a broken file, naming the NDJSON line", async () => {
    const broken = file("broken.ndjson", '{"IncidentId": 1}\n{"IncidentId": \n');
    const { code, err } = await run("match", "--incidents", broken, "{}");
    expect(code).toBe(EXIT.dataError);
    expect(err).toContain("line 2");
    const notObjects = file("numbers.json", "[1, 2]");
    expect((await run("match", "--incidents", notObjects, "{}")).code).toBe(EXIT.dataError);
    expect((await run("match", "--incidents", file("bad.json", "[{"), "{}")).code).toBe(EXIT.dataError);
  });
});

describe("incident-query timeline", () => {
  const entry = (id: number, time: string, summary: string) => ({
    TimelineID: id,
    Time: time,
    Summary: summary,
    Note: "",
    EventType: "Detection",
    Tactic: ["Initial Access"],
    Technique: ["T1566 Phishing"],
    RiskLevel: "High",
    Description: "",
    Author: "analyst",
  });
  const entries = [
    entry(1, "2024-01-02 10:00:00", "Mail opened"),
    entry(2, "2024-01-01 09:00:00", "Mail received"),
    entry(3, "2024-01-03 11:00:00", "Host isolated"),
  ];
  const entriesFile = file("entries.json", JSON.stringify(entries));

  it("filters and sorts descending", async () => {
    const { code, out } = await run(
      "timeline",
      "--entries",
      entriesFile,
      "--filter",
      "MAIL",
      "--sort-order",
      "DESC",
    );
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out).map((e: { TimelineID: number }) => e.TimelineID)).toEqual([1, 2]);
  });

  it("sorts ascending by default and refuses an unknown sort order with exit 2", async () => {
    const { out } = await run("timeline", "--entries", entriesFile);
    expect(JSON.parse(out).map((e: { TimelineID: number }) => e.TimelineID)).toEqual([2, 1, 3]);
    const bad = await run("timeline", "--entries", entriesFile, "--sort-order", "sideways");
    expect(bad.code).toBe(EXIT.invalid);
    expect(bad.err).toContain("ASC");
  });

  it("exits 65 naming the entry and field of an invalid entry", async () => {
    const invalid = file(
      "invalid-entries.json",
      JSON.stringify([entries[0], { ...entries[1], Time: "2024-02-30 10:00:00" }]),
    );
    const { code, err } = await run("timeline", "--entries", invalid);
    expect(code).toBe(EXIT.dataError);
    expect(err).toContain("entry 1");
    expect(err).toContain("Time");
  });
});
