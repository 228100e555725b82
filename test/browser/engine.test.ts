/**
 * The browser build of the engine (`dist/browser/incident-query.js`, tsup.config.ts) in headless Chromium:
 * it loads as an ES module in a page with no Node built-in in sight, and `evaluate`, `compile`
 * and `IncidentSet` answer every case of the conformance table that a page can receive (plain data and
 * `Date`s) exactly as the same functions answer in Node. `npm run test:browser` builds the file first.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as node from "../../src/index.js";
import { allCases } from "../conformance/harness.js";
import type { MatchCase } from "../conformance/types.js";
import { launchChromium } from "./chromium.js";

const BUNDLE = resolve(import.meta.dirname, "../../dist/browser/incident-query.js");
const ORIGIN = "http://engine.test";

/** A case as the page receives it (structured clone: plain objects, arrays, Dates). */
interface PageCase {
  readonly name: string;
  readonly conditions: unknown;
  readonly incidents: readonly Record<string, unknown>[];
  readonly catalog: unknown;
}

/** What one engine answers for one case: the issue codes of a refusal, or a match per incident and path. */
type Answer =
  | { readonly refused: readonly string[] }
  | { readonly evaluate: boolean[]; readonly compile: boolean[]; readonly set: boolean[] };

/**
 * Runs every case through an engine's `evaluate`, `compile` and `IncidentSet`. Self-contained: the page
 * runs its source text (it names nothing outside its parameters).
 */
function answerAll(engine: typeof node, cases: readonly PageCase[]): Answer[] {
  return cases.map((c) => {
    const options = c.catalog === undefined ? {} : { catalog: c.catalog as never };
    const parsed = engine.safeParseSearchConditions(c.conditions, options);
    if (!parsed.success) return { refused: parsed.issues.map((issue) => issue.code) };
    const predicate = engine.compile(parsed.condition);
    const found = new Set(new engine.IncidentSet(c.incidents, options).findAll(parsed.condition));
    return {
      evaluate: c.incidents.map((incident) => engine.evaluate(parsed.condition, incident)),
      compile: c.incidents.map((incident) => predicate(incident)),
      set: c.incidents.map((incident) => found.has(incident)),
    };
  });
}

/** True when a value crosses into the page unchanged: plain objects, arrays, primitives and valid Dates. */
function plain(value: unknown, depth = 0): boolean {
  if (depth > 40) return false;
  if (value === null || ["string", "boolean"].includes(typeof value)) return true;
  if (typeof value === "number") return !Object.is(value, -0);
  if (value instanceof Date)
    return Object.getPrototypeOf(value) === Date.prototype && !Number.isNaN(value.getTime());
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) return proto === Array.prototype && value.every((v) => plain(v, depth + 1));
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.entries(Object.getOwnPropertyDescriptors(value)).every(
    ([key, d]) => key !== "__proto__" && "value" in d && d.enumerable === true && plain(d.value, depth + 1),
  );
}

const cases: PageCase[] = allCases
  .filter((c: MatchCase) => plain(c.conditions) && c.incidents.every((e) => plain(e.incident)))
  .map((c) => ({
    name: c.name,
    conditions: c.conditions,
    incidents: c.incidents.map((e) => e.incident),
    catalog: c.catalog === undefined ? undefined : JSON.parse(JSON.stringify(c.catalog)),
  }));

let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(BUNDLE))
    throw new Error(`${BUNDLE} is missing: npm run build (npm run test:browser does).`);
  browser = await launchChromium();
  page = await browser.newPage();
  const bundle = readFileSync(BUNDLE, "utf8");
  // A made-up origin answered from memory: no network, and a real origin for the module import.
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/incident-query.js") {
      return route.fulfill({ contentType: "text/javascript", body: bundle });
    }
    return route.fulfill({
      contentType: "text/html",
      body: '<!doctype html><title>engine</title><script type="module">import * as engine from "/incident-query.js"; window.engine = engine;</script>',
    });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => "engine" in window);
});

afterAll(async () => {
  await browser?.close();
});

describe("the engine's browser build in Chromium", () => {
  it("loads as one ES module with the engine's public names, and no Node built-in", async () => {
    const names = await page.evaluate(() =>
      Object.keys((window as unknown as { engine: object }).engine).sort(),
    );
    expect(names).toEqual(Object.keys(node).sort());
    const bundle = readFileSync(BUNDLE, "utf8");
    expect(bundle).not.toMatch(/\bfrom\s*["']node:|require\(["']node:|\bimport\(["']node:/);
    expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe("undefined");
  });

  it("answers the conformance table as Node does: evaluate, compile and IncidentSet", async () => {
    expect(cases.length, "the slice of the table the page receives").toBeGreaterThan(allCases.length * 0.8);
    const inNode = answerAll(node, cases);
    const inPage = (await page.evaluate(
      ({ source, cases }) => {
        // The test's own function, sent as text into the page.
        const run = new Function(`return (${source})`)() as (engine: unknown, cases: unknown) => unknown;
        return run((window as unknown as { engine: unknown }).engine, cases);
      },
      { source: answerAll.toString(), cases },
    )) as Answer[];
    const differ = cases
      .filter((_c, i) => JSON.stringify(inPage[i]) !== JSON.stringify(inNode[i]))
      .map((c) => c.name);
    expect(differ).toEqual([]);
    const matched = inNode.flatMap((a) => ("evaluate" in a ? a.evaluate : []));
    expect(matched.filter(Boolean).length).toBeGreaterThan(100);
    expect(matched.filter((m) => !m).length).toBeGreaterThan(100);
  });

  it("gives the same issues, canonical form and explanation for a refused and a valid condition", async () => {
    const inputs = [
      { Severity: "Hihg", CreatedUtcTime: { $gt: "2024-01-01" } },
      { IngestionType: "Webhook|File", Title: { $regex: "^Phish", $options: "i" } },
    ];
    const summarize = (engine: typeof node, input: unknown) => {
      const parsed = engine.safeParseSearchConditions(input);
      return parsed.success
        ? {
            canonical: engine.toSearchConditions(parsed.condition),
            explain: engine.explain(parsed.condition),
          }
        : { issues: parsed.issues };
    };
    for (const input of inputs) {
      const inPage = await page.evaluate(
        ({ source, input }) =>
          new Function(`return (${source})`)()((window as unknown as { engine: unknown }).engine, input),
        { source: summarize.toString(), input },
      );
      expect(inPage).toEqual(summarize(node, input));
    }
  });
});
