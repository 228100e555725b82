/**
 * Attack on shaped lines (src/incidents/record-shapes.ts) through `IncidentSet.fromNdjson`: every way a
 * record is read back (`get` through `findAll`/`findFirst`, iteration, a row check that parses the row,
 * records after `add`) is deep-equal to `JSON.parse` of the original line, key order and `__proto__` keys
 * included, with text columns (Title, and a site field named `__proto__`, `a.b`, or the empty key) whose
 * values are left out of the kept lines; read from strings cut at every odd place and from a byte reader
 * whose reads are short. Table first, then a fast-check property with a fixed seed.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import type { NdjsonByteReader } from "../../src/incidents/ndjson.js";
import { fcOptions } from "../support/fc.js";

const enc = new TextEncoder();

/** A byte reader over `bytes` that writes at most `step` bytes a read. */
function reader(bytes: Uint8Array, step: number): NdjsonByteReader {
  let at = 0;
  return {
    async read(buffer, offset, length) {
      const n = Math.min(length, step, bytes.length - at);
      buffer.set(bytes.subarray(at, at + n), offset);
      at += n;
      return { bytesRead: n };
    },
  };
}

/** The text cut into pieces of `step` characters. */
function pieces(text: string, step: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += step) out.push(text.slice(i, i + step));
  return out;
}

/** Lines whose Title (or site field) values are text-column values: every form a line may write. */
const TABLE: readonly string[] = [
  '{"IncidentId":1,"Title":"plain"}',
  '{"IncidentId":2,"Title":1}',
  '{"IncidentId":3,"Title":"1"}',
  '{"IncidentId":4,"Title":true}',
  '{"IncidentId":5,"Title":"true"}',
  '{"IncidentId":6,"Title":null}',
  '{"IncidentId":7,"Title":"null"}',
  '{"IncidentId":8,"Title":["plain"]}',
  '{"IncidentId":9,"Title":{"plain":"plain"}}',
  '{"IncidentId":10,"Title":"\\u0070lain"}',
  '{"IncidentId":11,"Titl\\u0065":"plain"}',
  '{"IncidentId":12,"Title":"pl\\/ain"}',
  '{"IncidentId":13,"Title":"\\ud800"}',
  '{"IncidentId":14,"Title":"\\udc00\\ud800"}',
  '{"IncidentId":15,"Title":"é"}',
  '{"IncidentId":16,"Title":"\\u00e9"}',
  '{"IncidentId":17,"Title":1.0}',
  '{"IncidentId":18,"Title":1e400}',
  '{"IncidentId":19,"Title":-0}',
  '{"IncidentId":20,"Title":123456789012345678901234567890}',
  '{"IncidentId":21,"Title":"1.0"}',
  '{"IncidentId":22,"Title":""}',
  '{"IncidentId":23}',
  '{"Title":"plain","IncidentId":24}',
  '{ "Title" : "plain" , "IncidentId" : 25 }',
  '{"IncidentId":26,"Title":"plain","__proto__":{"polluted":true}}',
  '{"IncidentId":27,"__proto__":"plain","Title":"x"}',
  '{"IncidentId":28,"a.b":"plain","a":{"b":"other"}}',
  '{"IncidentId":29,"":"plain","Title":""}',
  '{"IncidentId":30,"Title":"\\"plain\\""}',
  '{"IncidentId":31,"Title":"tab\\tx"}',
  '{"IncidentId":32,"Title":"del\u007f"}',
  '{"IncidentId":33,"Title":"a","Severity":"High","Status":"Open"}',
  '{"IncidentId":34,"Severity":1,"Status":null,"Title":"a"}',
  '{"IncidentId":35,"Severity":{"a":1},"Status":[],"Title":"b"}',
  '{"IncidentId":36,"Severity":"Hig\\u0068","Status":"Open","Title":"b"}',
  '{"IncidentId":39,"x":{"Title":"inner"},"Title":"outer"}',
  '{"IncidentId":40,"Title":"outer","x":{"Title":"inner"}}',
  '{"IncidentId":41,"x":[{"Title":"inner"}],"Title":"outer"}',
  `{"IncidentId":42,"x":${JSON.stringify('","Title":"fake')},"Title":"outer"}`,
  '\ufeff{"IncidentId":43,"Title":"after a byte order mark"}',
  '{"IncidentId":44,"Title":"before CR"}\r',
  '  \t{"IncidentId":45,"Title":"blanks around"} \t',
  `{"IncidentId":37,"Title":"${"long ".repeat(3000)}"}`,
  `{"IncidentId":38,"Title":"${"x".repeat(70_000)}"}`,
];

/** Title values for the column to overflow into a text column early. */
const FILLERS = Array.from({ length: 12 }, (_, i) => `{"IncidentId":${100 + i},"Title":"filler ${i}"}`);

/** A set read from `lines` every way, each checked to read back `JSON.parse` of every line. */
async function expectReadBack(lines: readonly string[], options: Record<string, unknown>): Promise<void> {
  const text = `${lines.join("\n")}\n`;
  const bytes = enc.encode(text);
  const expected = lines.map((line) => JSON.parse(line.replace(/^\ufeff/, "")) as Record<string, unknown>);
  const sources: [string, () => unknown][] = [
    ["one string", () => [text]],
    ["7-character pieces", () => pieces(text, 7)],
    ["bytes 3 a read", () => reader(bytes, 3)],
    ["bytes 4096 a read", () => reader(bytes, 4096)],
  ];
  for (const [name, source] of sources) {
    const set = await IncidentSet.fromNdjson(source() as never, options);
    const all = set.findAll({});
    expect(all.length, name).toBe(lines.length);
    // Match each read-back record with a line (findAll is in creation order, not line order).
    const left = expected.map((e) => JSON.stringify(e));
    for (const record of all) {
      expect(Object.getPrototypeOf(record), name).toBe(Object.prototype);
      const at = left.indexOf(JSON.stringify(record));
      expect(at, `${name}: ${JSON.stringify(record).slice(0, 200)}`).toBeGreaterThanOrEqual(0);
      expect(record).toEqual(expected[at]);
      left[at] = "";
    }
    for (const e of expected) {
      if (typeof e.IncidentId !== "number") continue;
      const first = expected.find((f) => f.IncidentId === e.IncidentId);
      expect(set.findFirst({ IncidentId: e.IncidentId }), name).toEqual(first);
    }
    // Row checks the columns cannot answer alone parse each row; counted as `evaluate` counts them.
    for (const query of [
      { Title: { $type: "string" } },
      { Title: { $regex: "l" } },
      { "Title.0": "plain" },
    ]) {
      const condition = parseSearchConditions(query);
      expect(set.count(query), `${name} ${JSON.stringify(query)}`).toBe(
        expected.filter((e) => evaluate(condition, e)).length,
      );
    }
    // Records added after the build (the column keeps splicing them) read back too.
    for (const e of expected) set.add(e);
    expect(set.findAll({}).length).toBe(2 * lines.length);
    for (const e of expected) {
      if (typeof e.IncidentId !== "number") continue;
      const same = expected.filter((f) => f.IncidentId === e.IncidentId);
      // `add` keeps the JSON.stringify form (1e400 read as Infinity is added as null).
      const added = same.map((f) => JSON.parse(JSON.stringify(f)) as unknown);
      expect(set.findAll({ IncidentId: e.IncidentId }), name).toEqual([...same, ...added]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }
}

describe("shaped lines read back through fromNdjson", () => {
  it("table: text-column values in every form, Title a text column", async () => {
    await expectReadBack([...FILLERS, ...TABLE, ...TABLE.slice().reverse()], { maxDictionary: 2 });
  });

  for (const siteField of ["Site", "toString", "Title"]) {
    it(`table: the site field '${siteField}' a text column`, async () => {
      const sites = Array.from(
        { length: 12 },
        (_, i) => `{"IncidentId":${200 + i},${JSON.stringify(siteField)}:"s${i}"}`,
      );
      await expectReadBack([...sites, ...TABLE], { maxDictionary: 2, siteField });
    });
  }

  for (const hashFields of [["Owner"], ["Owner", "Title"]]) {
    it(`table: hash fields ${hashFields.join(", ")} (rows verified against their rebuilt lines)`, async () => {
      const owners = TABLE.map((line) => line.replace(/"Title"/g, '"Owner"'));
      await expectReadBack([...FILLERS, ...TABLE, ...owners], { maxDictionary: 2, hashFields });
    });
  }

  it("property: generated lines with Title, Status, Severity in any form, read back as JSON.parse reads them", async () => {
    const text = fc.string({
      maxLength: 8,
      unit: fc.constantFrom("a", "B", " ", '"', "\\", "é", "\ud800", "\u0000", "/"),
    });
    const scalar = fc.oneof(
      text,
      fc.constantFrom("Open", "High", "1", "true", "null", ""),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.oneof(
      scalar,
      scalar,
      fc.array(scalar, { maxLength: 2 }),
      fc.dictionary(text, scalar, { maxKeys: 2 }),
    );
    const key = fc.constantFrom("Title", "Status", "Severity", "__proto__", "x", "");
    const record = fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 5 });
    // How each line is written: JSON.stringify's form, with blanks, with ASCII escaped.
    const form = fc.constantFrom("plain", "blanks", "escaped");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(record, form), { minLength: 1, maxLength: 40 }), async (rows) => {
        const lines = rows.map(([pairs, how], i) => {
          const members = [
            `"IncidentId":${i}`,
            ...pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
          ];
          let line = `{${members.join(",")}}`;
          if (how === "blanks") line = `{ ${members.join(" ,\t")} }`;
          if (how === "escaped")
            line = line.replace(/"Title"/g, '"Titl\\u0065"').replace(/"Open"/g, '"\\u004fpen"');
          return line;
        });
        await expectReadBack([...FILLERS, ...lines], { maxDictionary: 2 });
      }),
      fcOptions(40),
    );
  }, 300_000);
});
