/**
 * Paired before/after timing of the rows the cache rule touches (docs/performance.md, "Caches"): the same
 * queries through two copies of the engine, `A` and `B` (e.g. `main`'s src exported with `git archive`, and
 * this tree), alternated round by round; prints the median of B's time over A's per row.
 * Usage: npx tsx bench/cache-pairs.ts <path to A's src/index.ts> <path to B's src/index.ts> [size]
 */
import { generateIncidents } from "./generate-incidents.js";
import { benchQueries, SPEC_SAMPLE } from "./queries.js";

type Engine = typeof import("../src/index.js");

const [pathA, pathB, sizeArg] = process.argv.slice(2);
if (pathA === undefined || pathB === undefined)
  throw new Error("usage: cache-pairs.ts <A index.ts> <B index.ts>");
const size = Number(sizeArg ?? 100_000);
const A = (await import(pathA)) as Engine;
const B = (await import(pathB)) as Engine;
const incidents = generateIncidents(size, 42);
const titled = incidents.map((x, i) => ({ ...x, Title: `${x.Title} ${i}` }));

interface Row {
  name: string;
  run: (engine: Engine, state: unknown) => number;
  setup: (engine: Engine) => unknown;
}
const rows: Row[] = [
  {
    name: "parse + compile (cached), spec sample",
    setup: () => undefined,
    run: (e) => {
      let n = 0;
      for (let i = 0; i < 2000; i++)
        n += e.compile(e.parseSearchConditions(SPEC_SAMPLE)).condition.kind.length;
      return n;
    },
  },
  ...benchQueries(incidents).map(
    (q): Row => ({
      name: `IncidentSet.count: ${q.name}`,
      setup: (e) => new e.IncidentSet(incidents),
      run: (_e, set) => {
        let n = 0;
        for (let i = 0; i < 20; i++) n += (set as InstanceType<Engine["IncidentSet"]>).count(q.conditions);
        return n;
      },
    }),
  ),
  {
    name: "IncidentSet.count: per-row text leaf, memo per value (distinct titles, 10 patterns)",
    setup: (e) => new e.IncidentSet(titled, { maxDictionary: 1000 }),
    run: (_e, set) => {
      let n = 0;
      for (let d = 0; d < 10; d++)
        n += (set as InstanceType<Engine["IncidentSet"]>).count({
          Severity: "High",
          Title: { $regex: `${d % 8}$` },
        });
      return n;
    },
  },
];

const ROUNDS = 15;
for (const row of rows) {
  const sa = row.setup(A);
  const sb = row.setup(B);
  const ca = row.run(A, sa);
  const cb = row.run(B, sb);
  if (ca !== cb) throw new Error(`${row.name}: A ${ca} ≠ B ${cb}`);
  for (let w = 0; w < 3; w++) {
    row.run(A, sa);
    row.run(B, sb);
  }
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const first = r % 2 === 0;
    const time = (e: Engine, s: unknown) => {
      const t = performance.now();
      row.run(e, s);
      return performance.now() - t;
    };
    const ta = first ? time(A, sa) : 0;
    const tb = time(B, sb);
    const ta2 = first ? ta : time(A, sa);
    ratios.push(tb / ta2);
  }
  ratios.sort((x, y) => x - y);
  console.log(
    `${(ratios[ROUNDS >> 1] ?? 0).toFixed(3)}  (q1 ${ratios[3]!.toFixed(3)}, q3 ${ratios[11]!.toFixed(3)})  ${row.name}`,
  );
}
