import fc from "fast-check";
import { parse } from "node-html-parser";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import {
  type ArtifactNoteContextItem,
  buildArtifactNoteResult,
  formatLocalDate,
  isValidTimeZone,
  NOTE_RESULT_COLUMNS,
  renderNoteResultTable,
} from "./note-result.js";

describe("formatLocalDate (spec 2.5, docs/semantics.md 3)", () => {
  const cases: { name: string; utc: string; zone: string | undefined; expected: string }[] = [
    {
      name: "UTC when the site names no zone",
      utc: "2024-01-02T15:04:00Z",
      zone: undefined,
      expected: "01/02/2024 03:04 PM",
    },
    {
      name: "half-hour zone",
      utc: "2024-03-10T07:30:00Z",
      zone: "Asia/Kolkata",
      expected: "03/10/2024 01:00 PM",
    },
    {
      name: "before the US DST switch",
      utc: "2024-03-10T06:59:00Z",
      zone: "America/New_York",
      expected: "03/10/2024 01:59 AM",
    },
    {
      name: "after the US DST switch",
      utc: "2024-03-10T07:00:00Z",
      zone: "America/New_York",
      expected: "03/10/2024 03:00 AM",
    },
    {
      name: "midnight is 12 AM",
      utc: "2024-06-01T22:00:00Z",
      zone: "Europe/Berlin",
      expected: "06/02/2024 12:00 AM",
    },
    {
      name: "noon is 12 PM",
      utc: "2024-06-01T10:15:00Z",
      zone: "Europe/Berlin",
      expected: "06/01/2024 12:15 PM",
    },
    {
      name: "date line: the local day differs",
      utc: "2024-12-31T11:00:00Z",
      zone: "Pacific/Auckland",
      expected: "01/01/2025 12:00 AM",
    },
    {
      name: "seconds are dropped, not rounded",
      utc: "2024-01-02T15:04:59Z",
      zone: "UTC",
      expected: "01/02/2024 03:04 PM",
    },
  ];
  it.each(cases)("$name", ({ utc, zone, expected }) => {
    expect(formatLocalDate(Date.parse(utc), zone)).toBe(expected);
  });

  it("always yields MM/dd/yyyy hh:mm AM|PM", () => {
    const zones = ["UTC", "America/Los_Angeles", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/London"];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...zones),
        (time, zone) => {
          expect(formatLocalDate(time, zone)).toMatch(
            /^(0[1-9]|1[0-2])\/(0[1-9]|[12]\d|3[01])\/\d{4} (0[1-9]|1[0-2]):[0-5]\d (AM|PM)$/,
          );
        },
      ),
      fcOptions(300),
    );
  });

  it("throws a RangeError for an invalid zone", () => {
    expect(() => formatLocalDate(0, "Mars/Olympus_Mons")).toThrow(RangeError);
  });
});

describe("isValidTimeZone", () => {
  it.each(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Etc/GMT+5"])("accepts %s", (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });
  it.each(["", "Mars/Olympus_Mons", "Europe/Berlinn", "not a zone", "x".repeat(200)])(
    "refuses %j",
    (zone) => {
      expect(isValidTimeZone(zone)).toBe(false);
    },
  );
});

function item(overrides: Partial<ArtifactNoteContextItem> = {}): ArtifactNoteContextItem {
  return {
    "Artifact Name": "10.0.0.5",
    "Artifact Type": "IP Address",
    Note: "seen in proxy logs",
    LastModifiedLocalDate: "01/02/2024 03:04 PM",
    Result: "Successful",
    ...overrides,
  };
}

/** Parses the table and returns its rows as decoded cell texts, checking that cells hold text only. */
function readTable(html: string): { headers: string[][]; rows: string[][] } {
  const root = parse(html);
  expect(root.querySelectorAll("table")).toHaveLength(1);
  const headers = root.querySelectorAll("tr").filter((tr) => tr.querySelectorAll("th").length > 0);
  const rows = root.querySelectorAll("tr").filter((tr) => tr.querySelectorAll("td").length > 0);
  for (const cell of root.querySelectorAll("th, td")) {
    // No element survives inside a cell: the value is inert text.
    expect(cell.childNodes.every((node) => node.nodeType === 3)).toBe(true);
  }
  return {
    headers: headers.map((tr) => tr.querySelectorAll("th").map((c) => c.text)),
    rows: rows.map((tr) => tr.querySelectorAll("td").map((c) => c.text)),
  };
}

describe("renderNoteResultTable (spec 4.3, docs/semantics.md 3)", () => {
  it("has exactly one header row and one data row: name, type, note, timestamp, status", () => {
    const { headers, rows } = readTable(renderNoteResultTable(item()));
    expect(headers).toEqual([[...NOTE_RESULT_COLUMNS]]);
    expect(rows).toEqual([
      ["10.0.0.5", "IP Address", "seen in proxy logs", "01/02/2024 03:04 PM", "Successful"],
    ]);
  });

  it("makes a script note inert", () => {
    const note = "<script>alert(1)</script>";
    const html = renderNoteResultTable(item({ Note: note }));
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const root = parse(html);
    expect(root.querySelectorAll("script")).toHaveLength(0);
    expect(readTable(html).rows[0]?.[2]).toBe(note);
  });

  it.each([
    ["attribute breakout", `"><img src=x onerror=alert(1)>`],
    ["single quotes", `' onmouseover='alert(1)`],
    ["entity text", "&lt;b&gt; &amp;"],
    ["closing tags", "</td></tr></table><table><tr><td>x"],
  ])("escapes %s", (_name, value) => {
    const html = renderNoteResultTable(item({ "Artifact Name": value, Note: value }));
    const { rows } = readTable(html);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.[0]).toBe(value);
    expect(rows[0]?.[2]).toBe(value);
  });

  it("round-trips any text through the table (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string(), (note, name) => {
        const { headers, rows } = readTable(
          renderNoteResultTable(item({ Note: note, "Artifact Name": name })),
        );
        expect(headers).toHaveLength(1);
        expect(rows).toHaveLength(1);
        expect(rows[0]?.[0]).toBe(name);
        expect(rows[0]?.[2]).toBe(note);
      }),
      fcOptions(300),
    );
  });
});

describe("buildArtifactNoteResult", () => {
  it("builds the context item of spec 2.5 and the matching table", () => {
    const built = buildArtifactNoteResult({
      artifactName: "evil.example",
      artifactTypeLabel: "Domain",
      note: "blocked",
      time: Date.parse("2024-07-04T18:45:00Z"),
      timeZone: "America/Los_Angeles",
    });
    expect(built.contextItem).toEqual({
      "Artifact Name": "evil.example",
      "Artifact Type": "Domain",
      Note: "blocked",
      LastModifiedLocalDate: "07/04/2024 11:45 AM",
      Result: "Successful",
    });
    expect(built.result).toBe(renderNoteResultTable(built.contextItem));
  });
});
