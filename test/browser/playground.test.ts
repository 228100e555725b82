/**
 * The playground (`GET /playground`, docs/server.md "The playground") in headless Chromium, driven as a
 * person would, from the keyboard only: type a condition, see its issue under the right path with the
 * suggestion, fix it, see the first matching incident of the site and the playbooks a dry run names, read
 * and filter its timeline; at 1280×800 and on a narrow screen. Screenshots are saved to
 * `test-artifacts/browser/` (git-ignored; CI keeps them as artefacts). The server is the reference server
 * on the bundled sample dataset, as `npm start` serves it.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryBackend, loadSampleDataset } from "../../src/commands/index.js";
import { createServer } from "../../src/server/index.js";
import { artifactPath, launchChromium } from "./chromium.js";

const KEY = "playground-test-key-0123456789";
const SITE = "Security Operations";

let browser: Browser;
let url: string;
const backend = createMemoryBackend(loadSampleDataset());
const server = createServer({ backend, apiKeys: [{ username: "alice", key: KEY }] });

beforeAll(async () => {
  await server.listen({ host: "127.0.0.1", port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  url = `http://127.0.0.1:${address.port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server.close();
});

/** Opens the playground with the credential in the fragment (as `npm start` prints it). */
async function open(viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(`${url}/playground#user=alice&site=${encodeURIComponent(SITE)}&key=${KEY}`);
  await page.waitForSelector("body[data-ready=true]");
  expect(errors, "errors in the page").toEqual([]);
  return page;
}

/** Moves the focus with Tab until the element `id` has it (at most 30 presses). */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 30; i++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached #${id}`);
}

/** Selects everything in the focused field and types `text` over it. */
async function typeOver(page: Page, text: string): Promise<void> {
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

describe("the playground", () => {
  it("is served with its own files only (Content-Security-Policy) and moves the key out of the URL", async () => {
    const answer = await fetch(`${url}/playground`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await open({ width: 1280, height: 800 });
    expect(page.url()).toBe(`${url}/playground`);
    expect(await page.inputValue("#apikey")).toBe(KEY);
    await page.close();
  });

  it("from the keyboard: an issue under its path, fixed, then the first incident and its timeline (1280×800)", async () => {
    const page = await open({ width: 1280, height: 800 });
    await tabTo(page, "conditions");
    await typeOver(page, '{"Type": "Phishing", "Severity": "Hihg"}');
    const issue = page.locator("#issues li").first();
    await issue.waitFor();
    expect(await page.locator("#issues li").count()).toBe(1);
    expect(await issue.getAttribute("data-path")).toBe("Severity");
    expect(await issue.getAttribute("data-code")).toBe("unknown_label");
    expect(await issue.locator(".suggestion strong").textContent()).toBe("High");
    expect(await page.getAttribute("#conditions", "aria-invalid")).toBe("true");
    await page.screenshot({ path: artifactPath("playground-issue-1280x800.png") });

    // The fix, typed: the issue goes, the canonical form and the explanation come.
    await typeOver(page, '{"Type": "Phishing", "Severity": {"$in": ["High", "Critical"]}}');
    await page.waitForSelector("#issues-summary.ok");
    expect(await page.textContent("#issues-summary")).toBe("No issues.");
    expect(JSON.parse((await page.textContent("#canonical")) ?? "")).toEqual({
      Type: "Phishing",
      Severity: { $in: ["High", "Critical"] },
    });
    expect(await page.textContent("#explain")).toMatch(/Severity/);

    // Ctrl+Enter: the dry run names the first incident of the site (docs/semantics.md 1.9) and its playbooks.
    await page.keyboard.press("Control+Enter");
    await page.waitForSelector("#result-incident");
    expect(await page.textContent("#result-incident strong")).toBe("20240102-1");
    expect(await page.locator("#result-playbooks li").allTextContents()).toEqual([
      "Phishing Triage",
      "Indicator Enrichment",
    ]);
    expect(backend.runs(), "a dry run records nothing").toEqual([]);

    // The timeline of that incident, then filtered and sorted from the keyboard.
    await page.waitForSelector("#timeline-table");
    const all = await page.locator("#timeline-table tbody tr").count();
    expect(all).toBeGreaterThan(1);
    const times = async () => page.locator("#timeline-table tbody tr td:first-child").allTextContents();
    const ascending = await times();
    expect([...ascending].sort()).toEqual(ascending);
    await tabTo(page, "sortorder");
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction((first) => {
      const cell = document.querySelector("#timeline-table tbody tr td:first-child");
      return cell !== null && cell.textContent !== first;
    }, ascending[0]);
    expect(await times()).toEqual([...ascending].reverse());
    await page.screenshot({ path: artifactPath("playground-incident-1280x800.png"), fullPage: true });
    await tabTo(page, "filter");
    await page.keyboard.type("threat intel");
    await page.waitForFunction(
      (count) => document.querySelectorAll("#timeline-table tbody tr").length < count,
      all,
    );
    const summaries = await page.locator("#timeline-table tbody tr td:nth-child(2)").allTextContents();
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) expect(summary.toLowerCase()).toContain("threat intel");
    await page.close();
  });

  it("applies a suggestion from the keyboard, and names the command's refusal of {}", async () => {
    const page = await open({ width: 1280, height: 800 });
    await tabTo(page, "conditions");
    await typeOver(page, '{"severity": "High"}');
    await page.waitForSelector("#issues li[data-code=unknown_field]");
    expect(await page.getAttribute("#issues li", "data-path")).toBe("severity");
    await tabTo(page, "apply-0");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#issues-summary.ok");
    expect(JSON.parse(await page.inputValue("#conditions"))).toEqual({ Severity: "High" });
    await tabTo(page, "conditions");
    await typeOver(page, "{}");
    await page.waitForSelector("#issues-summary.warning");
    await tabTo(page, "run");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#result-error");
    expect(await page.textContent("#result-error")).toMatch(/must not be empty/);
    await page.close();
  });

  it("shows a possible misspelling of a field as a warning under the conditions, with its fix", async () => {
    const page = await open({ width: 1280, height: 800 });
    await tabTo(page, "conditions");
    await typeOver(page, '{"Sevrity": "High"}');
    await page.waitForSelector("#warnings li[data-code=possible_misspelling]");
    expect(await page.textContent("#issues-summary")).toMatch(/^Valid, with 1 warning/);
    expect(await page.getAttribute("#conditions", "aria-invalid")).toBe("false");
    expect(await page.getAttribute("#warnings li", "data-path")).toBe("Sevrity");
    expect(await page.locator("#warnings li .suggestion strong").textContent()).toBe("Severity");
    await tabTo(page, "warning-0");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#issues-summary.ok");
    expect(JSON.parse(await page.inputValue("#conditions"))).toEqual({ Severity: "High" });
    await page.close();
  });

  it("is readable on a narrow screen (390×844): one column, nothing wider than the screen", async () => {
    const page = await open({ width: 390, height: 844 });
    await page.fill(
      "#conditions",
      '{"Title": {"$regex": "^Phish"}, "CreatedUtcTime": {"$gt": "2024-01-01"}}',
    );
    await page.waitForSelector("#issues li");
    expect(await page.getAttribute("#issues li", "data-path")).toBe("CreatedUtcTime.$gt");
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
      columns: new Set(
        Array.from(document.querySelectorAll("main > section")).map((s) =>
          Math.round(s.getBoundingClientRect().left),
        ),
      ).size,
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    expect(widths.columns).toBe(1);
    await page.screenshot({ path: artifactPath("playground-narrow-390x844.png"), fullPage: true });
    await page.close();
  });
});
