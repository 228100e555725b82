/**
 * The CLI's DocumentStart (a first line such as `{`), the NDJSON reader's chunking invariance, and
 * formatJson's non-recursive fallback against JSON.stringify.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatJson } from "../../src/cli/output.js";
import { readRecordsFromChunks } from "../../src/cli/records.js";
import { fcOptions } from "../support/fc.js";

const OPTIONS = { maxLineLength: 1 << 20, expected: "incidents" };

/** The outcome of reading: the items, or the error's message. */
function outcome(chunks: string[]): unknown {
  try {
    return readRecordsFromChunks(chunks, OPTIONS);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Cuts a text at the given fractions. */
function cut(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const out: string[] = [];
  let at = 0;
  for (const p of points) {
    out.push(text.slice(at, p));
    at = p;
  }
  out.push(text.slice(at));
  return out;
}

const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "{",
    "}",
    "[",
    "]",
    '"',
    "\\",
    '\\"',
    '{"a":1}',
    "\\u007b",
    ",",
    ":",
    "\u2028",
    "__proto__",
  ),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(tricky, tie("value"), { maxKeys: 4 }),
  ),
})).value;
const record = fc.dictionary(tricky, jsonValue, { minKeys: 1, maxKeys: 4 });
const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 });

describe("the NDJSON reader: the outcome does not depend on where the chunks are cut", () => {
  it("a pretty-printed object (strings holding braces, quotes, escapes) is one document, however cut", () => {
    fc.assert(
      fc.property(record, fractions, (value, cuts) => {
        const text = `${JSON.stringify(value, null, 2)}\n`;
        if (!text.includes("\n  ")) return; // one line: a record
        const whole = outcome([text]);
        expect(whole).toEqual({ error: expect.stringContaining("holds one JSON document") });
        expect(outcome(cut(text, cuts))).toEqual(whole);
      }),
      fcOptions(300),
    );
  });

  it("a first line `{` then NDJSON records: the line is an invalid record, every record read, however cut", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), fractions, (records, cuts) => {
        const text = `{\n${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
        const whole = outcome([text]) as { ok: boolean; value?: unknown }[];
        expect(Array.isArray(whole)).toBe(true);
        expect(whole.filter((i) => i.ok).map((i) => i.value)).toEqual(
          records.map((r) => JSON.parse(JSON.stringify(r))),
        );
        expect(outcome(cut(text, cuts))).toEqual(whole);
      }),
      fcOptions(300),
    );
  });

  it("a pretty-printed document cut at every byte never throws anything but a CliError, nor hangs", () => {
    const text = JSON.stringify(
      {
        incidents: [
          { Title: 'a "{" \\ }', Tags: ["[", "]"], N: -0.5e-7 },
          { Title: "\\u007b{", X: null },
        ],
      },
      null,
      2,
    );
    for (let end = 1; end <= text.length; end++) {
      const prefix = text.slice(0, end);
      const whole = outcome([prefix]);
      for (const at of [1, Math.floor(end / 2), end - 1]) {
        expect(outcome([prefix.slice(0, at), prefix.slice(at)])).toEqual(whole);
      }
    }
  });
});

describe("formatJson: the compact fallback for deep values is JSON.stringify's text", () => {
  it("random JSON (from JSON.parse) wrapped 20,000 levels deep", () => {
    const depth = 20_000;
    fc.assert(
      fc.property(jsonValue, fc.constantFrom("[", '{"k":', '{"__proto__":'), (inner, open) => {
        const innerText = JSON.stringify(inner);
        const close = open === "[" ? "]" : "}";
        const text = open.repeat(depth) + innerText + close.repeat(depth);
        const value: unknown = JSON.parse(text);
        expect(formatJson(value)).toBe(text);
        expect(formatJson(value, 2)).toBe(text);
      }),
      fcOptions(40),
    );
  });

  it.each([
    ["-0", "-0", "0"],
    ["a huge number", "1e308", "1e+308"],
    ["a tiny number", "5e-324", "5e-324"],
    ["a lone surrogate", '"\\ud800"', '"\\ud800"'],
    ["a reversed pair", '"\\udc00\\ud800"', '"\\udc00\\ud800"'],
    ["control characters", '"\\u0000\\u001f\\u007f"', '"\\u0000\\u001f\u007f"'],
    ["U+2028", '"\\u2028"', '"\u2028"'],
    ["an empty key", '{"":1}', '{"":1}'],
    ["integer-like keys", '{"b":1,"2":2,"1":3}', '{"1":3,"2":2,"b":1}'],
  ])("%s deep inside", (_name, innerText, expected) => {
    const depth = 20_000;
    const value: unknown = JSON.parse("[".repeat(depth) + innerText + "]".repeat(depth));
    expect(formatJson(value)).toBe("[".repeat(depth) + expected + "]".repeat(depth));
  });
});
