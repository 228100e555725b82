import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateDataset } from "../src/commands/index.js";
import { safeParseSearchConditions } from "../src/index.js";

// The README's examples are part of the documentation users copy: they must stay true.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

function section(heading: string): string {
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no section '${heading}'`);
  const next = readme.indexOf("\n## ", start + heading.length);
  return readme.slice(start, next < 0 ? undefined : next);
}

describe("README", () => {
  it("the dataset example is a valid dataset", () => {
    const block = /```json\n([\s\S]*?)```/.exec(section("## The dataset of the in-memory backend"))?.[1];
    expect(block).toBeDefined();
    const result = validateDataset(JSON.parse(block!));
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it("the quick start's invalid Search Conditions give the issues it shows", () => {
    const result = safeParseSearchConditions({ Severity: "Hihg", CreatedUtcTime: { $gt: "2024-01-01" } });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues.map(({ code, path }) => ({ code, path }))).toEqual([
      { code: "unknown_label", path: ["Severity"] },
      { code: "date_operand_required", path: ["CreatedUtcTime", "$gt"] },
    ]);
    expect(result.issues[0].message).toContain("did you mean 'High'?");
    const quickStart = section("## Quick start");
    expect(quickStart).toContain('code: "unknown_label", path: ["Severity"]');
    expect(quickStart).toContain('code: "date_operand_required", path: ["CreatedUtcTime", "$gt"]');
  });

  it("names the two set-up commands that .ci/run and a fresh clone use", () => {
    expect(section("## Set-up: two commands")).toContain("npm ci && npm start");
    expect(section("## Set-up: two commands")).toContain("npm ci && npm test");
    const ci = readFileSync(new URL("../.ci/run", import.meta.url), "utf8");
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^npm test$/m);
  });
});
