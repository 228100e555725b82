import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildDataset,
  buildIncident,
  buildTimelineEntry,
  FIXTURE_ARTIFACT_TYPES,
  FIXTURE_PLAYBOOK,
  FIXTURE_SITE,
  FIXTURE_USER,
  validateDataset,
} from "../src/commands/index.js";

// The README and the docs are what users copy: their examples must stay true, and they must not send a
// reader to a file outside the repository.
const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");
const readme = read("README.md");

function section(text: string, heading: string): string {
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`no section '${heading}'`);
  const next = text.indexOf("\n## ", start + heading.length);
  return text.slice(start, next < 0 ? undefined : next);
}

function codeLines(block: string): string[] {
  return block
    .replace(/import[\s\S]*?from "[^"]+";/g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//") && !line.startsWith("…"));
}

describe("README", () => {
  it("is short: at most about 150 lines, each quick start at most 30", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(155);
    for (const heading of [
      "## Quick start: server implementers",
      "## Quick start: playbook authors",
      "## Quick start: operators",
    ]) {
      expect(section(readme, heading).trim().split("\n").length, heading).toBeLessThanOrEqual(31);
    }
  });

  it("cites no internal reference (decision numbers, issues, the specification)", () => {
    expect(readme).not.toMatch(/\bD \d|\bissue \d|DECISIONS|the specification\b/i);
  });

  it("names the two set-up commands that .ci/run and a fresh clone use", () => {
    const setUp = section(readme, "## Two commands");
    expect(setUp).toContain("npm ci && npm start");
    expect(setUp).toContain("npm ci && npm test");
    const ci = read(".ci/run");
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^npm test$/m);
  });

  it.each([
    ["## Quick start: server implementers", "examples/server-implementer.test.ts"],
    ["## Quick start: playbook authors", "examples/playbook.test.ts"],
  ])("%s shows code that %s runs", (heading, file) => {
    const block = /```ts\n([\s\S]*?)```/.exec(section(readme, heading))?.[1];
    expect(block).toBeDefined();
    // Every statement the README shows stands in the example CI runs (the README may leave lines out).
    const example = read(file).replace(/\s+/g, " ");
    for (const line of codeLines(block!)) {
      if (line.startsWith("import ") || /^[\])},;]+$/.test(line)) continue;
      expect(example, `${file} lacks: ${line}`).toContain(line.replace(/\s+/g, " "));
    }
  });

  it("the Backend example searches within the caller's site (not the first match of all sites)", () => {
    const block = section(readme, "## Quick start: server implementers");
    expect(block).toContain("set.findFirst(condition, { ...budget, site })");
    expect(block).not.toMatch(/\?\.Site === site/);
    // The example CI runs holds two sites, and the first match of all sites is the other site's.
    const example = read("examples/server-implementer.test.ts");
    expect(example).toContain('expect(set.findFirst(conditions)?.Site).toBe("EMEA SOC")');
  });

  it("links only to files of the repository", () => {
    for (const file of ["README.md", "SECURITY.md", ...docs()]) {
      const text = read(file);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^https?:/.test(target!)) continue;
        const base = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
        expect(() => read(`${base}${target}`), `${file} links to ${target}`).not.toThrow();
      }
      expect(text, `${file} names a file outside the repository`).not.toMatch(
        /\.\.\/shared|spec\/DECISIONS|spec\/incident-command/,
      );
    }
  });
});

function docs(): string[] {
  return [
    "docs/architecture.md",
    "docs/semantics.md",
    "docs/server.md",
    "docs/cli.md",
    "docs/dataset.md",
    "docs/mongodb.md",
    "docs/postgresql.md",
    "docs/performance.md",
  ];
}

describe("docs/dataset.md: the fixture builders' defaults", () => {
  const text = section(read("docs/dataset.md"), "## Fixture builders");
  const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as unknown);

  it("shows buildIncident() and buildTimelineEntry() as they are", () => {
    expect(blocks).toEqual([buildIncident(), buildTimelineEntry()]);
  });

  it("names the defaults buildDataset fills in", () => {
    const dataset = buildDataset({ incidents: [{}, {}] });
    expect(text).toContain(FIXTURE_ARTIFACT_TYPES.map((t) => `${t.id} \`${t.label}\``).join(", "));
    expect(text).toContain(`\`${FIXTURE_SITE}\` (\`FIXTURE_SITE\`)`);
    expect(text).toContain(`\`${FIXTURE_USER}\` (\`FIXTURE_USER\`)`);
    expect(text).toContain(`\`${FIXTURE_PLAYBOOK}\` (\`FIXTURE_PLAYBOOK\`)`);
    expect(dataset.incidents?.map((i) => [i.IncidentId, i.Number, i.ExternalKey, i.CreatedUtcTime])).toEqual([
      [1, "20240101-1", "EXT-1", "2024-01-01T09:01:00Z"],
      [2, "20240101-2", "EXT-2", "2024-01-01T09:02:00Z"],
    ]);
    expect(text).toContain(
      "`Number` `20240101-n`, `ExternalKey` `EXT-n` and `CreatedUtcTime` n minutes after `2024-01-01T09:00:00Z`",
    );
    expect(dataset.users).toEqual([{ username: FIXTURE_USER, sites: [FIXTURE_SITE] }]);
  });
});

describe("docs/dataset.md", () => {
  it("the dataset example is a valid dataset", () => {
    const block = /```json\n([\s\S]*?)```/.exec(read("docs/dataset.md"))?.[1];
    expect(block).toBeDefined();
    const result = validateDataset(JSON.parse(block!));
    expect(result.ok ? [] : result.issues).toEqual([]);
  });
});

// The operators' commands, run as written on the built executable from the clone's root (`npx
// incident-query` is the bin; `X` the examples folder, as the README says for a clone).
const ROOT = resolve(import.meta.dirname, "..");
const MAIN = join(ROOT, "dist/cli/main.js");
const SAMPLE = JSON.parse(read("examples/sample-dataset.json")) as { users: { username: string }[] };

describe("README: the operators' commands", () => {
  const block = /```sh\n([\s\S]*?)```/.exec(section(readme, "## Quick start: operators"))?.[1] ?? "";
  const lines = block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");

  beforeAll(() => {
    if (!existsSync(MAIN)) execFileSync("npx", ["tsup", "--silent"], { cwd: ROOT, stdio: "ignore" });
  }, 300_000);

  it("sets X to the examples of an installed package", () => {
    expect(lines[0]).toBe("X=node_modules/incident-query/examples");
  });

  it.each(lines.filter((line) => line.startsWith("npx incident-query") && !line.includes(" serve")))(
    "%s: exits 0",
    (line) => {
      const command = line.replace(/^npx incident-query/, `node ${JSON.stringify(MAIN)}`);
      const result = spawnSync("bash", ["-c", `X=examples; ${command}`], { cwd: ROOT, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).not.toBe("");
      if (line.includes("Sevrity")) expect(result.stderr).toContain("did you mean 'Severity'?");
    },
  );

  it("every --api-key names a user of the sample dataset, and no serve line names a file the sample lacks", () => {
    const users = new Set(SAMPLE.users.map((user) => user.username));
    for (const [, user] of readme.matchAll(/--api-key (\S+?)=/g))
      expect(users, `--api-key ${user}`).toContain(user);
    for (const line of lines.filter((l) => l.includes(" serve"))) {
      for (const [, path] of line.matchAll(/--data (\S+)/g)) expect(path).toBe("$X/sample-dataset.json");
    }
    expect(lines).toContain("npm install @electric-sql/pglite");
  });

  it("says npm run bench is for a clone", () => {
    expect(readme).toMatch(/In a clone only, `npm run bench`/);
  });
});
