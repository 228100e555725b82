// After `npm run build`: every entry of the package's export map loads as ESM and as CJS, through the
// package's own name (so a broken map fails CI), exposes the same names both ways, and has its types file.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const require = createRequire(import.meta.url);
const failures = [];
for (const [subpath, target] of Object.entries(pkg.exports)) {
  if (typeof target === "string") continue;
  const specifier = subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
  for (const condition of ["import", "require"]) {
    const types = target[condition]?.types;
    if (!types || !existsSync(new URL(`../${types}`, import.meta.url)))
      failures.push(`${specifier} (${condition}): missing types ${types}`);
  }
  const esm = Object.keys(await import(specifier)).sort();
  const cjs = Object.keys(require(specifier))
    .filter((k) => k !== "__esModule")
    .sort();
  if (esm.length === 0) failures.push(`${specifier}: no exports`);
  if (JSON.stringify(esm) !== JSON.stringify(cjs))
    failures.push(`${specifier}: ESM exports ${esm} differ from CJS exports ${cjs}`);
  console.log(`${specifier}: ${esm.length} exports, ESM and CJS agree`);
}
if (failures.length > 0) {
  console.error(failures.join("\n"));
  process.exit(1);
}
