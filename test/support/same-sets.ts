/**
 * Two incident sets that must answer alike (for instance a compact set read two ways): the queries the
 * NDJSON reader tests ask, and the check that both sets give the same counts, records in order and first
 * records for each.
 */
import { expect } from "vitest";
import type { IncidentSet } from "../../src/incidents/incident-set.js";
import { untyped } from "./conditions-input.js";

/** Labels, keys, numbers, a case-insensitive regex and a date range: every column kind the build fills. */
export const READER_QUERIES: readonly object[] = [
  {},
  { Severity: "High" },
  { Severity: { $in: ["Low", "Medium"] } },
  { IncidentId: { $gt: 5 } },
  { IncidentId: 7 },
  { Title: { $regex: "ph", $options: "i" } },
  { Number: "N-3" },
  { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } },
];

/** Both sets have the same size and answer every query of `queries` alike (count, findAll, findFirst). */
export function expectSameSets(a: IncidentSet, b: IncidentSet, queries = READER_QUERIES): void {
  expect(a.size).toBe(b.size);
  for (const query of queries) {
    expect(a.count(untyped(query))).toBe(b.count(untyped(query)));
    expect(a.findAll(untyped(query))).toEqual(b.findAll(untyped(query)));
    expect(a.findFirst(untyped(query))).toEqual(b.findFirst(untyped(query)));
  }
}

/** `bytes` as chunks of `size` bytes (copies), for the chunks' path of `IncidentSet.fromNdjson`. */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.slice(at, at + size));
  return out;
}

/** The set a build resolves with, or what it rejects with (`Name: message`), so that two builds compare. */
export async function outcome(build: Promise<IncidentSet>): Promise<IncidentSet | string> {
  try {
    return await build;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}
