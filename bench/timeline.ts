/**
 * Timeline benchmark: 100,000 seeded, realistic timeline entries; a Filter term that keeps about
 * 5% of them; both sort orders. Engines: `queryTimeline` (one query from scratch), `TimelineIndex.query`
 * (entries prepared once), and the straightforward implementation (lower-casing every searched field of
 * every entry, sorting with a `Date`-parsing comparator). Each engine returns a checksum of the ids in
 * result order combined with the count, so an engine that answers in a different order fails the case.
 *
 * Run alone: `npx tsx bench/timeline.ts` prints the table with ratios.
 */

import { pathToFileURL } from "node:url";
import { readRecordsFromChunks } from "../src/cli/records.js";
import { type TimelineEntry, validateTimelineEntries } from "../src/timeline/entry.js";
import { createTimelineIndex, queryTimeline } from "../src/timeline/query.js";
import type { SortOrder } from "../src/timeline/sort.js";
import { timelineTimeKey } from "../src/timeline/time.js";
import { referenceIsValidTimelineTime } from "../test/support/timeline-time-reference.js";
import { type BenchCase, benchCase, ratio } from "./harness.js";

const SECTION = "timeline";
const SIZE = 100_000;
/** Occurs (in various cases) in about 5% of the generated entries. */
const FILTER = "MIMIKATZ";

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TACTICS = [
  "Initial Access",
  "Execution",
  "Persistence",
  "Privilege Escalation",
  "Defense Evasion",
  "Credential Access",
  "Discovery",
  "Lateral Movement",
  "Collection",
  "Exfiltration",
  "Command and Control",
  "Impact",
];
const TECHNIQUES = [
  "T1059.001 PowerShell",
  "T1566.001 Spearphishing Attachment",
  "T1078 Valid Accounts",
  "T1021.001 Remote Desktop Protocol",
  "T1105 Ingress Tool Transfer",
  "T1486 Data Encrypted for Impact",
  "T1047 Windows Management Instrumentation",
  "T1053.005 Scheduled Task",
  "T1027 Obfuscated Files or Information",
  "T1071.001 Web Protocols",
];
const EVENT_TYPES = [
  "Process Creation",
  "Network Connection",
  "File Modification",
  "Alert",
  "Note Added",
  "Playbook Run",
  "Status Change",
  "Email Received",
];
const RISK_LEVELS = ["Critical", "High", "Medium", "Low", "Informational"];
const AUTHORS = [
  "admin",
  "José Álvarez",
  "Søren Kierkegaard",
  "analyst.one",
  "SOC Bot",
  "Zoë Müller",
  "李雷",
];
const HOSTS = ["WS-0421", "SRV-DC01", "LAPTOP-7F3K", "web-prod-03", "db-replica-2"];
const MIMIKATZ = ["Mimikatz", "mimikatz.exe", "MIMIKATZ", "MimiKatz"];

/**
 * `count` realistic timeline entries from a seed: ids 1…count in shuffled order, times at minute precision
 * over two months (so many ties), about 1% invalid times, text with accents and some CJK, and the filter
 * word in about 5% of the entries (in Note, Summary or a Technique). The entries go through a JSON round
 * trip, as entries read from a request or a file would.
 */
export function generateTimelineEntries(count: number, seed = 20261121): TimelineEntry[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const pad = (n: number): string => String(n).padStart(2, "0");
  const entries: TimelineEntry[] = [];
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; i < count; i++) {
    const d = new Date(start + Math.floor(next() * 60 * 24 * 60) * 60_000);
    const time = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:00`;
    const host = pick(HOSTS);
    const roll = next();
    const word = pick(MIMIKATZ);
    const technique = [pick(TECHNIQUES)];
    if (next() < 0.3) technique.push(pick(TECHNIQUES));
    if (roll < 0.01) technique.push(`T1003.001 OS Credential Dumping: LSASS Memory (${word})`);
    const tactic = [pick(TACTICS)];
    if (next() < 0.5) tactic.push(pick(TACTICS));
    entries.push({
      TimelineID: i + 1,
      Time: next() < 0.01 ? pick(["", "not a time", "2024-13-01 00:00:00", "2024-01-05T10:00:00Z"]) : time,
      Summary:
        roll >= 0.01 && roll < 0.02
          ? `${word} detected on ${host}`
          : `${pick(EVENT_TYPES)} on host ${host} by user ${pick(AUTHORS)}`,
      Note:
        roll >= 0.02 && roll < 0.05
          ? `Analyst confirmed ${word} execution on ${host}; credentials rotated.`
          : `Reviewed by ${pick(AUTHORS)}; no further action required for ${host} at this stage.`,
      EventType: pick(EVENT_TYPES),
      Tactic: tactic,
      Technique: technique,
      RiskLevel: pick(RISK_LEVELS),
      Description: `Detected ${pick(EVENT_TYPES).toLowerCase()} activity correlated with ${pick(TACTICS)} behaviour on ${host}. Événement enregistré par le connecteur EDR, score ${Math.floor(next() * 100)}.`,
      Author: pick(AUTHORS),
    });
  }
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return JSON.parse(JSON.stringify(entries)) as TimelineEntry[];
}

/**
 * The straightforward implementation the engine is measured against: lower-cases every searched field of
 * every entry and tests `includes`, then sorts with a comparator that parses both times with `Date`.
 */
export function straightforwardQuery(
  entries: readonly TimelineEntry[],
  filter: string,
  order: SortOrder,
): TimelineEntry[] {
  const term = filter.trim().toLowerCase();
  const texts = (e: TimelineEntry): string[] => [
    e.Summary,
    e.Note,
    e.EventType,
    ...e.Tactic,
    ...e.Technique,
    e.RiskLevel,
    e.Description,
    e.Author,
    e.Time,
  ];
  const kept =
    term === ""
      ? entries.slice()
      : entries.filter((e) => texts(e).some((t) => t.toLowerCase().includes(term)));
  const time = (e: TimelineEntry): number =>
    /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(e.Time)
      ? new Date(`${e.Time.replace(" ", "T")}Z`).getTime()
      : Number.NaN;
  return kept.sort((a, b) => {
    const ta = time(a);
    const tb = time(b);
    const va = !Number.isNaN(ta);
    const vb = !Number.isNaN(tb);
    if (va !== vb) return va ? -1 : 1;
    if (!va) return a.TimelineID - b.TimelineID;
    return order === "asc" ? ta - tb || a.TimelineID - b.TimelineID : tb - ta || b.TimelineID - a.TimelineID;
  });
}

/**
 * The validator as it was before its rewrite, for comparison: the same checks, each field read through a
 * closure returning `{ present, value }`, and `Time` checked by date-fns (parse, isValid, format back; the
 * reference of test/support/timeline-time-reference.ts). Returns the number of valid entries.
 */
export function dateFnsValidate(input: readonly unknown[]): number {
  let valid = 0;
  const strings = ["Summary", "Note", "EventType", "RiskLevel", "Description", "Author"] as const;
  for (const value of input) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    let ok = true;
    const read = (field: string): { present: boolean; value: unknown } => {
      if (!Object.hasOwn(value, field)) {
        ok = false;
        return { present: false, value: undefined };
      }
      return { present: true, value: (value as Record<string, unknown>)[field] };
    };
    const id = read("TimelineID");
    if (!Number.isSafeInteger(id.value)) ok = false;
    const time = read("Time");
    if (!referenceIsValidTimelineTime(time.value)) ok = false;
    const copy: Record<string, unknown> = { TimelineID: id.value, Time: time.value };
    for (const field of strings) {
      const r = read(field);
      if (typeof r.value !== "string") ok = false;
      copy[field] = r.value;
    }
    for (const field of ["Tactic", "Technique"]) {
      const r = read(field);
      if (!Array.isArray(r.value) || !r.value.every((e) => typeof e === "string")) ok = false;
      else copy[field] = [...r.value];
    }
    if (ok) valid++;
  }
  return valid;
}

/** The name of the CLI readers' case. */
const READERS_CASE = "CLI: read 100k entries (NDJSON, JSON array)";

/** `text` cut into chunks of 1 MiB, as the CLI reads a file. */
function chunked(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 1 << 20) out.push(text.slice(i, i + (1 << 20)));
  return out;
}

/** The name of the validation case; `printTimelineTable` prints its cost per entry. */
const VALIDATE_CASE = "validateTimelineEntries (valid entries)";

/** Count and order in one number: count · 2³² + a 32-bit hash of the ids in order. */
function checksum(entries: readonly TimelineEntry[]): number {
  let hash = 0x811c9dc5;
  for (const e of entries) hash = Math.imul(hash ^ e.TimelineID, 0x01000193);
  return entries.length * 2 ** 32 + (hash >>> 0);
}

/** Runs the timeline cases and returns them (the lead's `npm run bench` prints them with the others). */
export function runTimelineBench(): BenchCase[] {
  const entries = generateTimelineEntries(SIZE);
  // Filter cases take ~0.1 s a run: enough runs for a stable median, after the JIT (and the regular
  // expression tier-up) has warmed. Sorting all entries with the straightforward comparator takes seconds.
  const light = { minRuns: 7, minTimeMs: 500, warmup: 3 };
  const heavy = { minRuns: 3, minTimeMs: 300, warmup: 1 };
  const cases: BenchCase[] = [];
  const one = (name: string, filter: string, order: SortOrder): void => {
    const options = filter === "" ? heavy : light;
    collectGarbage();
    cases.push(
      benchCase(
        SECTION,
        name,
        SIZE,
        [
          {
            engine: "queryTimeline",
            run: () => checksum(queryTimeline(entries, { filter, sortOrder: order })),
          },
          { engine: "straightforward", run: () => checksum(straightforwardQuery(entries, filter, order)) },
        ],
        options,
      ),
    );
  };
  one(`filter "${FILTER}" (~5%), ASC`, FILTER, "asc");
  one(`filter "${FILTER}" (~5%), DESC`, FILTER, "desc");
  one("no filter, ASC", "", "asc");
  one("no filter, DESC", "", "desc");
  // Validation of entries read from a file or a request (the target: at most 2 µs an entry).
  const validEntries = entries.filter((e) => timelineTimeKey(e.Time) !== undefined);
  collectGarbage();
  cases.push(
    benchCase(
      SECTION,
      VALIDATE_CASE,
      validEntries.length,
      [
        {
          engine: "validateTimelineEntries",
          run: () => {
            const result = validateTimelineEntries(validEntries);
            return result.ok ? result.entries.length : -1;
          },
        },
        { engine: "date-fns validator (old)", run: () => dateFnsValidate(validEntries) },
      ],
      heavy,
    ),
  );
  // The CLI's readers (the target: a JSON array within 1.5x of NDJSON): the same entries as text in 1 MiB
  // chunks, as the CLI reads them; each run parses every record.
  const ndjson = chunked(entries.map((e) => JSON.stringify(e)).join("\n"));
  const array = chunked(JSON.stringify(entries, null, 1));
  const readOptions = { maxLineLength: 1 << 26, expected: "timeline entries" };
  collectGarbage();
  cases.push(
    benchCase(
      SECTION,
      READERS_CASE,
      SIZE,
      [
        { engine: "NDJSON reader", run: () => readRecordsFromChunks(ndjson, readOptions).length },
        { engine: "JSON array reader", run: () => readRecordsFromChunks(array, readOptions).length },
      ],
      // Each run leaves 100k records of garbage: enough runs that a collection does not decide the median.
      { minRuns: 9, minTimeMs: 1000, warmup: 2 },
    ),
  );
  // Built only now, so that its garbage does not weigh on the cases above.
  const index = createTimelineIndex(entries);
  for (const order of ["asc", "desc"] as const) {
    collectGarbage();
    cases.push(
      benchCase(
        SECTION,
        `index: filter "${FILTER}" (~5%), ${order.toUpperCase()}`,
        SIZE,
        [
          {
            engine: "TimelineIndex.query",
            run: () => checksum(index.query({ filter: FILTER, sortOrder: order })),
          },
          { engine: "straightforward", run: () => checksum(straightforwardQuery(entries, FILTER, order)) },
        ],
        light,
      ),
    );
  }
  collectGarbage();
  cases.push(
    benchCase(
      SECTION,
      `index: build + one query "${FILTER}", DESC`,
      SIZE,
      [
        {
          engine: "createTimelineIndex+query",
          run: () => checksum(createTimelineIndex(entries).query({ filter: FILTER, sortOrder: "desc" })),
        },
        { engine: "straightforward", run: () => checksum(straightforwardQuery(entries, FILTER, "desc")) },
      ],
      heavy,
    ),
  );
  return cases;
}

/**
 * Starts each case on a collected heap when the process runs with `--expose-gc` (as `npm run bench` does),
 * so that no case pays for the garbage of the one before; a no-op otherwise.
 */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Prints cases as a table: engine medians and `other / first engine` ratios. */
export function printTimelineTable(cases: readonly BenchCase[], write: (line: string) => void): void {
  write(`${"case".padEnd(46)} ${"engine".padEnd(28)} ${"median ms".padStart(10)} ${"×".padStart(8)}`);
  for (const c of cases) {
    const [ours, ...others] = c.measurements;
    if (ours === undefined) continue;
    write(
      `${c.name.padEnd(46)} ${ours.engine.padEnd(28)} ${ours.medianMs.toFixed(2).padStart(10)} ${"1".padStart(8)}`,
    );
    for (const other of others) {
      write(
        `${"".padEnd(46)} ${other.engine.padEnd(28)} ${other.medianMs.toFixed(2).padStart(10)} ${String(ratio(ours, other)).padStart(8)}`,
      );
    }
  }
  const validation = cases.find((c) => c.name === VALIDATE_CASE);
  const ours = validation?.measurements[0];
  if (validation !== undefined && ours !== undefined) {
    write(
      `validateTimelineEntries: ${((ours.medianMs * 1000) / validation.size).toFixed(3)} µs an entry (the target: at most 2 µs)`,
    );
  }
  const kept = cases[0]?.measurements[0]?.count;
  if (kept !== undefined) write(`(${Math.floor(kept / 2 ** 32)} of ${SIZE} entries kept by the filter)`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printTimelineTable(runTimelineBench(), (line) => process.stdout.write(`${line}\n`));
}
