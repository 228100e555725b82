/**
 * The benchmark's queries, each in three forms that must select the same incidents of the generated data
 * (bench/generate-incidents.ts): our Search Conditions, the same query in the MongoDB dialect that mingo
 * and sift read (the generated `CreatedUtcTime` values are ISO strings of one format, so the peers compare
 * them as strings), and a hand-written predicate as a developer would write it over row objects; and the
 * peers' forms (bench/peers.ts): a DuckDB WHERE clause (`CreatedUtcTime` is a TIMESTAMP column), an arquero
 * filter expression (`CreatedMs` is the creation time in epoch ms), and roaring bitmap algebra, or the
 * reason why roaring cannot express the query.
 */

import type { SearchConditionsInput } from "../src/conditions/print.js";
import type { GeneratedIncident } from "./generate-incidents.js";
import type { Bitmap, RoaringIndex } from "./peers.js";

/** One benchmark query. */
export interface BenchQuery {
  readonly name: string;
  /** Our Search Conditions JSON. */
  readonly conditions: SearchConditionsInput;
  /** The same query for mingo and sift. */
  readonly mongo: Record<string, unknown>;
  /** The hand-written predicate. */
  readonly hand: (incident: GeneratedIncident) => boolean;
  /** The DuckDB WHERE clause (the same for the ENUM and the VARCHAR table). */
  readonly sql: string;
  /** The arquero filter expression (a string, parsed by arquero). */
  readonly arquero: string;
  /** The query as roaring bitmap algebra, or why a bitmap index cannot answer it (shown as "n/a"). */
  readonly roaring: ((index: RoaringIndex) => Bitmap) | { readonly na: string };
  /** True when the query has a regular expression (the `count` target excludes these). */
  readonly regex: boolean;
  /** True when `findFirst` is measured on it too. */
  readonly first: boolean;
}

const ms = (iso: string): number => Date.parse(iso);

/** A SQL string literal. */
const sqlText = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** Why roaring bitmaps cannot answer a `$regex` query. */
const NO_REGEX = "no regex: a bitmap index holds exact values only";

/** The specification's sample Search Conditions (spec 2.3): pipe alternatives, `$regex`, `$in`, a `$date` range. */
export const SPEC_SAMPLE = {
  IngestionType: "Webhook|Schedule Job",
  Title: { $regex: "phishing" },
  Severity: { $in: ["High", "Critical"] },
  CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" }, $lt: { $date: "2024-07-01T00:00:00Z" } },
} as const;

/**
 * The queries over a generated data set.
 * @param incidents - the generated incidents (the selective `Number` lookup takes the middle one's number)
 */
export function benchQueries(incidents: readonly GeneratedIncident[]): BenchQuery[] {
  const number = incidents[incidents.length >> 1]?.Number ?? "none";
  const sampleFrom = ms("2024-01-01T00:00:00Z");
  const sampleTo = ms("2024-07-01T00:00:00Z");
  const marchFrom = ms("2024-03-01T00:00:00Z");
  const marchTo = ms("2024-04-01T00:00:00Z");
  const juneFrom = ms("2024-06-01T00:00:00Z");
  return [
    {
      name: "spec sample (pipe, $regex, $in, $date range)",
      conditions: SPEC_SAMPLE,
      mongo: {
        IngestionType: { $in: ["Webhook", "Schedule Job"] },
        Title: /phishing/,
        Severity: { $in: ["High", "Critical"] },
        CreatedUtcTime: { $gt: "2024-01-01T00:00:00Z", $lt: "2024-07-01T00:00:00Z" },
      },
      hand: (r) => {
        if (r.IngestionType !== "Webhook" && r.IngestionType !== "Schedule Job") return false;
        if (!r.Title.includes("phishing")) return false;
        if (r.Severity !== "High" && r.Severity !== "Critical") return false;
        const t = Date.parse(r.CreatedUtcTime);
        return t > sampleFrom && t < sampleTo;
      },
      sql: `IngestionType IN ('Webhook', 'Schedule Job') AND regexp_matches(Title, 'phishing') AND Severity IN ('High', 'Critical') AND CreatedUtcTime > TIMESTAMP '2024-01-01 00:00:00' AND CreatedUtcTime < TIMESTAMP '2024-07-01 00:00:00'`,
      arquero: `d => (d.IngestionType === 'Webhook' || d.IngestionType === 'Schedule Job') && op.match(d.Title, /phishing/) != null && (d.Severity === 'High' || d.Severity === 'Critical') && d.CreatedMs > ${sampleFrom} && d.CreatedMs < ${sampleTo}`,
      roaring: { na: NO_REGEX },
      regex: true,
      first: true,
    },
    {
      name: "single-field equality (Status: Open)",
      conditions: { Status: "Open" },
      mongo: { Status: "Open" },
      hand: (r) => r.Status === "Open",
      sql: "Status = 'Open'",
      arquero: "d => d.Status === 'Open'",
      roaring: (ix) => ix.eq("Status", "Open"),
      regex: false,
      first: true,
    },
    {
      name: "selective Number lookup",
      conditions: { Number: number },
      mongo: { Number: number },
      hand: (r) => r.Number === number,
      sql: `Number = ${sqlText(number)}`,
      arquero: `d => d.Number === ${JSON.stringify(number)}`,
      roaring: (ix) => ix.eq("Number", number),
      regex: false,
      first: true,
    },
    {
      name: "date range (one month)",
      conditions: {
        CreatedUtcTime: { $gte: { $date: "2024-03-01T00:00:00Z" }, $lt: { $date: "2024-04-01T00:00:00Z" } },
      },
      mongo: { CreatedUtcTime: { $gte: "2024-03-01T00:00:00Z", $lt: "2024-04-01T00:00:00Z" } },
      hand: (r) => {
        const t = Date.parse(r.CreatedUtcTime);
        return t >= marchFrom && t < marchTo;
      },
      sql: "CreatedUtcTime >= TIMESTAMP '2024-03-01 00:00:00' AND CreatedUtcTime < TIMESTAMP '2024-04-01 00:00:00'",
      arquero: `d => d.CreatedMs >= ${marchFrom} && d.CreatedMs < ${marchTo}`,
      roaring: (ix) => ix.created({ gte: marchFrom, lt: marchTo }),
      regex: false,
      first: true,
    },
    {
      name: "unanchored case-insensitive regex (Title)",
      conditions: { Title: { $regex: "Ransomware", $options: "i" } },
      mongo: { Title: /Ransomware/i },
      hand: (r) => /Ransomware/i.test(r.Title),
      sql: "regexp_matches(Title, 'Ransomware', 'i')",
      arquero: "d => op.match(d.Title, /Ransomware/i) != null",
      roaring: { na: NO_REGEX },
      regex: true,
      first: false,
    },
    {
      name: "OR of two objects",
      conditions: [
        { Severity: "Critical", Status: "Open" },
        { IngestionType: "Manual Escalation", Category: "Fraud" },
      ],
      mongo: {
        $or: [
          { Severity: "Critical", Status: "Open" },
          { IngestionType: "Manual Escalation", Category: "Fraud" },
        ],
      },
      hand: (r) =>
        (r.Severity === "Critical" && r.Status === "Open") ||
        (r.IngestionType === "Manual Escalation" && r.Category === "Fraud"),
      sql: "(Severity = 'Critical' AND Status = 'Open') OR (IngestionType = 'Manual Escalation' AND Category = 'Fraud')",
      arquero:
        "d => (d.Severity === 'Critical' && d.Status === 'Open') || (d.IngestionType === 'Manual Escalation' && d.Category === 'Fraud')",
      roaring: (ix) =>
        ix.or(
          ix.and(ix.eq("Severity", "Critical"), ix.eq("Status", "Open")),
          ix.and(ix.eq("IngestionType", "Manual Escalation"), ix.eq("Category", "Fraud")),
        ),
      regex: false,
      first: true,
    },
    {
      name: "$in on Type (3 labels)",
      conditions: { Type: { $in: ["Phishing", "Malware", "Ransomware"] } },
      mongo: { Type: { $in: ["Phishing", "Malware", "Ransomware"] } },
      hand: (r) => r.Type === "Phishing" || r.Type === "Malware" || r.Type === "Ransomware",
      sql: "Type IN ('Phishing', 'Malware', 'Ransomware')",
      arquero: "d => d.Type === 'Phishing' || d.Type === 'Malware' || d.Type === 'Ransomware'",
      roaring: (ix) => ix.anyOf("Type", ["Phishing", "Malware", "Ransomware"]),
      regex: false,
      first: false,
    },
    {
      name: "$ne + $nin + equality",
      conditions: { Status: { $ne: "Closed" }, DataSource: { $nin: ["Splunk", "QRadar"] }, Stage: "Triage" },
      mongo: { Status: { $ne: "Closed" }, DataSource: { $nin: ["Splunk", "QRadar"] }, Stage: "Triage" },
      hand: (r) =>
        r.Status !== "Closed" &&
        r.DataSource !== "Splunk" &&
        r.DataSource !== "QRadar" &&
        r.Stage === "Triage",
      sql: "Status <> 'Closed' AND DataSource NOT IN ('Splunk', 'QRadar') AND Stage = 'Triage'",
      arquero:
        "d => d.Status !== 'Closed' && d.DataSource !== 'Splunk' && d.DataSource !== 'QRadar' && d.Stage === 'Triage'",
      roaring: (ix) =>
        ix.and(
          ix.not(ix.eq("Status", "Closed")),
          ix.not(ix.anyOf("DataSource", ["Splunk", "QRadar"])),
          ix.eq("Stage", "Triage"),
        ),
      regex: false,
      first: false,
    },
    {
      name: "equality + open-ended date",
      conditions: { Severity: "High", CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" } } },
      mongo: { Severity: "High", CreatedUtcTime: { $gte: "2024-06-01T00:00:00Z" } },
      hand: (r) => r.Severity === "High" && Date.parse(r.CreatedUtcTime) >= juneFrom,
      sql: "Severity = 'High' AND CreatedUtcTime >= TIMESTAMP '2024-06-01 00:00:00'",
      arquero: `d => d.Severity === 'High' && d.CreatedMs >= ${juneFrom}`,
      roaring: (ix) => ix.and(ix.eq("Severity", "High"), ix.created({ gte: juneFrom })),
      regex: false,
      first: true,
    },
  ];
}
