/**
 * A seeded generator of realistic incident records for the benchmark: every one of the 15 documented
 * Search Conditions keys of specification 2.3, plus `IncidentId`, with skewed label distributions, titles
 * of several words, and `CreatedUtcTime` spread over two years (2023-01-01 to 2024-12-31, whole seconds,
 * so ties occur at 1M and exercise the `IncidentId` tie-break of docs/semantics.md 1.9).
 *
 * The same seed and size always give the same records, so that every engine in one run sees the same data
 * and runs on different days are comparable.
 */
import { INGESTION_TYPE_LABELS, SEVERITY_LABELS, STATUS_LABELS } from "../src/conditions/catalog.js";

/** One generated incident record: plain JSON-like data, as a backend would hold it. */
export interface GeneratedIncident {
  IncidentId: number;
  Number: string;
  Type: string;
  Status: string;
  Stage: string;
  DataSource: string;
  IncidentSource: string;
  Connection: string;
  IngestionType: string;
  Category: string;
  ExternalKey?: string;
  CustomField1: string;
  CustomField2: string;
  Title: string;
  Severity: string;
  CreatedUtcTime: string;
}

/** The first and last instant of the generated `CreatedUtcTime` values (epoch ms, UTC). */
export const CREATED_FROM_MS = Date.UTC(2023, 0, 1);
export const CREATED_TO_MS = Date.UTC(2025, 0, 1) - 1000;

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A weighted choice over `values`, precomputed as a cumulative table. */
function weighted<T>(entries: readonly (readonly [T, number])[]): (r: number) => T {
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const [, w] of entries) {
    acc += w / total;
    cumulative.push(acc);
  }
  return (r) => {
    for (let i = 0; i < cumulative.length; i++) if (r < cumulative[i]!) return entries[i]![0];
    return entries[entries.length - 1]![0];
  };
}

const pickSeverity = weighted<string>([
  [SEVERITY_LABELS[0], 4], // Critical
  [SEVERITY_LABELS[1], 14], // High
  [SEVERITY_LABELS[2], 35], // Medium
  [SEVERITY_LABELS[3], 32], // Low
  [SEVERITY_LABELS[4], 15], // Informational
]);

const pickStatus = weighted<string>([
  [STATUS_LABELS[0], 22], // Open
  [STATUS_LABELS[1], 60], // Closed
  [STATUS_LABELS[2], 13], // In Progress
  [STATUS_LABELS[3], 5], // On Hold
]);

const pickIngestionType = weighted<string>([
  [INGESTION_TYPE_LABELS[0], 1], // Unknown
  [INGESTION_TYPE_LABELS[1], 34], // Schedule Job
  [INGESTION_TYPE_LABELS[2], 30], // Webhook
  [INGESTION_TYPE_LABELS[3], 4], // File
  [INGESTION_TYPE_LABELS[4], 6], // Command
  [INGESTION_TYPE_LABELS[5], 15], // Automation Rule
  [INGESTION_TYPE_LABELS[6], 8], // Manual Creation
  [INGESTION_TYPE_LABELS[7], 2], // Manual Escalation
]);

const TYPES = [
  "Phishing",
  "Malware",
  "Ransomware",
  "Brute Force",
  "Data Exfiltration",
  "Insider Threat",
  "Denial of Service",
  "Policy Violation",
  "Vulnerability",
  "Suspicious Login",
  "Lost Device",
  "Account Compromise",
] as const;
const pickType = weighted(TYPES.map((t, i) => [t, 24 - 2 * i] as const));

const STAGES = ["Triage", "Investigation", "Containment", "Eradication", "Recovery", "Closed"] as const;
const pickStage = weighted(STAGES.map((s, i) => [s, [30, 25, 15, 8, 7, 15][i]!] as const));

const DATA_SOURCES = [
  "Splunk",
  "QRadar",
  "Microsoft Sentinel",
  "CrowdStrike Falcon",
  "Email Gateway",
  "Palo Alto Firewall",
  "Okta",
  "AWS GuardDuty",
  "Defender for Endpoint",
  "Zscaler",
] as const;
const pickDataSource = weighted(DATA_SOURCES.map((s, i) => [s, 20 - i * 1.5] as const));

const INCIDENT_SOURCES = ["SIEM", "EDR", "User Report", "Threat Intel", "Email", "Cloud", "Network"] as const;
const pickIncidentSource = weighted(INCIDENT_SOURCES.map((s, i) => [s, 7 - i] as const));

const CONNECTIONS = Array.from({ length: 16 }, (_, i) => `Connection ${String.fromCharCode(65 + i)}`);
const pickConnection = weighted(CONNECTIONS.map((s, i) => [s, 16 - i] as const));

const CATEGORIES = ["Security", "Compliance", "IT", "Fraud", "Privacy", "Operations", "Physical", "Other"];
const pickCategory = weighted(CATEGORIES.map((s, i) => [s, 8 - i] as const));

const OWNERS = Array.from({ length: 48 }, (_, i) => `analyst${String(i + 1).padStart(2, "0")}`);

/** The first words of generated titles (the text bench builds its patterns from them). */
export const TITLE_ADJECTIVES = [
  "Suspicious",
  "Unusual",
  "Critical",
  "Repeated",
  "Failed",
  "Possible",
  "Confirmed",
  "Anomalous",
];
/** The subjects of generated titles (the text bench builds its patterns from them). */
export const TITLE_SUBJECTS = [
  "login",
  "phishing email",
  "malware download",
  "ransomware activity",
  "PowerShell execution",
  "privilege escalation",
  "data transfer",
  "DNS tunnelling",
  "port scan",
  "credential dumping",
  "VPN connection",
  "mailbox rule",
];
const TITLE_VERBS = ["detected on", "reported from", "observed on", "blocked on", "flagged for"];

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * Generates `count` incidents deterministically from `seed`.
 * @param count - number of incidents (e.g. 10_000, 100_000, 1_000_000)
 * @param seed - PRNG seed; the default is the benchmark's
 * @returns records with IncidentId 1…count; `ExternalKey` is missing on about 5% of records and empty on
 *   about 5%; CreatedUtcTime values are ISO-8601 UTC strings in whole seconds
 */
export function generateIncidents(count: number, seed = 20261121): GeneratedIncident[] {
  const random = seededRandom(seed);
  const span = (CREATED_TO_MS - CREATED_FROM_MS) / 1000;
  const out: GeneratedIncident[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const created = CREATED_FROM_MS + Math.floor(random() * (span + 1)) * 1000;
    const d = new Date(created);
    const ymd = `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}`;
    const id = i + 1;
    const host = `${random() < 0.5 ? "host" : "srv"}-${Math.floor(random() * 5000)}`;
    const title = `${TITLE_ADJECTIVES[Math.floor(random() * TITLE_ADJECTIVES.length)]} ${
      TITLE_SUBJECTS[Math.floor(random() * TITLE_SUBJECTS.length)]
    } ${TITLE_VERBS[Math.floor(random() * TITLE_VERBS.length)]} ${host}`;
    const incident: GeneratedIncident = {
      IncidentId: id,
      Number: `${ymd}-${id}`,
      Type: pickType(random()),
      Status: pickStatus(random()),
      Stage: pickStage(random()),
      DataSource: pickDataSource(random()),
      IncidentSource: pickIncidentSource(random()),
      Connection: pickConnection(random()),
      IngestionType: pickIngestionType(random()),
      Category: pickCategory(random()),
      CustomField1: OWNERS[Math.floor(random() * OWNERS.length)]!,
      CustomField2: String(1 + Math.floor(random() * 1000)),
      Title: title,
      Severity: pickSeverity(random()),
      CreatedUtcTime: d.toISOString().replace(".000Z", "Z"),
    };
    const keyRoll = random();
    if (keyRoll >= 0.05) {
      incident.ExternalKey =
        keyRoll < 0.1 ? "" : `EXT-${Math.floor(random() * 0xffffffff).toString(16)}-${id}`;
    }
    out[i] = incident;
  }
  return out;
}
