/**
 * The text column and the text index as a set keeps them (text-column.ts, gram-index.ts): the candidates
 * of an alternation, the index kept across adds and rebuilt, over its budget, and `IncidentSet`'s `$regex`
 * through the text index against `evaluate`. (The literal check and the proofs: ../text-index.test.ts.)
 */

import { describe, expect, it } from "vitest";
import { indexed } from "../../../test/support/text-index.js";
import { evaluate } from "../../conditions/evaluate.js";
import { parseSearchConditions } from "../../conditions/parse.js";
import { IncidentSet } from "../incident-set.js";
import { compareOrderKeys, orderKeyOf } from "../order.js";
import { regexGramQuery, TextColumn } from "./index.js";

describe("GramIndex.candidates: an alternation's candidates are the union of its branches'", () => {
  it("holds every value of either branch, once, ascending", () => {
    const values = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 0
        ? `phishing ${i}`
        : i % 3 === 1
          ? `malware ${i}`
          : i % 5 === 0
            ? `phishing malware ${i}`
            : `login ${i}`,
    );
    const { index } = indexed(values);
    const candidates = [...(index.grams.candidates(regexGramQuery("(phishing|malware) \\d", "")) ?? [])];
    const expected = values.flatMap((value, id) => (/phishing|malware/.test(value) ? [id] : []));
    expect(candidates).toEqual(expected);
    expect(index.grams.candidates(regexGramQuery("(qqqq|zzzz)", ""))).toEqual(new Int32Array(0));
  });
});

describe("TextColumn.textIndex: kept across adds, rebuilt when the new values outnumber it", () => {
  it("keeps the index for a few added values, and the set answers for them", () => {
    const values = Array.from({ length: 100 }, (_, i) => `title ${i} phishing`);
    const { column, index } = indexed(values);
    column.set(100, "late phishing", 200);
    expect(column.textIndex()).toBe(index);
    expect(index.count).toBe(100);
    const grams = regexGramQuery("phishing", "");
    expect(index.grams.candidates(grams)?.length).toBe(100); // the late value is not in the lists
  });

  it("rebuilds once the values added since outnumber max(4096, count / 8)", () => {
    const values = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const { column, index } = indexed(values);
    for (let k = 0; k < 4097; k++) column.set(10 + k, `new ${k}`, 10 + 4097);
    const rebuilt = column.textIndex();
    expect(rebuilt).not.toBe(index);
    expect(rebuilt?.count).toBe(10 + 4097);
  });
});

describe("IncidentSet: $regex through the text index", () => {
  const make = (i: number) => ({
    IncidentId: i,
    CreatedUtcTime: `2024-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
    Title: `${i % 3 === 0 ? "Phishing" : "Malware"} alert ${i} on host-${i % 97}`,
  });

  it("answers literal and other patterns after adds without a rebuild, as evaluate does", () => {
    const incidents = Array.from({ length: 600 }, (_, i) => make(i));
    const set = new IncidentSet(incidents.slice(0, 500), { maxDictionary: 16 });
    const queries = [
      { Title: { $regex: "Phishing alert" } },
      { Title: { $regex: "phishing ALERT", $options: "i" } },
      { Title: { $regex: "^Malware alert 4" } },
      { Title: { $regex: "host-9$" } },
      { Title: { $regex: "alert \\d+ on host-1\\d$" } },
    ];
    // The matches in the order of docs/semantics.md 1.9 (a stable sort keeps insertion order on ties).
    const reference = (raw: unknown, upTo: number) =>
      incidents
        .slice(0, upTo)
        .filter((incident) => evaluate(parseSearchConditions(raw), incident))
        .sort((a, b) => compareOrderKeys(orderKeyOf(a), orderKeyOf(b)));
    for (const raw of queries) expect(set.count(raw)).toBe(reference(raw, 500).length);
    const bytes = set.footprint().textIndexBytes;
    expect(bytes).toBeGreaterThan(0);
    for (const incident of incidents.slice(500)) set.add(incident);
    for (const raw of queries) {
      expect(set.explain(raw).columns).toMatch(/text-index Title/);
      expect(set.count(raw)).toBe(reference(raw, 600).length);
      expect(set.findAll(raw)).toEqual(reference(raw, 600));
    }
    // The index built over the first 500 incidents served the queries after the adds (case-insensitive
    // literals add the lowered corpus once).
    expect(set.footprint().textIndexBytes).toBeLessThanOrEqual(bytes + 600 * 40);
  });

  it("tests candidates on the corpus exactly as on the values: separators, surrogates, numbers, empty text", () => {
    // Odd values among many distinct titles: the corpus joins them with U+0000, so a value holding U+0000
    // or a lone surrogate, an empty string and numbers (empty text in the corpus) must answer as themselves.
    const odd: unknown[] = [
      "a\u0000b",
      "\u0000",
      "x\ud800",
      "\udc00y",
      "",
      42,
      0,
      true,
      "😀 alert",
      "k\u212A",
    ];
    const incidents = Array.from({ length: 400 }, (_, i) => ({
      IncidentId: i,
      CreatedUtcTime: `2024-02-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
      Title: i < odd.length ? odd[i] : `alert ${i} on host-${i % 13}`,
    }));
    const set = new IncidentSet(incidents, { maxDictionary: 16 });
    const queries = [
      { Title: { $regex: "a.b" } },
      { Title: { $regex: "a.b", $options: "s" } },
      { Title: { $regex: "^.$" } },
      { Title: { $regex: "\\x00" } },
      { Title: { $regex: "^$" } },
      { Title: { $regex: "^\\d" } },
      { Title: { $regex: "[\\x{D800}-\\x{DFFF}]" } },
      { Title: { $regex: "alert \\d+ on host-1$" } },
      { Title: { $regex: "KK$", $options: "i" } },
      { Title: { $regex: "alert" } },
      { Title: { $regex: "ALERT 3", $options: "i" } },
    ];
    for (const raw of queries) {
      const expected = incidents.filter((incident) => evaluate(parseSearchConditions(raw), incident));
      expect([raw, set.count(raw)]).toEqual([raw, expected.length]);
    }
    expect(set.footprint().textIndexBytes).toBeGreaterThan(0);
  });

  it("builds the text index with a large set (no query pays for it)", () => {
    const incidents = Array.from({ length: 50_000 }, (_, i) => ({ IncidentId: i, Title: `t${i}` }));
    const large = new IncidentSet(incidents, { maxDictionary: 16 });
    expect(large.footprint().textIndexBytes).toBeGreaterThan(0);
    const small = new IncidentSet(incidents.slice(0, 1000), { maxDictionary: 16 });
    expect(small.footprint().textIndexBytes).toBe(0);
    small.count({ Title: { $regex: "t99" } });
    expect(small.footprint().textIndexBytes).toBeGreaterThan(0);
  });

  it("leaves the text index of a large set read from NDJSON to its first pattern, built then as the constructor builds it", async () => {
    const incidents = Array.from({ length: 50_000 }, (_, i) => ({ IncidentId: i, Title: `t${i}` }));
    const lines = incidents.map((incident) => `${JSON.stringify(incident)}\n`);
    const large = await IncidentSet.fromNdjson([lines.join("")], { maxDictionary: 16 });
    expect(large.footprint().textIndexBytes).toBe(0);
    // A query on other fields, and `explain` of one, leave it unbuilt.
    expect(large.count({ IncidentId: { $gte: 49_990 } })).toBe(10);
    expect(large.explain({ IncidentId: 7 }).count).not.toMatch(/text/);
    expect(large.footprint().textIndexBytes).toBe(0);
    expect(large.count({ Title: { $regex: "^t4999" } })).toBe(11);
    // The same index as the constructor's (with its lowered corpus), answering the same.
    const constructed = new IncidentSet(incidents, { maxDictionary: 16 });
    expect(large.footprint().textIndexBytes).toBe(constructed.footprint().textIndexBytes);
    expect(large.count({ Title: { $regex: "T4999", $options: "i" } })).toBe(11);
    const small = await IncidentSet.fromNdjson([lines.slice(0, 1000).join("")], { maxDictionary: 16 });
    expect(small.footprint().textIndexBytes).toBe(0);
  });
});

describe("TextColumn.textIndex over budget", () => {
  it("is not tried again until as many values were added as would rebuild an index", () => {
    const budget = { remaining: 1000 }; // below the trigram offsets alone
    const column = new TextColumn("Title", 8, budget);
    column.set(0, "first title", 8);
    expect(column.textIndex()).toBeUndefined();
    expect(column.overBudget).toBe(true);
    column.set(1, "second title", 8);
    budget.remaining = 1 << 26; // room now, but too few values were added to try again
    expect(column.textIndex()).toBeUndefined();
    for (let k = 0; k < 4096; k++) column.set(2 + k, `title ${k}`, 4200);
    expect(column.textIndex()?.count).toBe(4098);
  });
});
