import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/program.js";
import { CLI_INCIDENTS } from "../support/cli-incidents.js";
import { runWith } from "../support/run-cli.js";
import { SPEC_TIMELINE_ENTRY_ORDER } from "../support/spec-order.js";

/** Runs the CLI in-process and captures what it prints. */
async function run(...argv: string[]) {
  return runWith({}, ...argv);
}

const dir = mkdtempSync(join(tmpdir(), "incident-query-cli-"));
function file(name: string, content: string, encoding: BufferEncoding = "utf8"): string {
  const path = join(dir, name);
  writeFileSync(path, content, encoding);
  return path;
}

const incidents = [
  ...CLI_INCIDENTS,
  { IncidentId: 0, Number: "INC-0", Severity: "High", Title: "Phishing, undated" },
];
const arrayFile = file("incidents.json", JSON.stringify(incidents, null, 2));
const ndjsonText = `${incidents.map((i) => JSON.stringify(i)).join("\n")}\n\n`;
const ndjsonFile = file("incidents.ndjson", ndjsonText);

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

  it("reads at most 16 MiB of an @file argument: a device or a huge file fails at once with exit 2", async () => {
    // /dev/zero never ends: reading it whole would hang (the test's timeout guards that), not be slow.
    const zero = await run("check", "@/dev/zero");
    expect([zero.code, zero.out]).toEqual([EXIT.invalid, ""]);
    expect(zero.err).toBe(
      "incident-query: The Search Conditions in '/dev/zero' are longer than 16777216 bytes, the most this tool reads from a file argument.\n",
    );
    const exact = file("exact.json", `{}${" ".repeat(16 * 2 ** 20 - 2)}`);
    expect((await run("check", `@${exact}`)).code).toBe(0);
    const over = file("over.json", `{}${" ".repeat(16 * 2 ** 20 - 1)}`);
    expect((await run("check", `@${over}`)).code).toBe(EXIT.invalid);
    expect((await run("check", `@${dir}`)).code).toBe(EXIT.noInput);
  });
});

describe("invalid UTF-8 in an @file argument or a --data document (docs/cli.md, Encoding)", () => {
  it("is a data error (65) naming the line and byte, never a U+FFFD that would match", async () => {
    const path = file("fffd.json", '{"Severity": "High",\n "Title": "\xff"}', "latin1");
    const { code, out, err } = await run("check", `@${path}`);
    expect([code, out]).toEqual([EXIT.dataError, ""]);
    expect(err).toBe(
      `incident-query: The Search Conditions in '${path}' are not valid UTF-8 (line 2, byte 33 of the file).\n`,
    );
  });

  it("names the line of a --data document", async () => {
    const path = file("fffd-dataset.json", '{"sites": [],\n"incidents": [],\n"users": ["\xff"]}', "latin1");
    const { code, err } = await run("timeline", "--data", path, "--incident", "1");
    expect(code).toBe(EXIT.dataError);
    expect(err).toBe(`incident-query: '${path}' line 3 is not valid UTF-8 (byte 43 of the input).\n`);
  });
});

describe("a key repeated in one object (docs/semantics.md 3.1, Duplicate keys)", () => {
  it("is invalid Search Conditions (exit 2) naming the key and its path, inline or @file", async () => {
    const text = '{"Severity": "High", "$or": [{"Title": "a", "Title": "b"}]}';
    for (const argument of [text, `@${file("duplicate.json", text)}`]) {
      const { code, out, err } = await run("check", argument);
      expect([code, out]).toEqual([EXIT.invalid, ""]);
      expect(err).toBe(
        "incident-query: The Search Conditions repeat the key 'Title' in one object (at $or[0].Title): each key may appear once.\n",
      );
    }
    const match = await run("match", "--incidents", arrayFile, '{"Severity": "Low", "Severity": "High"}');
    expect([match.code, match.out]).toEqual([EXIT.invalid, ""]);
  });

  it("is an invalid record (65) naming its line in --incidents and --entries, NDJSON or array", async () => {
    const ndjson = file(
      "duplicate.ndjson",
      '{"IncidentId": 1}\n{"IncidentId": 2, "Severity": "Low", "Severity": "High"}\n',
    );
    const match = await run("match", "--incidents", ndjson, '{"Severity": "High"}');
    expect([match.code, match.out]).toEqual([EXIT.dataError, ""]);
    expect(match.err).toContain(
      `'${ndjson}' line 2: the record repeats the key 'Severity' in one object (at Severity): each key may appear once.`,
    );
    const array = file("duplicate-entries.json", '[\n{"TimelineID": 1, "TimelineID": 2}\n]');
    const timeline = await run("timeline", "--entries", array);
    expect([timeline.code, timeline.out]).toEqual([EXIT.dataError, ""]);
    expect(timeline.err).toContain(`'${array}' line 2 (record 1): the record repeats the key 'TimelineID'`);
  });

  it("is a data error (65) in a dataset given to timeline --data", async () => {
    const path = file(
      "duplicate-dataset.json",
      '{"sites": [{"name": "S"}], "incidents": [{"IncidentId": 1, "Number": "1", "Site": "S", "Site": "T"}]}',
    );
    const { code, err } = await run("timeline", "--data", path, "--incident", "1");
    expect(code).toBe(EXIT.dataError);
    expect(err).toContain("repeats the key 'Site' in one object (at incidents[0].Site)");
  });
});

describe("incident-query match", () => {
  for (const [format, path] of [
    ["JSON array", arrayFile],
    ["NDJSON", ndjsonFile],
  ] as const) {
    it(`prints the earliest matching incident from a ${format} (docs/semantics.md 1.9)`, async () => {
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

  it("prints an incident nested too deeply for JSON.stringify (compact), never 70", async () => {
    // JSON.parse reads 100,000 nested arrays; JSON.stringify's recursion overflows the stack on them.
    const depth = 100_000;
    const text = `{"IncidentId":1,"X":${"[".repeat(depth)}${"]".repeat(depth)},"Title":"a"}`;
    const deep = file("deep.ndjson", `${text}\n`);
    for (const args of [[], ["--all"], ["--limit", "1"]]) {
      const { code, out, err } = await run("match", "--incidents", deep, ...args, '{"Title": "a"}');
      expect({ code, err }).toEqual({ code: EXIT.ok, err: "" });
      expect(out).toBe(`${text}\n`);
    }
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
    // 1-based: the second entry of a one-line JSON array is record 2 on line 1.
    expect(err).toContain("line 1 (record 2): Time: Expected");
  });
});

describe("incident-query as an operator's tool", () => {
  it("reads - from standard input", async () => {
    const { code, out } = await runWith(
      { stdin: Readable.from([Buffer.from(ndjsonText)]) },
      "match",
      "--incidents",
      "-",
      "--count",
      '{"Severity": "High"}',
    );
    expect([code, out]).toEqual([EXIT.ok, "3\n"]);
  });

  it("reads a gzip file by its magic bytes, whatever its name", async () => {
    const path = file("incidents.data", gzipSync(JSON.stringify(incidents)).toString("latin1"), "latin1");
    const { code, out } = await run("match", "--incidents", path, '{"Title": {"$regex": "^Phish"}}');
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out)).toEqual(incidents[1]);
  });

  it("streams --all in input order and stops at --limit", async () => {
    const all = await run("match", "--incidents", arrayFile, "--all", '{"Severity": "High"}');
    expect(
      all.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).IncidentId),
    ).toEqual([3, 1, 0]);
    const limited = await run("match", "--incidents", arrayFile, "--limit", "2", '{"Severity": "High"}');
    expect(
      limited.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).IncidentId),
    ).toEqual([3, 1]);
    const none = await run("match", "--incidents", arrayFile, "--count", '{"Severity": "Critical"}');
    expect([none.code, none.out]).toEqual([EXIT.noMatch, "0\n"]);
    expect((await run("match", "--incidents", arrayFile, "--count", "--all", "{}")).code).toBe(EXIT.usage);
  });

  it("refuses --limit 0 as a usage error, which would otherwise end before the input is opened", async () => {
    // A limit of 0 would print nothing and never open the input, so a missing file would exit 0.
    for (const input of [arrayFile, join(dir, "no-such-file.json")]) {
      const { code, out, err } = await run(
        "match",
        "--incidents",
        input,
        "--limit",
        "0",
        '{"Severity": "High"}',
      );
      expect([code, out]).toEqual([EXIT.usage, ""]);
      expect(err).toContain("--limit");
    }
    expect(
      (await run("match", "--incidents", join(dir, "no-such-file.json"), "--limit", "1", "{}")).code,
    ).toBe(EXIT.noInput);
  });

  it("ends with 0 when standard output is closed by its reader", async () => {
    const stdout = new PassThrough();
    let writes = 0;
    let received = "";
    stdout.on("data", (chunk) => {
      received += chunk;
      writes++;
      const error = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      if (writes === 1) setImmediate(() => stdout.emit("error", error));
    });
    const stderr = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    const many = file(
      "many.ndjson",
      `${Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ IncidentId: i, Title: "x".repeat(100) })).join("\n")}\n`,
    );
    const code = await runCli(["match", "--incidents", many, "--all", "{}"], { stdout, stderr });
    expect(code).toBe(EXIT.ok);
    // Reading stopped soon after the reader went away.
    expect(received.split("\n").length).toBeLessThan(30_000);
  });

  it("answers an unexpected error with 70 in one line, and its stack with --debug", async () => {
    const broken = {
      write: () => {
        throw new TypeError("boom");
      },
      on: () => broken,
    } as unknown as NodeJS.WritableStream;
    const lines: string[] = [];
    const stderr = {
      write: (text: string) => lines.push(text),
      isTTY: false,
    } as unknown as NodeJS.WriteStream;
    expect(await runCli(["check", "{}"], { stdout: broken, stderr })).toBe(EXIT.software);
    expect(lines.join("")).toMatch(
      /^incident-query: unexpected error: TypeError: boom \(a bug; --debug prints its stack\)\n$/,
    );
    lines.length = 0;
    expect(await runCli(["--debug", "check", "{}"], { stdout: broken, stderr })).toBe(EXIT.software);
    expect(lines.join("")).toMatch(/TypeError: boom\n\s+at /);
  });

  it("draws progress with records, rate and ETA on a terminal only", async () => {
    const big = file(
      "progress.ndjson",
      `${Array.from({ length: 2000 }, (_, i) => JSON.stringify({ IncidentId: i })).join("\n")}\n`,
    );
    const tty = await runWith({ tty: true }, "match", "--incidents", big, "--count", "{}");
    expect(tty.out).toBe("2000\n");
    expect(tty.err).toMatch(/records/);
    expect(tty.err).toMatch(/records\/s/);
    expect(tty.err).toMatch(/ETA/);
    const pipe = await runWith({ tty: false }, "match", "--incidents", big, "--count", "{}");
    expect(pipe.err).toBe("");
  });

  it("reports 1-based lines and records in a JSON array, and skips invalid records with --skip-invalid", async () => {
    const path = file("mixed.json", '[\n  {"IncidentId": 1},\n  7,\n  {"IncidentId": 2}\n]\n');
    const refused = await run("match", "--incidents", path, "{}");
    expect(refused.code).toBe(EXIT.dataError);
    expect(refused.err).toContain(
      `'${path}' line 3 (record 2): Expected an incident (a JSON object), found the number 7.`,
    );
    const skipped = await run("match", "--incidents", path, "--skip-invalid", "--count", "{}");
    expect([skipped.code, skipped.out]).toEqual([EXIT.ok, "2\n"]);
    expect(skipped.err).toContain("skipped 1 invalid record of");
  });

  it("reads one incident's entries from a dataset, and says what it expected of a file of the wrong shape", async () => {
    const dataset = join(import.meta.dirname, "../../examples/sample-dataset.json");
    const { code, out } = await run(
      "timeline",
      "--data",
      dataset,
      "--incident",
      "20240102-1",
      "--filter",
      "phishing",
    );
    expect(code).toBe(EXIT.ok);
    const entries = JSON.parse(out) as Record<string, unknown>[];
    expect(entries.length).toBeGreaterThan(0);
    expect(Object.keys(entries[0]!)).toEqual([...SPEC_TIMELINE_ENTRY_ORDER]);
    const wrong = await run("timeline", "--data", arrayFile, "--incident", "1");
    expect(wrong.code).toBe(EXIT.dataError);
    expect(wrong.err).toContain(
      "holds a JSON array of 4 values; expected a dataset: a JSON object with the keys sites",
    );
    expect((await run("timeline", "--data", dataset)).code).toBe(EXIT.usage);
  });

  it("writes every message on stderr as one line prefixed incident-query: (docs/cli.md)", async () => {
    const dataset = join(import.meta.dirname, "../../examples/sample-dataset.json");
    const cases: [string[], number, RegExp][] = [
      [["match", "--incidents", arrayFile, '{"Severity": "Critical"}'], EXIT.noMatch, /No incident matches/],
      [["timeline", "--data", dataset, "--incident", "none"], EXIT.noMatch, /No incident 'none' in '/],
      [["match", "{}"], EXIT.usage, /required option '--incidents <file>' not specified \(add --help/],
      [["mach"], EXIT.usage, /unknown command 'mach' \(Did you mean match\?\) \(add --help/],
      [["serve", "--port", "x"], EXIT.usage, /argument 'x' is invalid/],
    ];
    for (const [argv, exitCode, message] of cases) {
      const { code, err } = await run(...argv);
      expect({ argv, code }).toEqual({ argv, code: exitCode });
      expect(err).toMatch(/^incident-query: [^\n]*\n$/);
      expect(err).toMatch(message);
    }
  });
});
