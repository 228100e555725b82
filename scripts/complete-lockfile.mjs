// Completes package-lock.json with the platform packages of Biome's and Rollup's optional native binaries
// for platforms other than this machine's.
//
// Why: the npm registry reachable from this project's machines serves only the Linux builds of these
// packages, so npm 11 leaves the other platforms out of the lock file, and `npm ci` then refuses the lock
// ("Missing: @rollup/rollup-darwin-x64@ from lock file"; npm/cli#4828, #9342). An entry with the version
// and the platform fields (os, cpu, libc: the ones each package declares, read off its name) is enough:
// npm ci skips an optional package whose platform does not match without fetching it, and on a matching
// platform it fetches name@version from the registry as usual.
//
// Run after any change to the dependencies: `npm install && node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;

/** The platform fields of a native-binary package, from the suffix of its name. */
function platformOf(suffix) {
  const [os, cpu, abi] = suffix.split("-");
  const fields = { os: [os], cpu: [cpu] };
  if (os === "linux") fields.libc = [abi?.includes("musl") ? "musl" : "glibc"];
  return fields;
}

let added = 0;
for (const [parentPath, parent] of Object.entries(packages)) {
  const name = parentPath.replace(/^.*node_modules\//, "");
  const prefix =
    name === "@biomejs/biome" ? "@biomejs/cli-" : name === "rollup" ? "@rollup/rollup-" : undefined;
  if (prefix === undefined) continue;
  for (const [dependency, version] of Object.entries(parent.optionalDependencies ?? {})) {
    if (!dependency.startsWith(prefix)) continue;
    const key = `node_modules/${dependency}`;
    if (packages[key] !== undefined) continue;
    packages[key] = {
      version,
      dev: parent.dev === true ? true : undefined,
      optional: true,
      ...platformOf(dependency.slice(prefix.length)),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added.`);
