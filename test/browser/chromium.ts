/**
 * Headless Chromium for the browser suite: Debian's `chromium` (`apt-get install chromium`; `.ci/run`
 * installs it when missing) driven by playwright-core, which downloads no browser. `CHROMIUM` names
 * another executable. Screenshots go to `test-artifacts/browser/` (git-ignored), kept as CI artefacts.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";

/** The Chromium executable. */
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Where the suite saves its screenshots. */
export const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/browser");

/**
 * Launches headless Chromium (no sandbox: CI runs as root), offline but for loopback.
 * @throws {Error} with the install command when the executable is missing
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--no-default-browser-check",
    ],
  });
}

/** The path of a screenshot named `name` (the folder is made on first use). */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
