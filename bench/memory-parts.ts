/**
 * What each part of a compact `IncidentSet` costs per incident: `IncidentSet.fromNdjson` over the one-shot
 * export (1M generated incidents, distinct titles), after one text query and the one-shot's count shapes, part
 * by part (the record store's line bytes and row table, each column, the hash indexes, the text column and
 * its index, the creation order), beside the heap and outside-heap bytes the set holds after a collection
 * (as `SetBuildReport` measures them) and the line's own size. Then `findFirst` and `count` times (medians),
 * to be compared in paired runs of two builds (the parts table of docs/performance.md, "Compact sets").
 *
 * `node --expose-gc bench/.build/bench/memory-parts.js [export.ndjson]` (written when absent: BENCH_ONESHOT_SIZE
 * incidents, default 1M); `--json` prints the figures as one JSON line too.
 */
import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { IncidentSet } from "../src/incidents/incident-set.js";
import { SHAPES, writeExport } from "./one-shot.js";

// biome-ignore lint/suspicious/noExplicitAny: the parts are read from the set's private fields.
type Any = any;

const gc = (globalThis as { gc?: () => void }).gc;
function held(): { heap: number; outside: number } {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, outside: usage.external };
}

const size = Number(process.env.BENCH_ONESHOT_SIZE ?? 1_000_000);
const path =
  process.argv.slice(2).find((a) => !a.startsWith("--")) ?? join(tmpdir(), `iq-memory-${size}.ndjson`);
try {
  statSync(path);
} catch {
  await writeExport(path, size, true);
}
const n0 = held();
const t0 = performance.now();
const c0 = process.cpuUsage();
const handle = await open(path);
const set = await IncidentSet.fromNdjson(handle).finally(() => handle.close());
const buildMs = performance.now() - t0;
const c1 = process.cpuUsage(c0);
const buildCpuMs = (c1.user + c1.system) / 1000;
const n = set.size;
const lineBytes = statSync(path).size / n;
// One text query (the text index built, as a served set has it), then the count shapes once each.
set.count({ Title: { $regex: "ransomware" } });
for (const shape of SHAPES) set.count(parseSearchConditions(shape.conditions));
const n1 = held();

const s = set as Any;
const parts: [string, number][] = [];
const add = (name: string, bytes: number) => parts.push([name, bytes]);
const r = s.records as Any;
if (typeof r.partBytes === "function") for (const [k, v] of r.partBytes() as [string, number][]) add(k, v);
else {
  let chunks = 0;
  for (const c of r.chunks) chunks += c.byteLength;
  add("records: line bytes", chunks);
  add("records: row table", r.chunkOf.byteLength + r.starts.byteLength + r.lengths.byteLength);
}
let dict = 0;
let dictCaches = 0;
for (const c of s.dictionaries.values()) {
  if (c.dropped) continue;
  dict += c.codes.byteLength + c.index.bytes();
  dictCaches += c.bytes() - c.codes.byteLength - c.index.bytes();
}
add(`label columns: codes (${[...s.dictionaries.values()].filter((c: Any) => !c.dropped).length})`, dict);
add("label columns: postings and bitsets built by queries", dictCaches);
let dates = 0;
for (const c of s.dates.values()) dates += c.bytes();
add(`date columns (${s.dates.size})`, dates);
for (const [field, index] of s.hashes) add(`hash index ${field}`, index.bytes());
for (const [field, column] of s.texts) {
  const c = column as Any;
  add(`text ${field}: ids`, c.ids.byteLength);
  add(`text ${field}: value table`, c.index.bytes());
  add(
    `text ${field}: postings`,
    c.postingCache ? c.postingCache.rows.byteLength + c.postingCache.offsets.byteLength : 0,
  );
  const index = c.indexCache as Any;
  if (index) {
    const chars = index.corpus === undefined ? 0 : index.corpus.length * index.charBytes;
    add(`text ${field}: corpus`, chars);
    add(`text ${field}: lowered corpus`, index.loweredCache ? chars : 0);
    add(`text ${field}: starts and kinds`, index.starts.byteLength + index.kinds.byteLength);
    add(
      `text ${field}: trigram ids`,
      index.grams.offsets.byteLength +
        (index.grams.ids.byteLength ?? index.grams.ids.bytes.byteLength + index.grams.ids.starts.byteLength),
    );
    add(
      `text ${field}: trigram meta`,
      index.grams.meta === undefined
        ? 0
        : (index.grams.meta.byteLength ??
            index.grams.meta.bytes.byteLength + index.grams.meta.starts.byteLength),
    );
  }
  let valueHeap = 8 * c.values.length;
  for (const v of c.values) if (typeof v === "string") valueHeap += 16 + v.length; // a one-byte string's header and characters
  add(`text ${field}: distinct values on the heap (estimate)`, valueHeap);
}
add("creation order", s.creation.bytes());
const heap = n1.heap - n0.heap;
const outside = n1.outside - n0.outside;
const per = (b: number) => (b / n).toFixed(1);
console.log(
  `${n.toLocaleString("en-US")} incidents, line ${lineBytes.toFixed(1)} B; build ${(n / (buildMs / 1000)).toFixed(0)}/s (${buildCpuMs.toFixed(0)} ms of processor time)`,
);
let listed = 0;
for (const [name, bytes] of parts) {
  listed += bytes;
  console.log(`${name.padEnd(58)} ${per(bytes).padStart(7)} B/incident`);
}
console.log(`${"parts listed".padEnd(58)} ${per(listed).padStart(7)}`);
console.log(
  `${"held: heap + outside (after gc)".padEnd(58)} ${per(heap + outside).padStart(7)} (${per(heap)} + ${per(outside)})`,
);

// Times: the processor time of this process (user and system: what other processes on a loaded machine take
// is left out), the least of the rounds; findFirst in µs, counts in ms.
const median = (xs: number[]) => Math.min(...xs);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const firsts: [string, unknown][] = [
  ["findFirst labels", { Status: "Open", Type: { $in: ["Phishing", "Malware"] } }],
  ["findFirst sample", SHAPES[3]!.conditions],
  ["findFirst Number", { Number: "20240301-500000" }],
  ["findFirst regex", { Title: { $regex: "ransomware" } }],
];
const times: Record<string, number> = {};
for (const [name, raw] of firsts) {
  const c = parseSearchConditions(raw);
  const xs: number[] = [];
  for (let round = 0; round < 15; round++) {
    const t = cpu();
    for (let k = 0; k < 100; k++) set.findFirst(c);
    xs.push(((cpu() - t) * 1000) / 100);
  }
  times[name] = median(xs);
  console.log(`${name.padEnd(58)} ${median(xs).toFixed(2).padStart(7)} µs`);
}
for (const shape of SHAPES) {
  const c = parseSearchConditions(shape.conditions);
  const xs: number[] = [];
  for (let round = 0; round < 9; round++) {
    const t = cpu();
    for (let k = 0; k < 10; k++) set.count(c);
    xs.push((cpu() - t) / 10);
  }
  times[`count ${shape.name}`] = median(xs);
  console.log(`${`count ${shape.name}`.padEnd(58)} ${median(xs).toFixed(2).padStart(7)} ms`);
}
{
  const c = parseSearchConditions({ Title: { $regex: "ransomware" }, Status: "Open" });
  const xs: number[] = [];
  for (let round = 0; round < 5; round++) {
    const t = cpu();
    set.findAll(c);
    xs.push(cpu() - t);
  }
  times["findAll regex+Open"] = median(xs);
  console.log(`${"findAll regex+Open".padEnd(58)} ${median(xs).toFixed(2).padStart(7)} ms`);
}
if (process.argv.includes("--json"))
  console.log(
    JSON.stringify({
      n,
      lineBytes,
      buildMs,
      buildCpuMs,
      heap: heap / n,
      outside: outside / n,
      parts: Object.fromEntries(parts.map(([k, v]) => [k, v / n])),
      times,
    }),
  );
