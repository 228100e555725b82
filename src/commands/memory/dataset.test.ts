import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../../test/support/fc.js";
import { emptyEntryText } from "../../../test/support/timeline-entries.js";
import { DEFAULT_CATALOG, extendCatalog } from "../../conditions/catalog.js";
import { TIMELINE_TIME_FORMAT, validateTimelineEntries } from "../../timeline/index.js";
import { DEFAULT_PROGRESS_INTERVAL, MAX_DATASET_ISSUES, parseDataset, validateDataset } from "./dataset.js";
import { loadSampleDataset } from "./sample-dataset.js";

const BASE = {
  sites: [{ name: "HQ", timeZone: "America/New_York" }, { name: "Lab" }],
  users: [{ username: "alice", sites: ["HQ"] }],
  incidents: [
    { IncidentId: 1, Number: "1", Site: "HQ", Severity: "High", CreatedUtcTime: "2024-01-01T00:00:00Z" },
  ],
  timelineEntries: [{ IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 01:00:00" }],
  playbooks: [{ name: "P", triggers: ["On Incident External Action"], incidentTypes: ["Phishing"] }],
  artifactTypes: [{ id: 1, label: "IP Address" }],
  artifacts: [{ name: "10.0.0.1", typeId: 1, site: "HQ" }],
};

/** BASE with one list replaced. */
function withList(key: keyof typeof BASE, list: unknown[]): unknown {
  return { ...BASE, [key]: list };
}

function paths(input: unknown): string[] {
  const result = validateDataset(input);
  return result.ok ? [] : result.issues.map((i) => JSON.stringify(i.path));
}

describe("validateDataset", () => {
  it("accepts a valid dataset and fills in defaults", () => {
    const result = validateDataset(BASE);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.dataset.timelineEntries).toEqual([
      { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 01:00:00", ...emptyEntryText() },
    ]);
    expect(result.dataset.artifacts).toEqual([{ name: "10.0.0.1", typeId: 1, site: "HQ", notes: [] }]);
  });

  it("accepts an empty object as an empty dataset", () => {
    expect(validateDataset({})).toEqual({
      ok: true,
      dataset: {
        sites: [],
        users: [],
        incidents: [],
        timelineEntries: [],
        playbooks: [],
        artifactTypes: [],
        artifacts: [],
      },
    });
  });

  it("returns a copy: changing the result never changes the input", () => {
    const input = structuredClone(BASE);
    const result = validateDataset(input);
    if (!result.ok) throw new Error("expected ok");
    (result.dataset.incidents![0] as Record<string, unknown>).Title = "changed";
    expect(input).toEqual(BASE);
  });

  const cases: [string, unknown, string[]][] = [
    ["not an object", [], ["[]"]],
    ["unknown top-level key", { ...BASE, incident: [] }, ['["incident"]']],
    ["a list that is not an array", { ...BASE, users: {} }, ['["users"]']],
    ["site without a name", withList("sites", [{ timeZone: "UTC" }, ...BASE.sites]), ['["sites",0,"name"]']],
    [
      "invalid time zone",
      withList("sites", [{ name: "HQ", timeZone: "Mars/Base" }]),
      ['["sites",0,"timeZone"]'],
    ],
    [
      "duplicate site",
      withList("sites", [{ name: "HQ" }, { name: "HQ" }, { name: "Lab" }]),
      ['["sites",1,"name"]'],
    ],
    [
      "misspelled site key",
      withList("sites", [{ name: "HQ", timezone: "UTC" }, { name: "Lab" }]),
      ['["sites",0,"timezone"]'],
    ],
    [
      "user with an unknown site",
      withList("users", [{ username: "a", sites: ["HQ", "Moon"] }]),
      ['["users",0,"sites",1]'],
    ],
    ["user sites not an array", withList("users", [{ username: "a", sites: "HQ" }]), ['["users",0,"sites"]']],
    [
      "incident without IncidentId",
      withList("incidents", [{ Number: "1", Site: "HQ" }]),
      ['["incidents",0,"IncidentId"]'],
    ],
    [
      "IncidentId not an integer",
      withList("incidents", [{ IncidentId: 1.5, Number: "1", Site: "HQ" }]),
      ['["incidents",0,"IncidentId"]'],
    ],
    [
      "duplicate IncidentId",
      withList("incidents", [
        { IncidentId: 1, Number: "1", Site: "HQ" },
        { IncidentId: 1, Number: "2", Site: "HQ" },
      ]),
      ['["incidents",1,"IncidentId"]'],
    ],
    [
      "duplicate Number in a site",
      withList("incidents", [
        { IncidentId: 1, Number: "1", Site: "HQ" },
        { IncidentId: 2, Number: "1", Site: "HQ" },
      ]),
      ['["incidents",1,"Number"]'],
    ],
    [
      "unknown Severity label",
      withList("incidents", [{ IncidentId: 1, Number: "1", Site: "HQ", Severity: "high" }]),
      ['["incidents",0,"Severity"]'],
    ],
    [
      "text field not a string",
      withList("incidents", [{ IncidentId: 1, Number: "1", Site: "HQ", Title: 5 }]),
      ['["incidents",0,"Title"]'],
    ],
    [
      "CreatedUtcTime not ISO UTC",
      withList("incidents", [
        { IncidentId: 1, Number: "1", Site: "HQ", CreatedUtcTime: "2024-02-30T00:00:00Z" },
      ]),
      ['["incidents",0,"CreatedUtcTime"]'],
    ],
    [
      "incident of an unknown site (the entry of HQ's incident 1 has no incident then)",
      withList("incidents", [{ IncidentId: 1, Number: "1", Site: "Moon" }]),
      ['["incidents",0,"Site"]', '["timelineEntries",0,"IncidentNumber"]'],
    ],
    [
      "prototype key inside an incident",
      withList("incidents", [
        JSON.parse('{"IncidentId":1,"Number":"1","Site":"HQ","Custom":{"__proto__":{"x":1}}}'),
      ]),
      ['["incidents",0,"Custom","__proto__"]'],
    ],
    [
      "entry of an unknown incident",
      withList("timelineEntries", [
        { IncidentNumber: "9", Site: "HQ", TimelineID: 1, Time: "2024-01-01 00:00:00" },
      ]),
      ['["timelineEntries",0,"IncidentNumber"]'],
    ],
    [
      "entry with an ISO time",
      withList("timelineEntries", [
        { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01T00:00:00Z" },
      ]),
      ['["timelineEntries",0,"Time"]'],
    ],
    [
      "entry with a Tactic string",
      withList("timelineEntries", [
        { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 00:00:00", Tactic: "Execution" },
      ]),
      ['["timelineEntries",0,"Tactic"]'],
    ],
    [
      "entry with a misspelled field",
      withList("timelineEntries", [
        { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 00:00:00", Tactics: [] },
      ]),
      ['["timelineEntries",0,"Tactics"]'],
    ],
    [
      "duplicate TimelineID in an incident",
      withList("timelineEntries", [
        { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 00:00:00" },
        { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 00:00:01" },
      ]),
      ['["timelineEntries",1,"TimelineID"]'],
    ],
    [
      "playbook without triggers",
      withList("playbooks", [{ name: "P", incidentTypes: [] }]),
      ['["playbooks",0,"triggers"]'],
    ],
    [
      "playbook with an unknown site",
      withList("playbooks", [{ name: "P", triggers: [], incidentTypes: [], sites: ["Moon"] }]),
      ['["playbooks",0,"sites",0]'],
    ],
    [
      "artifact type labels equal ignoring case",
      withList("artifactTypes", [
        { id: 1, label: "IP Address" },
        { id: 2, label: "ip address" },
      ]),
      ['["artifactTypes",1,"label"]'],
    ],
    [
      "artifact type label that is a number",
      withList("artifactTypes", [{ id: 1, label: "12" }]),
      ['["artifactTypes",0,"label"]'],
    ],
    [
      "artifact of an unknown type",
      withList("artifacts", [{ name: "a", typeId: 9, site: "HQ" }]),
      ['["artifacts",0,"typeId"]'],
    ],
    [
      "duplicate artifact",
      withList("artifacts", [
        { name: "a", typeId: 1, site: "HQ" },
        { name: "a", typeId: 1, site: "HQ" },
      ]),
      ['["artifacts",1]'],
    ],
    [
      "note with a bad time",
      withList("artifacts", [
        { name: "a", typeId: 1, site: "HQ", notes: [{ text: "t", author: "a", time: "yesterday" }] },
      ]),
      ['["artifacts",0,"notes",0,"time"]'],
    ],
  ];
  it.each(cases)("reports %s at its path", (_name, input, expected) => {
    expect(paths(input)).toEqual(expected);
  });

  it("reports every problem, not only the first", () => {
    const input = {
      sites: [{ name: "HQ", timeZone: "Nowhere/City" }],
      users: [{ username: "", sites: ["Moon"] }],
      incidents: [{ IncidentId: -1, Number: "", Site: "HQ", Status: "Opne" }],
    };
    expect(paths(input)).toEqual([
      '["sites",0,"timeZone"]',
      '["users",0,"username"]',
      '["users",0,"sites",0]',
      '["incidents",0,"IncidentId"]',
      '["incidents",0,"Number"]',
      '["incidents",0,"Status"]',
    ]);
  });

  it("writes messages that say what was expected and what was found", () => {
    const result = validateDataset(
      withList("incidents", [{ IncidentId: 1, Number: "1", Site: "HQ", Severity: "high" }]),
    );
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          code: "unknown_label",
          path: ["incidents", 0, "Severity"],
          message: `Expected one of 'Critical', 'High', 'Medium', 'Low', 'Informational' for Severity, found the string "high".`,
        },
      ],
    });
  });

  it("checks incident fields against the catalogue it is given", () => {
    const catalog = extendCatalog(DEFAULT_CATALOG, { labels: { Severity: ["Unassigned"] } });
    const input = withList("incidents", [{ IncidentId: 1, Number: "1", Site: "HQ", Severity: "Unassigned" }]);
    expect(validateDataset(input).ok).toBe(false);
    expect(validateDataset(input, { catalog }).ok).toBe(true);
  });

  it("names the Time format of a timeline entry as validateTimelineEntries does (one rule, one constant)", () => {
    const time = "2024-01-01T00:00:00Z";
    const result = validateDataset(
      withList("timelineEntries", [{ IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: time }]),
    );
    expect(result.ok).toBe(false);
    const message = result.ok ? "" : (result.issues[0]?.message ?? "");
    expect(message).toContain(TIMELINE_TIME_FORMAT);
    const timeline = validateTimelineEntries([{ TimelineID: 1, Time: time, ...emptyEntryText() }]);
    expect(timeline.ok ? "" : JSON.stringify(timeline)).toContain(TIMELINE_TIME_FORMAT);
    // Both accept what the format says.
    expect(
      validateDataset(
        withList("timelineEntries", [{ ...BASE.timelineEntries[0], Time: "2024-03-01 12:00:00" }]),
      ).ok,
    ).toBe(true);
  });

  it("caps the number of listed issues", () => {
    const incidents = Array.from({ length: MAX_DATASET_ISSUES + 50 }, () => ({
      IncidentId: "x",
      Number: "1",
      Site: "HQ",
    }));
    const result = validateDataset({ ...BASE, incidents });
    if (result.ok) throw new Error("expected issues");
    expect(result.issues).toHaveLength(MAX_DATASET_ISSUES + 1);
    expect(result.issues.at(-1)!.message).toMatch(/^\d+ more problems were found and not listed\.$/);
  });

  it("refuses deeply nested incident fields without overflowing the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = { d: deep };
    const result = validateDataset(
      withList("incidents", [{ IncidentId: 1, Number: "1", Site: "HQ", Custom: deep }]),
    );
    expect(result.ok).toBe(false);
  });

  it("never throws and never pollutes a prototype, whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true, maxDepth: 4 }), (value) => {
        validateDataset(value);
        validateDataset({
          sites: [{ name: "HQ" }],
          incidents: [value],
          timelineEntries: [value],
          artifacts: [value],
        });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      fcOptions(300),
    );
  });

  it("a valid result always validates again to the same dataset (property)", () => {
    const site = fc.constantFrom("HQ", "Lab");
    const arbitrary = fc.record({
      incidents: fc.uniqueArray(
        fc.record({
          IncidentId: fc.integer({ min: 1, max: 50 }),
          Number: fc.string({ minLength: 1, maxLength: 4 }).filter((s) => s.trim() !== ""),
          Site: site,
          Title: fc.string(),
          Severity: fc.constantFrom("Critical", "High", "Low"),
        }),
        { selector: (i) => i.IncidentId, maxLength: 10 },
      ),
    });
    fc.assert(
      fc.property(arbitrary, ({ incidents }) => {
        const first = validateDataset({ sites: BASE.sites, incidents });
        if (!first.ok) return; // duplicate Numbers in a site are legitimately refused
        expect(validateDataset(first.dataset)).toEqual(first);
      }),
      fcOptions(200),
    );
  });
});

describe("parseDataset", () => {
  it("reports text that is not JSON as one issue at the root", () => {
    const result = parseDataset("{ sites: [] ");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]!.path).toEqual([]);
    expect(result.issues[0]!.message).toMatch(/^Expected a JSON document: /);
  });

  it("returns a deep copy: no object or array of the result is one of the input's", () => {
    // createMemoryBackend relies on this: it keeps the validated dataset without cloning it again.
    const sample = loadSampleDataset() as unknown as { incidents: Record<string, unknown>[] };
    sample.incidents.push({
      ...sample.incidents[0],
      IncidentId: 999_999,
      Number: "nested-1",
      Custom: { a: [1, { b: [null, { c: "d" }] }], e: [] },
    });
    const result = validateDataset(sample);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const inputObjects = new Set<object>();
    const collect = (value: unknown) => {
      if (typeof value !== "object" || value === null) return;
      inputObjects.add(value);
      for (const child of Object.values(value)) collect(child);
    };
    collect(sample);
    const shared: string[] = [];
    const check = (value: unknown, path: string) => {
      if (typeof value !== "object" || value === null) return;
      if (inputObjects.has(value)) shared.push(path);
      for (const [key, child] of Object.entries(value)) check(child, `${path}.${key}`);
    };
    check(result.dataset, "$");
    expect(shared).toEqual([]);
    const custom = result.dataset.incidents!.at(-1)!.Custom as { a: unknown[] };
    expect(custom).toEqual({ a: [1, { b: [null, { c: "d" }] }], e: [] });
  });

  it("names the largest exact integer when an id is an integer beyond it", () => {
    const result = validateDataset(withList("incidents", [{ IncidentId: 2 ** 60, Number: "1", Site: "HQ" }]));
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues).toEqual([
      {
        code: "invalid_type",
        path: ["incidents", 0, "IncidentId"],
        message:
          "Expected an integer of at least 1 and at most 9007199254740991 (2^53 − 1, the largest exact integer), found the number 1152921504606847000.",
      },
    ]);
  });

  it("parses and validates", () => {
    expect(parseDataset(JSON.stringify(BASE)).ok).toBe(true);
    expect(parseDataset('{"sites": [{"name": ""}]}')).toEqual({
      ok: false,
      issues: [
        {
          code: "invalid_type",
          path: ["sites", 0, "name"],
          message: `Expected a non-empty string, found the string "".`,
        },
      ],
    });
  });
});

describe("validateDataset progress", () => {
  function calls(input: unknown, progressInterval?: number): [number, number][] {
    const seen: [number, number][] = [];
    validateDataset(input, {
      onProgress: (done, total) => seen.push([done, total]),
      ...(progressInterval === undefined ? {} : { progressInterval }),
    });
    return seen;
  }
  const sites = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `S${i}` }));

  it.each([
    ["no records", {}, 3, [[0, 0]]],
    ["fewer records than the interval", { sites: sites(2) }, 3, [[2, 2]]],
    [
      "records of every list, counted together",
      { sites: sites(2), users: [{ username: "u", sites: ["S0"] }], artifactTypes: [{ id: 1, label: "IP" }] },
      2,
      [
        [2, 4],
        [4, 4],
      ],
    ],
    [
      "a total that is not a multiple of the interval",
      { sites: sites(5) },
      2,
      [
        [2, 5],
        [4, 5],
        [5, 5],
      ],
    ],
    ["invalid records, counted too", { sites: [1, 2, 3], incidents: [null] }, 10, [[4, 4]]],
    ["a list that is not an array, not counted", { sites: {}, users: [] }, 1, [[0, 0]]],
  ] as const)("reports %s", (_name, input, interval, expected) => {
    expect(calls(input, interval)).toEqual(expected);
  });

  it("reports every DEFAULT_PROGRESS_INTERVAL records by default", () => {
    const incidents = Array.from({ length: DEFAULT_PROGRESS_INTERVAL * 2 + 1 }, (_, i) => ({
      IncidentId: i + 1,
      Number: String(i),
      Site: "HQ",
    }));
    expect(calls({ sites: [{ name: "HQ" }], incidents })).toEqual([
      [DEFAULT_PROGRESS_INTERVAL, DEFAULT_PROGRESS_INTERVAL * 2 + 2],
      [DEFAULT_PROGRESS_INTERVAL * 2, DEFAULT_PROGRESS_INTERVAL * 2 + 2],
      [DEFAULT_PROGRESS_INTERVAL * 2 + 2, DEFAULT_PROGRESS_INTERVAL * 2 + 2],
    ]);
  });

  it("calls increase strictly and end at (total, total), whatever the sizes (property)", () => {
    fc.assert(
      fc.property(fc.nat(40), fc.nat(40), fc.integer({ min: 1, max: 12 }), (nSites, nUsers, interval) => {
        const seen = calls({ sites: sites(nSites), users: Array(nUsers).fill(1) }, interval);
        const total = nSites + nUsers;
        expect(seen.at(-1)).toEqual([total, total]);
        for (const [index, [done, t]] of seen.entries()) {
          expect(t).toBe(total);
          if (index > 0) expect(done).toBeGreaterThan(seen[index - 1]![0]);
          if (index < seen.length - 1) expect(done % interval).toBe(0);
        }
        expect(seen).toHaveLength(
          Math.floor(total / interval) + (total % interval === 0 && total > 0 ? 0 : 1),
        );
      }),
      fcOptions(100),
    );
  });

  it.each([0, -1, 1.5, Number.NaN, "10"])("refuses progressInterval %j with a TypeError", (interval) => {
    expect(() => validateDataset({}, { progressInterval: interval as number })).toThrow(TypeError);
  });

  it("refuses an onProgress that is not a function with a TypeError", () => {
    expect(() => validateDataset({}, { onProgress: 1 as unknown as () => void })).toThrow(TypeError);
  });

  it("lets an exception of onProgress propagate", () => {
    const failure = new Error("stop");
    expect(() =>
      validateDataset(
        { sites: sites(3) },
        {
          progressInterval: 1,
          onProgress: () => {
            throw failure;
          },
        },
      ),
    ).toThrow(failure);
  });
});
