// npm's `prepare` step: builds `dist/` when it is missing or incomplete.
//
// Why: `dist/` is not in git, so a git install (`npm install git+https://…/incident-query.git`) has to
// build it: npm installs the clone's devDependencies, runs `prepare`, then packs the clone. The same step
// runs after `npm install` / `npm ci` in a clone; there it is skipped when `dist/` already holds every file
// of the package's export map and bin (`npm run build` rebuilds on purpose; `npm pack` rebuilds through
// `prepack`).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const root = new URL("../", import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

/** Every file the package's export map and bin point to. */
function packageTargets() {
  const targets = new Set(Object.values(pkg.bin ?? {}));
  const walk = (value) => {
    if (typeof value === "string") targets.add(value);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  return [...targets].filter((target) => target.startsWith("./dist/"));
}

const missing = packageTargets().filter((target) => !existsSync(new URL(target, root)));
if (missing.length === 0) process.exit(0);
if (!existsSync(new URL("node_modules/tsup/package.json", root))) {
  console.warn("incident-query prepare: dist/ is incomplete and tsup is not installed; run `npm run build`.");
  process.exit(0);
}
console.log(
  `incident-query prepare: building dist/ (missing ${missing[0]}${missing.length > 1 ? ", …" : ""})`,
);
const build = spawnSync("npm", ["run", "build"], {
  cwd: root,
  stdio: "inherit",
  shell: process.platform === "win32",
});
process.exit(build.status ?? 1);
