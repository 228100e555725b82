/**
 * Generates examples/sample-dataset.json: the bundled sample of `loadSampleDataset()`. Deterministic (a
 * fixed seed and fixed dates), so re-running it yields the same file.
 *
 * Contents: three sites in different time zones, users with different site access, 60 incidents using every
 * documented field of specification 2.3 and every label of docs/semantics.md 1.6, timelines of 5–40 entries with
 * MITRE ATT&CK tactics and techniques (times in the site's zone), playbooks with and without the
 * 'On Incident External Action' trigger, artifact types, and artifacts whose names are shared across types.
 *
 * Usage: npx tsx scripts/generate-sample-dataset.ts [output path]
 */

import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TZDate } from "@date-fns/tz";
import { format } from "date-fns";
import { formatDatasetIssues, validateDataset } from "../src/commands/memory/dataset.js";
import { INGESTION_TYPE_LABELS, SEVERITY_LABELS, STATUS_LABELS } from "../src/conditions/catalog.js";

const INCIDENTS_OUTPUT = fileURLToPath(new URL("../examples/incidents.json", import.meta.url));
const OUTPUT = process.argv[2] ?? fileURLToPath(new URL("../examples/sample-dataset.json", import.meta.url));

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SITES = [
  { name: "Security Operations", timeZone: "America/New_York" },
  { name: "EMEA SOC", timeZone: "Europe/Berlin" },
  { name: "APAC SOC", timeZone: "Asia/Kolkata" },
] as const;

const USERS = [
  { username: "alice", sites: ["Security Operations", "EMEA SOC"] },
  { username: "bob", sites: ["EMEA SOC"] },
  { username: "chandra", sites: ["APAC SOC"] },
  { username: "soc-admin", sites: ["Security Operations", "EMEA SOC", "APAC SOC"] },
  { username: "playbook-bot", sites: ["Security Operations", "EMEA SOC", "APAC SOC"] },
];

/** Incident types with their titles, categories and the tactics their timelines use. */
const TYPES = [
  {
    type: "Phishing",
    category: "Email Threat",
    titles: [
      "Credential phishing email reported",
      "Suspicious invoice attachment",
      "Spoofed CEO payment request",
    ],
    tactics: ["Initial Access", "Execution", "Credential Access"],
  },
  {
    type: "Malware",
    category: "Endpoint Threat",
    titles: ["Trojan detected on workstation", "Malicious PowerShell execution", "Unsigned driver loaded"],
    tactics: ["Execution", "Persistence", "Defense Evasion", "Command and Control"],
  },
  {
    type: "Ransomware",
    category: "Endpoint Threat",
    titles: ["Mass file encryption detected", "Ransom note found on file share", "Shadow copies deleted"],
    tactics: ["Execution", "Impact", "Defense Evasion", "Lateral Movement"],
  },
  {
    type: "Data Exfiltration",
    category: "Data Loss",
    titles: [
      "Large upload to unknown cloud storage",
      "DNS tunnelling suspected",
      "Sensitive files copied to USB",
    ],
    tactics: ["Collection", "Exfiltration", "Command and Control"],
  },
  {
    type: "Brute Force",
    category: "Identity Threat",
    titles: [
      "Repeated failed VPN logins",
      "Password spraying against Entra ID",
      "SSH brute force on bastion",
    ],
    tactics: ["Credential Access", "Initial Access", "Discovery"],
  },
  {
    type: "Policy Violation",
    category: "Compliance",
    titles: [
      "Unapproved remote access tool",
      "Torrent client on corporate laptop",
      "Shared admin account used",
    ],
    tactics: ["Persistence", "Privilege Escalation"],
  },
] as const;

const TECHNIQUES: Record<string, readonly string[]> = {
  "Initial Access": ["T1566 Phishing", "T1078 Valid Accounts", "T1190 Exploit Public-Facing Application"],
  Execution: [
    "T1059 Command and Scripting Interpreter",
    "T1204 User Execution",
    "T1047 Windows Management Instrumentation",
  ],
  Persistence: [
    "T1547 Boot or Logon Autostart Execution",
    "T1053 Scheduled Task/Job",
    "T1136 Create Account",
  ],
  "Privilege Escalation": [
    "T1068 Exploitation for Privilege Escalation",
    "T1548 Abuse Elevation Control Mechanism",
  ],
  "Defense Evasion": [
    "T1562 Impair Defenses",
    "T1070 Indicator Removal",
    "T1027 Obfuscated Files or Information",
  ],
  "Credential Access": [
    "T1110 Brute Force",
    "T1003 OS Credential Dumping",
    "T1556 Modify Authentication Process",
  ],
  Discovery: ["T1087 Account Discovery", "T1046 Network Service Discovery"],
  "Lateral Movement": ["T1021 Remote Services", "T1570 Lateral Tool Transfer"],
  Collection: ["T1005 Data from Local System", "T1114 Email Collection"],
  "Command and Control": ["T1071 Application Layer Protocol", "T1572 Protocol Tunneling"],
  Exfiltration: ["T1567 Exfiltration Over Web Service", "T1048 Exfiltration Over Alternative Protocol"],
  Impact: ["T1486 Data Encrypted for Impact", "T1490 Inhibit System Recovery"],
};

const STAGES = ["Detection", "Triage", "Investigation", "Containment", "Eradication", "Recovery", "Closed"];
const DATA_SOURCES = [
  "Microsoft Defender",
  "Splunk",
  "CrowdStrike Falcon",
  "Proofpoint",
  "Palo Alto NGFW",
  "Okta",
];
const INCIDENT_SOURCES = ["SIEM", "EDR", "Email Gateway", "User Report", "Threat Intel", "Firewall"];
const CONNECTIONS = [
  "defender-prod",
  "splunk-cloud",
  "falcon-eu",
  "proofpoint-tap",
  "pan-fw-01",
  "okta-main",
];
const OWNERS = ["Tier 1", "Tier 2", "Threat Hunting", "IR Lead"];
const REGIONS = ["North America", "Europe", "Asia Pacific"];
const EVENT_TYPES = ["Alert", "Note", "Task", "Playbook", "Escalation", "Artifact", "Status Change"];
const RISK_LEVELS = ["Low", "Medium", "High", "Critical"];
const HOSTS = ["WS-0142", "WS-0877", "SRV-FILE-02", "LAP-3391", "SRV-DC-01", "VPN-GW-1"];
const SUMMARIES: Record<string, readonly string[]> = {
  Alert: [
    "Detection rule fired on {host}",
    "Correlated alert raised for {host}",
    "Threat intel match on {host}",
  ],
  Note: ["Analyst note on {host}", "User interviewed about {host}", "Shift handover notes"],
  Task: ["Collect memory image of {host}", "Reset credentials for affected user", "Block sender domain"],
  Playbook: [
    "Enrichment playbook completed",
    "Containment playbook isolated {host}",
    "Notification sent to owner",
  ],
  Escalation: ["Escalated to Tier 2", "Escalated to incident commander", "Severity raised after review"],
  Artifact: ["Hash added as artifact", "Domain added as artifact", "IP address added as artifact"],
  "Status Change": ["Status changed to In Progress", "Status changed to On Hold", "Status changed to Open"],
};

/** Formats an instant as the timeline `Time` of docs/semantics.md 2: `yyyy-MM-dd HH:mm:ss` in the site's zone. */
function localTime(ms: number, timeZone: string): string {
  return format(new TZDate(ms, timeZone), "yyyy-MM-dd HH:mm:ss");
}

function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

const BASE = Date.UTC(2024, 0, 2, 8, 0, 0);
const DAY = 86_400_000;
const INCIDENT_COUNT = 60;

/**
 * Builds the sample dataset (deterministic: the same value on every call).
 * @returns the dataset as plain JSON values
 */
export function generateSampleDataset(): Record<string, unknown> {
  const random = prng(20240501);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const incidents: Record<string, unknown>[] = [];
  const timelineEntries: Record<string, unknown>[] = [];
  const perDay = new Map<string, number>();
  let timelineId = 1000;

  for (let i = 0; i < INCIDENT_COUNT; i++) {
    const site = SITES[i % SITES.length]!;
    const kind = TYPES[i % TYPES.length]!;
    // Spread over about four months; incidents 7 and 10 (same site) share a creation time, to exercise the
    // IncidentId tie-break of docs/semantics.md 1.9.
    const created = i === 9 ? (incidents[6]!.__created as number) : BASE + i * 2 * DAY + int(0, DAY - 1);
    const createdSeconds = created - (created % 1000);
    const day = format(new TZDate(createdSeconds, site.timeZone), "yyyyMMdd");
    const seq = (perDay.get(day) ?? 0) + 1;
    perDay.set(day, seq);
    const number = `${day}-${seq}`;
    const incident: Record<string, unknown> = {
      IncidentId: 1001 + i,
      Number: number,
      Site: site.name,
      Title: `${pick(kind.titles)} (${pick(HOSTS)})`,
      Type: kind.type,
      Status: STATUS_LABELS[i % STATUS_LABELS.length],
      Stage: pick(STAGES),
      DataSource: DATA_SOURCES[i % DATA_SOURCES.length],
      IncidentSource: pick(INCIDENT_SOURCES),
      Connection: CONNECTIONS[i % CONNECTIONS.length],
      IngestionType: INGESTION_TYPE_LABELS[i % INGESTION_TYPE_LABELS.length],
      Category: kind.category,
      ExternalKey: `EXT-${(48_211 + i * 37).toString(36).toUpperCase()}`,
      CustomField1: pick(OWNERS),
      CustomField2: REGIONS[SITES.indexOf(site)],
      Severity: SEVERITY_LABELS[(i * 3) % SEVERITY_LABELS.length],
      CreatedUtcTime: isoUtc(createdSeconds),
      __created: createdSeconds,
    };
    incidents.push(incident);

    // Timelines: 5 to 40 entries; the first incident has 5 and the second 40 so that both bounds occur.
    const count = i === 0 ? 5 : i === 1 ? 40 : int(5, 40);
    let t = createdSeconds;
    for (let e = 0; e < count; e++) {
      // One entry has exactly the time of the one before it (ties go by TimelineID, docs/semantics.md 2).
      if (!(i === 2 && e === 3)) t += int(1, 180) * 60_000 + int(0, 59) * 1000;
      const eventType = e === 0 ? "Alert" : pick(EVENT_TYPES);
      const tactic = pick(kind.tactics);
      const tactics = random() < 0.3 ? [...new Set([tactic, pick(kind.tactics)])] : [tactic];
      const techniques = tactics.map((tc) => pick(TECHNIQUES[tc]!));
      const host = pick(HOSTS);
      const author = eventType === "Playbook" || eventType === "Alert" ? "System" : pick(USERS).username;
      timelineEntries.push({
        IncidentNumber: number,
        Site: site.name,
        TimelineID: timelineId++,
        Time: localTime(t, site.timeZone),
        Summary: pick(SUMMARIES[eventType]!).replace("{host}", host),
        Note: eventType === "Note" ? `Checked ${host}; see attached evidence.` : "",
        EventType: eventType,
        Tactic: tactics,
        Technique: techniques,
        RiskLevel: pick(RISK_LEVELS),
        Description: `${eventType} for ${kind.type.toLowerCase()} incident ${number} on ${host}.`,
        Author: author,
      });
    }
  }
  for (const incident of incidents) delete incident.__created;

  const playbooks = [
    {
      name: "Phishing Triage",
      triggers: ["On Incident Creation", "On Incident External Action"],
      incidentTypes: ["Phishing"],
    },
    {
      name: "Endpoint Containment",
      triggers: ["On Incident External Action"],
      incidentTypes: ["Malware", "Ransomware"],
    },
    {
      name: "Indicator Enrichment",
      triggers: ["On Incident External Action", "On Artifact Added"],
      incidentTypes: ["Phishing", "Malware", "Ransomware", "Data Exfiltration", "Brute Force"],
    },
    {
      name: "Account Lockout",
      triggers: ["On Incident External Action"],
      incidentTypes: ["Brute Force"],
    },
    {
      name: "GDPR Breach Assessment",
      triggers: ["On Incident External Action"],
      incidentTypes: ["Data Exfiltration"],
      sites: ["EMEA SOC"],
    },
    {
      name: "Management Notification",
      triggers: ["On Incident Escalation"],
      incidentTypes: ["Ransomware", "Data Exfiltration"],
    },
  ];

  const artifactTypes = [
    { id: 1, label: "IP Address" },
    { id: 2, label: "Domain" },
    { id: 3, label: "URL" },
    { id: 4, label: "File Hash" },
    { id: 5, label: "Email Address" },
    { id: 6, label: "Hostname" },
    { id: 7, label: "User Account" },
    { id: 8, label: "File Name" },
  ];

  const artifacts = [
    { name: "185.220.101.34", typeId: 1, site: "Security Operations" },
    { name: "10.20.30.40", typeId: 1, site: "EMEA SOC" },
    { name: "login-micros0ft.com", typeId: 2, site: "Security Operations" },
    // The same name as a Domain and as a Hostname: AddNotesToArtifacts needs `Artifact Type` for it.
    { name: "fileshare.corp.example", typeId: 2, site: "Security Operations" },
    { name: "fileshare.corp.example", typeId: 6, site: "Security Operations" },
    { name: "https://login-micros0ft.com/owa", typeId: 3, site: "Security Operations" },
    {
      name: "44d88612fea8a8f36de82e1278abb02f",
      typeId: 4,
      site: "EMEA SOC",
      notes: [{ text: "EICAR test file hash; benign.", author: "bob", time: "2024-02-01T09:30:00Z" }],
    },
    { name: "billing@supplier-invoices.example", typeId: 5, site: "Security Operations" },
    // Shared across types: a user account and a hostname both called "admin".
    { name: "admin", typeId: 7, site: "APAC SOC" },
    { name: "admin", typeId: 6, site: "APAC SOC" },
    { name: "WS-0142", typeId: 6, site: "Security Operations" },
    { name: "invoice_2024.pdf.exe", typeId: 8, site: "EMEA SOC" },
    // Shared across types: a file name and a URL path.
    { name: "update.ps1", typeId: 8, site: "APAC SOC" },
    { name: "update.ps1", typeId: 3, site: "APAC SOC" },
    {
      name: "svc-backup",
      typeId: 7,
      site: "EMEA SOC",
      notes: [
        { text: "Service account; password rotated.", author: "alice", time: "2024-03-04T14:05:00Z" },
        { text: "Owner confirmed: infrastructure team.", author: "bob", time: "2024-03-05T08:00:00Z" },
      ],
    },
  ].map((a) => ({ notes: [], ...a }));

  return JSON.parse(
    JSON.stringify({
      sites: SITES,
      users: USERS,
      incidents,
      timelineEntries,
      playbooks,
      artifactTypes,
      artifacts,
    }),
  );
}

function main(): void {
  const dataset = generateSampleDataset();

  const checked = validateDataset(dataset);
  if (!checked.ok) {
    console.error(`The generated dataset is invalid:\n${formatDatasetIssues(checked.issues)}`);
    process.exit(1);
  }
  writeFileSync(OUTPUT, `${JSON.stringify(dataset, null, 1)}\n`);
  // The CLI's bundled example for `incident-query match` (written only beside the bundled dataset).
  if (process.argv[2] === undefined)
    writeFileSync(INCIDENTS_OUTPUT, `${JSON.stringify(dataset.incidents, null, 1)}\n`);
  console.log(
    `Wrote ${OUTPUT}: ${Object.entries(dataset)
      .map(([k, v]) => `${(v as unknown[]).length} ${k}`)
      .join(", ")}.`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
