/**
 * Paired before/after timing of the rows that the seeded number tables touch (src/incidents/number-keys.ts:
 * the hash index of `IncidentId`, and the value tables of columns holding numbers): the same work through
 * two copies of the engine, `A` and `B` (e.g. `main`'s src exported with `git archive`, and this tree),
 * alternated round by round (which goes first alternates too); prints per row the median of B's time over
 * A's, with its quartiles, and the medians of each.
 * Usage: npx tsx bench/number-keys-pairs.ts <path to A's src/index.ts> <path to B's src/index.ts> [size] [rounds]
 *   [row: only the rows whose name holds this text]
 */
import { generateIncidents } from "./generate-incidents.js";

type Engine = typeof import("../src/index.js");
type Set = InstanceType<Engine["IncidentSet"]>;
/** The `IncidentId` of a found incident, or 0. */
const idOf = (found: object | undefined): number =>
  (found as { IncidentId?: number } | undefined)?.IncidentId ?? 0;

const [pathA, pathB, sizeArg, roundsArg, only] = process.argv.slice(2);
if (pathA === undefined || pathB === undefined)
  throw new Error("usage: number-keys-pairs.ts <A index.ts> <B index.ts> [size] [rounds]");
const size = Number(sizeArg ?? 1_000_000);
const ROUNDS = Number(roundsArg ?? 9);
const A = (await import(pathA)) as Engine;
const B = (await import(pathB)) as Engine;
const incidents = generateIncidents(size);
// A numeric label: a dictionary column of numbers (200 distinct values).
const numbered = incidents.map((x, i) => ({ ...x, Ref: (i * 7919) % 200 }));
const probeIds = Array.from({ length: 20_000 }, (_, k) => 1 + ((k * 2_654_435_761) % size));

interface Row {
  readonly name: string;
  /** Per engine, the state its runs share (built once, outside the timing), or undefined. */
  readonly setup?: (engine: Engine) => unknown;
  /** One timed run; returns a figure both engines must agree on. */
  readonly run: (engine: Engine, state: unknown) => number;
}

const rows: Row[] = [
  {
    name: `new IncidentSet(${size.toLocaleString("en-US")} generated incidents)`,
    run: (e) => new e.IncidentSet(incidents).size,
  },
  {
    name: `new IncidentSet(${size.toLocaleString("en-US")}, a numeric label Ref)`,
    run: (e) => new e.IncidentSet(numbered, { dictionaryFields: ["Ref", "Severity", "Status"] }).size,
  },
  {
    name: "findFirst({IncidentId}) ×20,000 (the hash index)",
    setup: (e) => new e.IncidentSet(incidents),
    run: (_e, set) => {
      let n = 0;
      for (const id of probeIds) n += idOf((set as Set).findFirst({ IncidentId: id }));
      return n;
    },
  },
  {
    name: "findFirst({Number}) ×20,000 (strings: untouched, a control)",
    setup: (e) => new e.IncidentSet(incidents),
    run: (_e, set) => {
      let n = 0;
      for (const id of probeIds) n += idOf((set as Set).findFirst({ Number: incidents[id - 1]!.Number }));
      return n;
    },
  },
];

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const quartile = (xs: number[], q: number): number =>
  [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) * q)]!;

for (const row of rows) {
  if (only !== undefined && !row.name.includes(only)) continue;
  const sa = row.setup?.(A);
  const sb = row.setup?.(B);
  const ca = row.run(A, sa);
  const cb = row.run(B, sb);
  if (ca !== cb) throw new Error(`${row.name}: A ${ca} ≠ B ${cb}`);
  const time = (e: Engine, s: unknown): number => {
    const t = performance.now();
    row.run(e, s);
    return performance.now() - t;
  };
  const ta: number[] = [];
  const tb: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let a: number;
    let b: number;
    if (r % 2 === 0) {
      a = time(A, sa);
      b = time(B, sb);
    } else {
      b = time(B, sb);
      a = time(A, sa);
    }
    ta.push(a);
    tb.push(b);
    ratios.push(b / a);
  }
  console.log(
    `${median(ratios).toFixed(3)}  (q1 ${quartile(ratios, 0.25).toFixed(3)}, q3 ${quartile(ratios, 0.75).toFixed(3)})  ` +
      `A ${median(ta).toFixed(1)} ms, B ${median(tb).toFixed(1)} ms  ${row.name}`,
  );
}
