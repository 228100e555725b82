/**
 * `IncidentSet.fromNdjson` through the conformance harness: each case's incidents are written as
 * NDJSON (one `JSON.stringify` line each) and read back into a compact set, which keeps the lines' bytes and
 * materializes records on demand. The adapter checks that the compact set agrees with
 * `new IncidentSet(records)` built from the same parsed lines (`findAll` in the same order, `count`,
 * `findFirst`), as does the compact set read from a byte reader (`NdjsonByteReader`, reads of 13 bytes that
 * end anywhere), and answers from the compact set's own `findAll`. An incident whose JSON form is not the
 * same record (a `Date`, `undefined`, `NaN`, a class instance, a Proxy) cannot be written as NDJSON: the
 * adapter answers `undefined` for it (the harness then does not compare it), and leaves it out of the set.
 */
import { isDeepStrictEqual } from "node:util";
import { beforeAll, expect } from "vitest";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import type { NdjsonByteReader } from "../../src/incidents/ndjson.js";
import { untyped } from "../support/conditions-input.js";
import { allCases, type Incident, runConformance } from "./harness.js";
import type { MatchCase } from "./types.js";

/** The incident's NDJSON line, or undefined when its JSON form is not the same record. */
function lineOf(incident: Incident): string | undefined {
  try {
    const text = JSON.stringify(incident);
    return isDeepStrictEqual(JSON.parse(text), incident) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** A byte reader over `bytes` that answers at most `size` bytes a read. */
function readerOf(bytes: Uint8Array, size: number): NdjsonByteReader {
  let at = 0;
  return {
    async read(buffer, offset, length) {
      const n = Math.min(length, size, bytes.length - at);
      buffer.set(bytes.subarray(at, at + n), offset);
      at += n;
      return { bytesRead: n };
    },
  };
}

interface Built {
  readonly lines: readonly (string | undefined)[];
  readonly compact: IncidentSet;
  readonly fromReader: IncidentSet;
  readonly reference: IncidentSet;
}

const built = new Map<MatchCase, Built>();

beforeAll(async () => {
  for (const matchCase of allCases) {
    const lines = matchCase.incidents.map((entry) => lineOf(entry.incident));
    const kept = lines.filter((line): line is string => line !== undefined);
    const options = matchCase.catalog === undefined ? {} : { catalog: matchCase.catalog };
    // Chunks that split lines anywhere: the reader must join them.
    const text = kept.map((line) => `${line}\n`).join("");
    const chunks = [text.slice(0, 7), text.slice(7, 30), text.slice(30)].map((part) =>
      new TextEncoder().encode(part),
    );
    const compact = await IncidentSet.fromNdjson(chunks, options);
    const fromReader = await IncidentSet.fromNdjson(readerOf(new TextEncoder().encode(text), 13), options);
    const reference = new IncidentSet(
      kept.map((line) => JSON.parse(line) as Incident),
      options,
    );
    built.set(matchCase, { lines, compact, fromReader, reference });
  }
});

runConformance({
  engine: "incident-set:ndjson",
  run: (conditions, _incidents, catalog, matchCase) => {
    const { lines, compact, fromReader, reference } = built.get(matchCase)!;
    const condition = parseSearchConditions(conditions, { catalog });
    const found = compact.findAll(condition);
    expect(found, "fromNdjson and new IncidentSet agree on findAll").toEqual(reference.findAll(condition));
    expect(fromReader.findAll(condition), "fromNdjson from a byte reader, findAll").toEqual(found);
    expect(fromReader.count(untyped(conditions)), "fromNdjson from a byte reader, count").toBe(found.length);
    expect(fromReader.findFirst(condition), "fromNdjson from a byte reader, findFirst").toEqual(
      reference.findFirst(condition),
    );
    expect(compact.count(untyped(conditions)), "count").toBe(found.length);
    expect(compact.findFirst(untyped(conditions)), "findFirst").toEqual(reference.findFirst(condition));
    if (found.length > 0) {
      expect(compact.findFirst(condition), "a fresh object on every read").not.toBe(
        compact.findFirst(condition),
      );
    }
    const matched = new Set(found.map((record) => JSON.stringify(record)));
    return lines.map((line) => (line === undefined ? undefined : matched.has(line)));
  },
});
