/**
 * The benchmark's queries, each in three forms that must select the same incidents of the generated data
 * (bench/generate-incidents.ts): our Search Conditions, the same query in the MongoDB dialect that mingo
 * and sift read (the generated `CreatedUtcTime` values are ISO strings of one format, so the peers compare
 * them as strings), and a hand-written predicate as a developer would write it over row objects.
 */
import type { GeneratedIncident } from "./generate-incidents.js";

/** One benchmark query. */
export interface BenchQuery {
  readonly name: string;
  /** Our Search Conditions JSON. */
  readonly conditions: unknown;
  /** The same query for mingo and sift. */
  readonly mongo: Record<string, unknown>;
  /** The hand-written predicate. */
  readonly hand: (incident: GeneratedIncident) => boolean;
  /** True when the query has a regular expression (the `count` target excludes these). */
  readonly regex: boolean;
  /** True when `findFirst` is measured on it too. */
  readonly first: boolean;
}

const ms = (iso: string): number => Date.parse(iso);

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
      regex: true,
      first: true,
    },
    {
      name: "single-field equality (Status: Open)",
      conditions: { Status: "Open" },
      mongo: { Status: "Open" },
      hand: (r) => r.Status === "Open",
      regex: false,
      first: true,
    },
    {
      name: "selective Number lookup",
      conditions: { Number: number },
      mongo: { Number: number },
      hand: (r) => r.Number === number,
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
      regex: false,
      first: true,
    },
    {
      name: "unanchored case-insensitive regex (Title)",
      conditions: { Title: { $regex: "Ransomware", $options: "i" } },
      mongo: { Title: /Ransomware/i },
      hand: (r) => /Ransomware/i.test(r.Title),
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
      regex: false,
      first: true,
    },
    {
      name: "$in on Type (3 labels)",
      conditions: { Type: { $in: ["Phishing", "Malware", "Ransomware"] } },
      mongo: { Type: { $in: ["Phishing", "Malware", "Ransomware"] } },
      hand: (r) => r.Type === "Phishing" || r.Type === "Malware" || r.Type === "Ransomware",
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
      regex: false,
      first: false,
    },
    {
      name: "equality + open-ended date",
      conditions: { Severity: "High", CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" } } },
      mongo: { Severity: "High", CreatedUtcTime: { $gte: "2024-06-01T00:00:00Z" } },
      hand: (r) => r.Severity === "High" && Date.parse(r.CreatedUtcTime) >= juneFrom,
      regex: false,
      first: true,
    },
  ];
}
