/**
 * Small value pools shared by the condition and incident arbitraries, so that generated Search Conditions
 * actually match generated incidents part of the time (a property over conditions that never match tests
 * nothing). Values follow the field catalogue of docs/semantics.md 1.6 and specification 2.3.
 */
import { INGESTION_TYPE_LABELS, SEVERITY_LABELS, STATUS_LABELS } from "../../src/conditions/catalog.js";

/** Labels of the enumerated fields of the default catalogue (docs/semantics.md 1.6). */
export const LABEL_POOLS = {
  IngestionType: INGESTION_TYPE_LABELS,
  Severity: SEVERITY_LABELS,
  Status: STATUS_LABELS,
} as const satisfies Record<string, readonly string[]>;

/** The enumerated fields of the default catalogue. */
export type EnumField = keyof typeof LABEL_POOLS;

/** The enumerated fields, as a list. */
export const ENUM_FIELDS: readonly EnumField[] = ["IngestionType", "Severity", "Status"];

/** The alternative fields of the default catalogue (pipe-separated alternatives, docs/semantics.md 1.2). */
export const ALTERNATIVE_FIELDS: readonly EnumField[] = ["IngestionType", "Status"];

/**
 * Values of the documented text fields (specification 2.3). A few values differ only in case or in
 * surrounding spaces, and one contains a newline, so that case-sensitivity, `$options: "i"` and `m`
 * are exercised.
 */
export const TEXT_POOLS = {
  Number: ["20240101-1", "20240101-2", "20240315-7", "20250101-10"],
  Type: ["Phishing", "Malware", "phishing", "Data Leak"],
  Stage: ["Triage", "Investigation", "Containment", "Closed"],
  DataSource: ["Splunk", "QRadar", "Email Gateway", "splunk"],
  IncidentSource: ["SIEM", "User Report", "Threat Intel"],
  Connection: ["Prod SIEM", "Lab", "prod siem"],
  Category: ["Security", "Compliance", "IT"],
  ExternalKey: ["EXT-1", "EXT-2", "ext-1", ""],
  CustomField1: ["alpha", "beta", "Alpha", " alpha "],
  CustomField2: ["1", "2", "10", "a|b"],
  Title: [
    "Phishing email reported",
    "Malware detected on host",
    "phishing link clicked",
    "Brute force login",
    "Multi\nline title",
    "Ünïcode title",
    "",
  ],
} as const satisfies Record<string, readonly string[]>;

/** The documented text fields. */
export type TextField = keyof typeof TEXT_POOLS;

/** The documented text fields, as a list. */
export const TEXT_FIELD_NAMES = Object.keys(TEXT_POOLS) as TextField[];

/**
 * Instants used by `CreatedUtcTime` values and `$date` operands: ISO-8601 UTC strings of the operand format
 * (docs/semantics.md 1.4), a few with milliseconds. Close together so that ranges split the pool.
 */
export const DATE_POOL: readonly string[] = [
  "2023-12-31T23:59:59Z",
  "2024-01-01T00:00:00Z",
  "2024-01-01T00:00:00.500Z",
  "2024-02-29T12:00:00Z",
  "2024-03-01T12:00:00Z",
  "2024-06-15T08:30:00Z",
  "2025-01-01T00:00:00Z",
];

/** Numbers of the open number fields (`Score`, `Custom.Priority`); includes 0, negatives and a fraction. */
export const NUMBER_POOL: readonly number[] = [-1, 0, 1, 2, 5, 7.5, 10];

/** Strings of the open fields (`Score` may hold a string, `Custom.Owner` is one). */
export const OPEN_STRING_POOL: readonly string[] = ["alice", "bob", "Alice", "5", "10", ""];

/** Elements of the `Tags` array field. */
export const TAG_POOL: readonly string[] = ["phishing", "malware", "vip", "external", "Phishing"];

/**
 * Regex patterns valid in RE2 and with the same meaning in JavaScript (so that a reference engine agrees):
 * anchors, classes, alternation, a dot, an empty pattern.
 */
export const REGEX_POOL: readonly string[] = [
  "^Phish",
  "phish",
  "host$",
  "^$",
  "",
  "[0-9]+",
  "^2024",
  "a.b",
  "^line",
  "Multi.line",
  "mal|brute",
  "^(alpha|beta)$",
  "ali",
  "Ü",
  "\\d{2}",
];

/** `$options` values: flags from `i`, `m`, `s`, each at most once, in any order (docs/semantics.md 1.4). */
export const REGEX_OPTIONS_POOL: readonly string[] = ["", "i", "m", "s", "im", "mi", "is", "ims", "sm"];

/**
 * The open (uncatalogued) fields used by the arbitraries, with what they hold in records:
 * `Score` (number, or sometimes a string/boolean/null), `Tags` (array of strings), `Custom.Owner` and
 * `Custom.Priority` (inside a nested object), `Flag` (boolean), `SeenAt` (a JS Date: a date in an open
 * field), `Extra` (usually missing). Conditions also name `Custom` (the whole sub-document) and `Tags.0`
 * (a numeric path segment into an array).
 */
export const OPEN_FIELDS = [
  "Score",
  "Tags",
  "Custom.Owner",
  "Custom.Priority",
  "Flag",
  "SeenAt",
  "Extra",
] as const;

/** An open field of the arbitraries. */
export type OpenField = (typeof OPEN_FIELDS)[number];

/**
 * Field names that exist on `Object.prototype` but never as own record properties: a condition on them
 * must read own properties only (docs/semantics.md 1.1), so `{toString: {$exists: true}}` matches no plain record.
 */
export const INHERITED_NAMES: readonly string[] = ["toString", "valueOf", "hasOwnProperty"];

/** The keys refused everywhere in Search Conditions (docs/semantics.md 1.1). */
export const FORBIDDEN_KEYS: readonly string[] = ["__proto__", "prototype", "constructor"];
