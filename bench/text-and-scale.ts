/**
 * Bench section of docs/performance.md, "The text index": `$regex` on text fields through the text index, and
 * compact sets built from NDJSON. Run alone: `npx tsx --expose-gc bench/text-and-scale.ts` (or through `npm
 * run bench`).
 *
 * Text: on `BENCH_TEXT_SIZE` generated incidents (default 1,000,000), each pattern is answered by the
 * hand-written row scan (a native `RegExp` or `includes` over the objects), the compiled row scan
 * (`compile` over the objects), and `IncidentSet.count`, `findAll` and `findFirst` (the hand-written and
 * compiled `findFirst` scan every row for the earliest match). Engines are interleaved round by round and
 * each time is the median of the rounds, since the machine is shared. "cold" is the first `count` of a
 * pattern (its accept table not yet cached); the trigram index is built with the set (sets of 50,000
 * incidents or more build it in the constructor) and its size reported apart. Every engine's count must
 * agree, or the run fails.
 *
 * Scale: `BENCH_SCALE_SIZE` incidents (default 1,000,000) are written as NDJSON to a temporary file, then
 * `IncidentSet.fromNdjson` reads it from the file (a `FileHandle`): build rate, heap (after GC) and the bytes kept
 * outside the heap, `findFirst` on a selective key, `count` of the specification's sample, and the same
 * counts and first incidents as a set of objects for every query of this section (at most 1,000,000
 * incidents for the latter).
 *
 * Ten million incidents (docs/performance.md; about 4.4 GB of NDJSON, 6 GB of memory in all):
 * `node --max-old-space-size=4096 --expose-gc --import tsx bench/text-and-scale.ts --scale=10000000 --text=0
 * --keep=/tmp/incidents-10m.ndjson`; `--result=PATH` also writes the scale part's figures to PATH as JSON
 * (`BENCH_10M=1 npm run bench` runs it so, with distinct titles, for its 10M targets: bench/one-shot.ts).
 */

import { once } from "node:events";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import v8 from "node:v8";
import vm from "node:vm";
import { compile } from "../src/conditions/compile.js";
import { parseSearchConditions } from "../src/conditions/parse.js";
import type { SearchConditionsInput } from "../src/conditions/print.js";
import { IncidentSet } from "../src/incidents/incident-set.js";
import {
  type GeneratedIncident,
  generateIncidents,
  TITLE_ADJECTIVES,
  TITLE_SUBJECTS,
} from "./generate-incidents.js";
import { loadBuiltEntries } from "./peers.js";
import { SPEC_SAMPLE } from "./queries.js";

type Gc = () => void;
const gc: Gc = (() => {
  const exposed = (globalThis as { gc?: Gc }).gc;
  if (typeof exposed === "function") return exposed;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as Gc;
})();

/** One text query: the Search Conditions and the hand-written predicate a programmer would write. */
interface TextQuery {
  readonly name: string;
  readonly conditions: SearchConditionsInput;
  readonly hand: (r: GeneratedIncident) => boolean;
  /**
   * The `k`-th fresh pattern of the same shape (another literal, prefix, number or pair of the generated
   * titles), for first-use timings: no two `k` give the same pattern, and none equals `conditions`' pattern,
   * so no cache of the set, the parser or the compiler has seen it.
   */
  readonly fresh: (k: number) => {
    conditions: SearchConditionsInput;
    hand: (r: GeneratedIncident) => boolean;
  };
}

/** Words of the generated titles (each in about 1/5 to 1/12 of them), for fresh literal patterns. */
const FRESH_WORDS = [
  "malware",
  "ransomware",
  "PowerShell",
  "privilege",
  "transfer",
  "tunnelling",
  "credential",
  "mailbox",
  "connection",
  "escalation",
  "download",
  "activity",
  "execution",
  "dumping",
  "Suspicious",
  "Unusual",
  "Critical",
  "Repeated",
  "Failed",
  "Possible",
  "Confirmed",
  "Anomalous",
  "detected",
  "reported",
  "observed",
  "blocked",
  "flagged",
  "email",
  "rule",
  "scan",
];
/** The generator's own title words: patterns built from them match generated titles. */
const FRESH_ADJECTIVES = TITLE_ADJECTIVES;
const FRESH_SUBJECTS = TITLE_SUBJECTS;
/** `word` with its case changed (every other letter upper case), for case-insensitive fresh patterns. */
const mixedCase = (word: string) =>
  [...word].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join("");
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const sampleFrom = Date.parse("2024-01-01T00:00:00Z");
const sampleTo = Date.parse("2024-07-01T00:00:00Z");

/** The patterns of the section: unanchored, anchored, with and without `i`, selective, none usable. */
export function textQueries(): TextQuery[] {
  const re = (source: string, flags = "") => {
    const native = new RegExp(source, flags);
    return (r: GeneratedIncident) => native.test(r.Title);
  };
  const word = (k: number) => FRESH_WORDS[k % FRESH_WORDS.length]!;
  const sample = (literal: string) => (r: GeneratedIncident) => {
    if (r.IngestionType !== "Webhook" && r.IngestionType !== "Schedule Job") return false;
    if (!r.Title.includes(literal)) return false;
    if (r.Severity !== "High" && r.Severity !== "Critical") return false;
    const t = Date.parse(r.CreatedUtcTime);
    return t > sampleFrom && t < sampleTo;
  };
  const prefix = (k: number) =>
    `${FRESH_ADJECTIVES[k % FRESH_ADJECTIVES.length]} ${FRESH_SUBJECTS[(k * 5 + 1) % FRESH_SUBJECTS.length]}`;
  const pair = (k: number) => {
    const a = FRESH_SUBJECTS[k % FRESH_SUBJECTS.length]!;
    const b = FRESH_SUBJECTS[(k + 5 + Math.floor(k / FRESH_SUBJECTS.length)) % FRESH_SUBJECTS.length]!;
    return `(${a}|${b.split(" ")[0]}) .* on`;
  };
  return [
    {
      name: "unanchored (phishing)",
      conditions: { Title: { $regex: "phishing" } },
      hand: (r) => r.Title.includes("phishing"),
      fresh: (k) => {
        const w = word(k);
        return { conditions: { Title: { $regex: w } }, hand: (r) => r.Title.includes(w) };
      },
    },
    {
      name: "unanchored, i (Ransomware)",
      conditions: { Title: { $regex: "Ransomware", $options: "i" } },
      hand: re("Ransomware", "i"),
      fresh: (k) => {
        const w = mixedCase(word(k + 7));
        return { conditions: { Title: { $regex: w, $options: "i" } }, hand: re(w, "i") };
      },
    },
    {
      name: "anchored (^Suspicious login)",
      conditions: { Title: { $regex: "^Suspicious login" } },
      hand: (r) => r.Title.startsWith("Suspicious login"),
      fresh: (k) => {
        const p = prefix(k + 1);
        return { conditions: { Title: { $regex: `^${p}` } }, hand: (r) => r.Title.startsWith(p) };
      },
    },
    {
      name: "anchored, i (^confirmed dns)",
      conditions: { Title: { $regex: "^confirmed dns", $options: "i" } },
      hand: re("^confirmed dns", "i"),
      fresh: (k) => {
        const p = `^${prefix(k + 2)
          .toLowerCase()
          .slice(0, -2)}`;
        return { conditions: { Title: { $regex: p, $options: "i" } }, hand: re(p, "i") };
      },
    },
    {
      name: "selective (srv-42\\d\\d$)",
      conditions: { Title: { $regex: "srv-42\\d\\d$" } },
      hand: re("srv-42\\d\\d$"),
      fresh: (k) => {
        const p = `srv-${10 + (k % 32)}\\d\\d$`;
        return { conditions: { Title: { $regex: p } }, hand: re(p) };
      },
    },
    {
      name: "alternation ((port scan|VPN) .* on)",
      conditions: { Title: { $regex: "(port scan|VPN) .* on" } },
      hand: re("(port scan|VPN) .* on"),
      fresh: (k) => {
        const p = pair(k);
        return { conditions: { Title: { $regex: p } }, hand: re(p) };
      },
    },
    {
      name: "spec sample",
      conditions: SPEC_SAMPLE,
      hand: sample("phishing"),
      fresh: (k) => {
        // A word without its last letter: a plain literal as the sample's, never the pattern of another family.
        const w = word(k + 3).slice(0, -1);
        return { conditions: { ...SPEC_SAMPLE, Title: { $regex: escapeRe(w) } }, hand: sample(w) };
      },
    },
    {
      name: "no usable literal ([a-z]{4}\\d$)",
      conditions: { Title: { $regex: "[a-z]{4}-\\d$" } },
      hand: re("[a-z]{4}-\\d$"),
      fresh: (k) => {
        const p = `[a-z]{${3 + Math.floor(k / 10)}}-${k % 10}$`;
        return { conditions: { Title: { $regex: p } }, hand: re(p) };
      },
    },
  ];
}

const median = (times: number[]): number => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};

function time<T>(fn: () => T): [number, T] {
  const t0 = performance.now();
  const result = fn();
  return [performance.now() - t0, result];
}

/** The earliest matching row by (CreatedUtcTime, IncidentId), as a hand-written full scan finds it. */
function firstBy(rows: readonly GeneratedIncident[], test: (r: GeneratedIncident) => boolean): number {
  let best: GeneratedIncident | undefined;
  for (const r of rows) {
    if (!test(r)) continue;
    if (
      best === undefined ||
      r.CreatedUtcTime < best.CreatedUtcTime ||
      (r.CreatedUtcTime === best.CreatedUtcTime && r.IncidentId < best.IncidentId)
    )
      best = r;
  }
  return best?.IncidentId ?? -1;
}

function countBy(rows: readonly GeneratedIncident[], test: (r: GeneratedIncident) => boolean): number {
  let n = 0;
  for (const r of rows) if (test(r)) n++;
  return n;
}

function countCompiled(rows: readonly GeneratedIncident[], test: (r: unknown) => boolean): number {
  let n = 0;
  for (const r of rows) if (test(r)) n++;
  return n;
}

function firstCompiled(rows: readonly GeneratedIncident[], test: (r: unknown) => boolean): number {
  return firstBy(rows, test as (r: GeneratedIncident) => boolean);
}

/** Patterns run before any timing, to warm the code paths (never a fresh pattern: see `regexKey`). */
const WARM_PATTERNS = ["login", "^Failed port", "malware downl", "srv-1\\d\\d$", "(DNS|VPN) .* from"];

/** The `$regex` and `$options` of a query's `Title` (what every cache of a pattern is keyed by). */
function regexKey(conditions: unknown): string {
  const title = (conditions as { Title?: { $regex?: string; $options?: string } }).Title;
  return `${title?.$options ?? ""}/${title?.$regex ?? ""}`;
}

/** Result rows of the text part. */
export interface TextRow {
  readonly name: string;
  readonly explain: string;
  readonly matches: number;
  readonly hand: number;
  readonly compiled: number;
  readonly coldCount: number;
  readonly count: number;
  readonly findAll: number;
  readonly handFirst: number;
  readonly compiledFirst: number;
  readonly findFirst: number;
}

const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const r = (a: number, b: number) => `${(a / b).toFixed(a / b >= 10 ? 0 : 1)}×`;

/**
 * The text part: returns one row per query (median ms of each engine) and prints a table of ratios.
 * @throws {Error} when two engines disagree on a count or on the first incident
 */
export function runTextBench(size: number, rounds: number, write: (line: string) => void): TextResult {
  const rows = generateIncidents(size);
  const [buildMs, set] = time(() => new IncidentSet(rows));
  set.findFirst({});
  const indexBuiltWithSet = set.footprint().textIndexBytes > 0;
  const [indexMs] = time(() => set.count({ Title: { $regex: "qqqq" } }));
  // Warm the code paths on other patterns, so that "cold" measures uncached answers, not the JIT.
  for (const warm of WARM_PATTERNS) {
    set.count({ Title: { $regex: warm } });
    set.findAll({ Title: { $regex: warm, $options: "i" } });
    set.findFirst({ Title: { $regex: warm } });
  }
  write(
    `text: ${size} incidents; set built in ${f(buildMs)} ms; ${indexBuiltWithSet ? "trigram index built with the set" : "trigram index built by the first pattern"}, first pattern ${f(indexMs)} ms, ${(set.footprint().textIndexBytes / 2 ** 20).toFixed(1)} MiB (bound ${(set.footprint().textIndexLimit / 2 ** 20).toFixed(0)} MiB)`,
  );
  const out: TextRow[] = [];
  for (const query of process.env.BENCH_FIRST_USE_ONLY === "1" ? [] : textQueries()) {
    const condition = parseSearchConditions(query.conditions);
    const predicate = compile(condition);
    const [coldCount, cold] = time(() => set.count(condition));
    // The rounds start after a full collection: the row objects' heap (about 700 MB at 1M) is collected
    // in steps over a few hundred ms, which would otherwise weigh on whichever pattern's rounds it happened
    // to fall in. (Not before the cold count: the first allocations after a collection pay for sweeping.)
    gc();
    const engines: [string, () => number][] = [
      ["hand", () => countBy(rows, query.hand)],
      ["compiled", () => countCompiled(rows, predicate)],
      ["count", () => set.count(condition)],
      ["findAll", () => set.findAll(condition).length],
      ["handFirst", () => firstBy(rows, query.hand)],
      ["compiledFirst", () => firstCompiled(rows, predicate)],
      ["findFirst", () => (set.findFirst(condition) as GeneratedIncident | undefined)?.IncidentId ?? -1],
    ];
    const times = new Map<string, number[]>(engines.map(([name]) => [name, []]));
    const answers = new Map<string, number>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of engines) {
        const [ms, answer] = time(run);
        times.get(name)!.push(ms);
        answers.set(name, answer);
      }
    }
    const counts = ["hand", "compiled", "count", "findAll"].map((name) => answers.get(name));
    const firsts = ["handFirst", "compiledFirst", "findFirst"].map((name) => answers.get(name));
    if (new Set([...counts, cold]).size !== 1)
      throw new Error(`${query.name}: counts disagree: ${counts} ${cold}`);
    if (new Set(firsts).size !== 1) throw new Error(`${query.name}: first incidents disagree: ${firsts}`);
    const m = (name: string) => median(times.get(name)!);
    out.push({
      name: query.name,
      explain: set.explain(condition).columns,
      matches: cold,
      hand: m("hand"),
      compiled: m("compiled"),
      coldCount,
      count: m("count"),
      findAll: m("findAll"),
      handFirst: m("handFirst"),
      compiledFirst: m("compiledFirst"),
      findFirst: m("findFirst"),
    });
  }
  write(
    "ratios = hand-written row scan / IncidentSet (and compiled row scan / IncidentSet); medians of interleaved rounds",
  );
  write(
    `${"pattern".padEnd(38)}${"matches".padStart(9)}${"hand ms".padStart(9)}${"count".padStart(13)}${"cold count".padStart(13)}${"findAll".padStart(13)}${"findFirst".padStart(13)}`,
  );
  for (const row of out) {
    const pair = (ours: number, hand: number, compiled: number) =>
      `${r(hand, ours)}/${r(compiled, ours)}`.padStart(13);
    write(
      `${row.name.padEnd(38)}${String(row.matches).padStart(9)}${f(row.hand).padStart(9)}${pair(row.count, row.hand, row.compiled)}${pair(row.coldCount, row.hand, row.compiled)}${pair(row.findAll, row.hand, row.compiled)}${pair(row.findFirst, row.handFirst, row.compiledFirst)}`,
    );
  }
  for (const row of out) write(`  ${row.name}: ${row.explain}`);
  const firstUse = runFirstUse(rows, set, rounds, write);
  const { textIndexBytes, textIndexLimit } = set.footprint();
  return { size, rows: out, firstUse, textIndexBytes, textIndexLimit };
}

/** One family's first-use figures: medians of per-round ratios, hand-written (or compiled) ÷ ours. */
export interface FirstUseRow {
  readonly name: string;
  readonly count: number;
  readonly countVsCompiled: number;
  readonly findAll: number;
  readonly findFirst: number;
}

/** What the text part measured, for the targets of `npm run bench`. */
export interface TextResult {
  readonly size: number;
  readonly rows: readonly TextRow[];
  readonly firstUse: readonly FirstUseRow[];
  readonly textIndexBytes: number;
  readonly textIndexLimit: number;
}

/**
 * First use: in each round, each engine answers a pattern no engine has seen (`TextQuery.fresh`), so no
 * cache helps — neither the set's (accept tables, trigram queries, postings of the pattern) nor the
 * parser's or compiler's. `count`, `findAll` and `findFirst` each get their own fresh pattern per round, and
 * the hand-written and compiled scans (`compile` timed too) answer the same one right before. Prints the
 * median over rounds of the per-round ratios. Each family has 24 distinct fresh patterns: at most 8 rounds.
 * @throws {Error} when two engines disagree on a fresh pattern
 */
function runFirstUse(
  rows: readonly GeneratedIncident[],
  set: IncidentSet<GeneratedIncident>,
  rounds: number,
  write: (line: string) => void,
): FirstUseRow[] {
  write("first use (a fresh pattern of the same shape each round and engine; median of per-round ratios):");
  const out: FirstUseRow[] = [];
  // Every pattern the set has seen: the warm-up patterns (with and without `i`) and the section's own. A
  // fresh pattern must be none of them, and never repeat, or a cache could answer it.
  const seen = new Set<string>();
  for (const warm of WARM_PATTERNS) for (const options of ["", "i"]) seen.add(`${options}/${warm}`);
  for (const query of textQueries()) seen.add(regexKey(query.conditions));
  const fresh = (query: TextQuery, k: number) => {
    const pattern = query.fresh(k);
    const key = regexKey(pattern.conditions);
    if (seen.has(key)) throw new Error(`${query.name}: fresh pattern ${k} (${key}) was seen before`);
    seen.add(key);
    return pattern;
  };
  write(
    `${"pattern".padEnd(38)}${"count/hand".padStart(12)}${"count/comp".padStart(12)}${"findAll/hand".padStart(14)}${"findFirst/hand".padStart(16)}`,
  );
  for (const query of textQueries()) {
    gc(); // as in `runTextBench`: no pattern's rounds pay for a collection started by another's
    const ratios = {
      count: [] as number[],
      compiled: [] as number[],
      findAll: [] as number[],
      findFirst: [] as number[],
    };
    for (let round = 0; round < rounds; round++) {
      const a = fresh(query, 3 * round);
      const [hand, handCount] = time(() => countBy(rows, a.hand));
      const [compiled, compiledCount] = time(() =>
        countCompiled(rows, compile(parseSearchConditions(a.conditions))),
      );
      const [ours, count] = time(() => set.count(a.conditions));
      if (new Set([handCount, compiledCount, count]).size !== 1)
        throw new Error(
          `${query.name} (fresh ${3 * round}): counts disagree: ${handCount} ${compiledCount} ${count}`,
        );
      ratios.count.push(hand / ours);
      ratios.compiled.push(compiled / ours);
      const b = fresh(query, 3 * round + 1);
      const [handB, handBCount] = time(() => countBy(rows, b.hand));
      const [all, allCount] = time(() => set.findAll(b.conditions).length);
      if (handBCount !== allCount)
        throw new Error(`${query.name}: findAll disagrees: ${handBCount} ${allCount}`);
      ratios.findAll.push(handB / all);
      const c = fresh(query, 3 * round + 2);
      const [handC, handFirst] = time(() => firstBy(rows, c.hand));
      const [first, found] = time(
        () => (set.findFirst(c.conditions) as GeneratedIncident | undefined)?.IncidentId ?? -1,
      );
      if (handFirst !== found) throw new Error(`${query.name}: findFirst disagrees: ${handFirst} ${found}`);
      ratios.findFirst.push(handC / first);
    }
    const x = (values: number[]) => `${median(values).toFixed(1)}×`;
    write(
      `${query.name.padEnd(38)}${x(ratios.count).padStart(12)}${x(ratios.compiled).padStart(12)}${x(ratios.findAll).padStart(14)}${x(ratios.findFirst).padStart(16)}`,
    );
    out.push({
      name: query.name,
      count: median(ratios.count),
      countVsCompiled: median(ratios.compiled),
      findAll: median(ratios.findAll),
      findFirst: median(ratios.findFirst),
    });
  }
  return out;
}

/** Writes `size` generated incidents as NDJSON (batches of at most 1M, ids and numbers kept unique). */
async function writeNdjson(path: string, size: number, uniqueTitles: boolean): Promise<void> {
  const stream = createWriteStream(path);
  const batch = 1_000_000;
  for (let from = 0; from < size; from += batch) {
    const rows = generateIncidents(Math.min(batch, size - from), 20261121 + from);
    let text = "";
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k]!;
      const id = from + k + 1;
      row.IncidentId = id;
      row.Number = numberOf(row.Number, id);
      if (uniqueTitles) row.Title = `${row.Title} #${id}`;
      text += `${JSON.stringify(row)}\n`;
      if (text.length > 1 << 20) {
        if (!stream.write(text)) await once(stream, "drain");
        text = "";
      }
    }
    await new Promise<void>((resolve) => stream.write(text, () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/** The `Number` of the incident with id `id` (its generated date part, then the id). */
function numberOf(generated: string, id: number): string {
  return `${generated.split("-")[0]}-${id}`;
}

/**
 * The `Number` of the first incident of the last batch of a file of `size` (the selective key of the
 * section; generating it again takes one record).
 */
/** The `Number` of the first incident of every batch of a million of a file of `size` (at least one). */
function keyNumbers(size: number): string[] {
  const keys: string[] = [];
  for (let from = 0; from < size; from += 1_000_000)
    keys.push(numberOf(generateIncidents(1, 20261121 + from)[0]!.Number, from + 1));
  return keys;
}

function keyNumber(size: number): string {
  const batch = 1_000_000;
  const from = Math.floor((size - 1) / batch) * batch;
  return numberOf(generateIncidents(1, 20261121 + from)[0]!.Number, from + 1);
}

/** Options of the scale part. */
export interface ScaleOptions {
  /** Keep the generated NDJSON at this path, and reuse it when it exists with the same number of lines. */
  readonly keep?: string;
  /** Compare with `new IncidentSet(records)` on every query of the section (default: at most 1M). */
  readonly compare?: boolean;
  /** The `textIndex.maxBytes` option of the set (default: the library's). */
  readonly textIndexBytes?: number;
  /** Make every title distinct (the incident's id appended, as the exports): `--unique-titles`. */
  readonly uniqueTitles?: boolean;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** What the scale part measured (the figures of its lines). */
export interface ScaleResult {
  readonly size: number;
  readonly uniqueTitles: boolean;
  /** Wall time of `IncidentSet.fromNdjson` from the file, ms. */
  readonly buildMs: number;
  /** The first `findFirst` by key after the build, which buckets its equality index, ms. */
  readonly firstLookupMs?: number;
  /** Median `findFirst` on a selective `Number` (warm), µs. */
  readonly findFirstUs: number;
  /** Median `count` of the specification's sample, ms, and its answer. */
  readonly sampleCountMs: number;
  readonly sampleCount: number;
  /** Heap growth and bytes outside the heap the set holds, per incident, after a full collection. */
  readonly heapBytesPerIncident: number;
  readonly outsideBytesPerIncident: number;
}

/**
 * The scale part: `fromNdjson` from a file (a `FileHandle`) at `size` incidents. Reports the build rate (wall clock
 * and CPU time), the heap in use after the build and a full GC (`process.memoryUsage().heapUsed`, absolute
 * and the growth over the empty process), the bytes outside the heap (array buffers: the kept lines, the
 * columns, the indexes), the median `findFirst` on a selective `Number` and the median `count` of the
 * specification's sample.
 * @throws {Error} when `findFirst` misses the key, or the compact set and a set of objects disagree
 */
export async function runScaleBench(
  size: number,
  rounds: number,
  write: (line: string) => void,
  options: ScaleOptions = {},
): Promise<ScaleResult> {
  const dir = options.keep === undefined ? mkdtempSync(join(tmpdir(), "incident-query-bench-")) : undefined;
  const path = options.keep ?? join(dir!, "incidents.ndjson");
  try {
    if (!(existsSync(path) && (await countLines(path)) === size))
      await writeNdjson(path, size, options.uniqueTitles ?? false);
    const number = keyNumber(size);
    gc();
    gc();
    const before = process.memoryUsage();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // As a program builds it: the built package's Node entry, `fromNdjson(path)` with its default threads
    // (the cores for a file of 64 MiB or more, docs/node.md); without a build (`npm run build`), the engine's
    // `IncidentSet.fromNdjson` over a FileHandle (one thread: the sources start no worker).
    const setOptions =
      options.textIndexBytes === undefined ? {} : { textIndex: { maxBytes: options.textIndexBytes } };
    const built = await loadBuiltEntries();
    let set: IncidentSet;
    let how: string;
    if (built !== undefined) {
      set = (await built.node.fromNdjson(path, setOptions)) as unknown as IncidentSet;
      how = "the Node entry's fromNdjson(path), default threads";
    } else {
      // A FileHandle: the set reads the file into its own record chunks (about a tenth faster than a stream).
      const handle = await open(path);
      try {
        set = await IncidentSet.fromNdjson(handle, setOptions);
      } finally {
        await handle.close();
      }
      how = "IncidentSet.fromNdjson over a FileHandle, one thread (no dist/: npm run build)";
    }
    const parse = (built?.root.parseSearchConditions ??
      parseSearchConditions) as typeof parseSearchConditions;
    const buildMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    set.findFirst({}); // the creation order, sorted on first use
    // The first text query builds the text index (docs/semantics.md, "The text index", "Built when first
    // needed"): timed on its own, and held in the memory figures below.
    const sample = parse(SPEC_SAMPLE);
    const t1 = performance.now();
    set.count(sample);
    const firstTextMs = performance.now() - t1;
    // The first lookup by key buckets its equality index (the same rule): timed on its own; the memory
    // figures then hold every equality index built (a lookup on each default hash field).
    const selective = { Number: number };
    const t2 = performance.now();
    set.findFirst(parse(selective));
    const firstLookupMs = performance.now() - t2;
    set.findFirst(parse({ ExternalKey: "none" }));
    set.findFirst(parse({ IncidentId: -1 }));
    gc();
    gc();
    const after = process.memoryUsage();
    const firsts: number[] = [];
    const counts: number[] = [];
    let found: unknown;
    let sampleCount = 0;
    // findFirst back to back (a lookup is microseconds: interleaved with counts it measures their GC), on
    // the first key of every million rows (different rows, spread over the file), after a warm-up of 50,000
    // calls so that the code is optimized as in a long-running process (timing the first 200 calls one by
    // one, as this section did before, measured V8's unoptimized tiers: 12 µs where the optimized lookup
    // takes 2–3 µs). Each sample is one pass over the keys, divided by their number.
    const keys = keyNumbers(size).map((key) => parse({ Number: key }));
    for (let call = 0; call < 50_000; call++) set.findFirst(keys[call % keys.length]!);
    for (let round = 0; round < 300; round++) {
      const t = performance.now();
      for (const key of keys) found = set.findFirst(key);
      firsts.push((performance.now() - t) / keys.length);
    }
    found = set.findFirst(parse(selective));
    for (let round = 0; round < rounds * 3; round++) {
      const t = performance.now();
      sampleCount = set.count(sample);
      counts.push(performance.now() - t);
    }
    if ((found as { Number?: string } | undefined)?.Number !== number)
      throw new Error("findFirst missed the key");
    const heapGrowth = after.heapUsed - before.heapUsed;
    write(
      `scale: fromNdjson of ${size} incidents from a file (${how}): ${Math.round(size / (buildMs / 1000))} incidents/s ` +
        `(wall clock; ${Math.round(size / (cpuMs / 1000))}/s of CPU time, GC threads included); ` +
        `the first text query (the sample, which builds the text index) ${f(firstTextMs)} ms; ` +
        `the first findFirst by key (buckets its equality index) ${f(firstLookupMs)} ms`,
    );
    write(
      `scale: heap used after the build, the first text query and a full GC ${mib(after.heapUsed)} (the set: ${mib(heapGrowth)}, ` +
        `${Math.round(heapGrowth / size)} B/incident); outside the heap ${mib(after.arrayBuffers - before.arrayBuffers)} ` +
        `(records ${mib(set.footprint().recordBytes)}, columns ${mib(set.footprint().typedArrayBytes)}); rss ${mib(after.rss)}`,
    );
    write(
      `scale: findFirst on a selective key (parsed condition; ${keyNumbers(size).length} keys, warm) ${(median(firsts) * 1000).toFixed(1)} µs; ` +
        `count of the spec sample ${f(median(counts))} ms (${sampleCount}; ${set.explain(sample).count}); ` +
        `text index ${mib(set.footprint().textIndexBytes)} of ${mib(set.footprint().textIndexLimit)}`,
    );
    if (options.compare ?? size <= 1_000_000) {
      // The same answers as a set of objects, for every query of this section.
      const records = readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as GeneratedIncident);
      const reference = new IncidentSet(records);
      for (const query of [...textQueries(), { name: "selective key", conditions: selective }]) {
        const a = set.count(query.conditions);
        const b = reference.count(query.conditions);
        if (a !== b)
          throw new Error(`fromNdjson and new IncidentSet disagree on ${query.name}: ${a} vs ${b}`);
        const first = set.findFirst(query.conditions);
        if (!isDeepStrictEqual(first, reference.findFirst(query.conditions)))
          throw new Error(`fromNdjson and new IncidentSet disagree on the first of ${query.name}`);
      }
      write(`scale: fromNdjson and new IncidentSet(records) agree on every query of this section`);
    }
    return {
      size,
      uniqueTitles: options.uniqueTitles ?? false,
      buildMs,
      firstLookupMs,
      findFirstUs: median(firsts) * 1000,
      sampleCountMs: median(counts),
      sampleCount,
      heapBytesPerIncident: Math.round(heapGrowth / size),
      outsideBytesPerIncident: Math.round((after.arrayBuffers - before.arrayBuffers) / size),
    };
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The number of lines of a file (its `\n` bytes). */
async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return lines;
}

/**
 * Runs both parts with the sizes of the environment (see the file comment), or of the command line:
 * `--scale=N`, `--text=N` (0 skips a part), `--keep=PATH` (keep and reuse the NDJSON file),
 * `--text-index-bytes=N` (the compact set's `textIndex.maxBytes`), `--unique-titles` (every title distinct).
 * @returns what each part measured (`undefined` for a part skipped)
 */
export async function runTextAndScaleBench(
  write: (line: string) => void,
  argv: readonly string[] = [],
): Promise<{ text: TextResult | undefined; scale: ScaleResult | undefined }> {
  const arg = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const textSize = Number(arg("text") ?? process.env.BENCH_TEXT_SIZE ?? 1_000_000);
  const scaleSize = Number(arg("scale") ?? process.env.BENCH_SCALE_SIZE ?? 1_000_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const keep = arg("keep");
  const textIndexBytes = arg("text-index-bytes");
  write("\n=== text and scale ===");
  let scale: ScaleResult | undefined;
  if (scaleSize > 0) {
    scale = await runScaleBench(scaleSize, rounds, write, {
      ...(keep === undefined ? {} : { keep }),
      ...(textIndexBytes === undefined ? {} : { textIndexBytes: Number(textIndexBytes) }),
      uniqueTitles: argv.includes("--unique-titles"),
    });
  }
  gc();
  return { text: textSize > 0 ? runTextBench(textSize, rounds, write) : undefined, scale };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `--result=PATH`: the scale part's figures as JSON at PATH (the one-shot section's 10M run reads them).
  const argv = process.argv.slice(2);
  const { scale } = await runTextAndScaleBench((line) => process.stdout.write(`${line}\n`), argv);
  const result = argv.find((a) => a.startsWith("--result="))?.slice("--result=".length);
  if (result !== undefined) writeFileSync(result, `${JSON.stringify(scale ?? null)}\n`);
}
