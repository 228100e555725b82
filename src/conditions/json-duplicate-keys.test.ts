import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { duplicateKeyMessage, findDuplicateKey } from "./json-duplicate-keys.js";

/** The duplicate-key scan of docs/semantics.md 3.1: tables, a property against JSON.parse, and depth. */

describe("findDuplicateKey", () => {
  it.each([
    ['{"a": 1, "a": 2}', ["a"]],
    ['{"Type": "Phishing", "\\u0054ype": "Malware"}', ["Type"]],
    ['{"a": {"b": [1, {"c": 1, "d": 2, "c": 3}]}}', ["a", "b", 1, "c"]],
    ['[{"x": 1}, {"x": 1}, {"k": "\\"", "k": 0}]', [2, "k"]],
    ['{"a\\\\": 1, "a\\\\": 2}', ["a\\"]],
    ['{"": 1, "": 2}', [""]],
    ['{"__proto__": 1, "__proto__": 2}', ["__proto__"]],
  ])("finds the repeated key of %s", (text, path) => {
    expect(findDuplicateKey(text)).toEqual({ path, key: path.at(-1) });
  });

  it.each([
    '{"a": 1, "b": {"a": 1}, "c": [{"a": 1}, {"a": 1}]}',
    '{"a": "\\"a\\": 1, \\"a\\": 2", "b": "{\\"a\\": 1}"}',
    '{"a": 1, "A": 2, "a ": 3}',
    '"{\\"a\\": 1, \\"a\\": 2}"',
    "[]",
    "1",
  ])("finds no repeated key in %s (keys in strings, other objects, other case)", (text) => {
    expect(findDuplicateKey(text)).toBeUndefined();
  });

  it("agrees with the keys JSON.parse sees (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(), (value, pick) => {
        const text = JSON.stringify(value);
        // JSON.stringify never repeats a key.
        expect(findDuplicateKey(text)).toBeUndefined();
        // Repeat the first key of one object (chosen by `pick`): that key, at that path, is found.
        const objects: { path: (string | number)[]; key: string }[] = [];
        const walk = (node: unknown, path: (string | number)[]): void => {
          if (Array.isArray(node)) {
            for (const [i, item] of node.entries()) walk(item, [...path, i]);
          } else if (typeof node === "object" && node !== null) {
            const keys = Object.keys(node);
            if (keys.length > 0) objects.push({ path, key: keys[0]! });
            for (const key of keys) walk((node as Record<string, unknown>)[key], [...path, key]);
          }
        };
        walk(JSON.parse(text), []);
        if (objects.length === 0) return;
        const target = objects[pick % objects.length]!;
        // Rebuild with the target object written by hand, its first member repeated at its end.
        const rebuild = (node: unknown, path: (string | number)[]): string => {
          if (Array.isArray(node)) return `[${node.map((item, i) => rebuild(item, [...path, i])).join(",")}]`;
          if (typeof node !== "object" || node === null) return JSON.stringify(node);
          const entries = Object.entries(node).map(
            ([k, v]) => `${JSON.stringify(k)}:${rebuild(v, [...path, k])}`,
          );
          if (JSON.stringify(path) === JSON.stringify(target.path))
            entries.push(`${JSON.stringify(target.key)}:0`);
          return `{${entries.join(",")}}`;
        };
        // The only repeat is the one added: found exactly, with its path.
        expect(findDuplicateKey(rebuild(JSON.parse(text), []))).toEqual({
          path: [...target.path, target.key],
          key: target.key,
        });
      }),
      fcOptions(300),
    );
  });

  it("scans deep text without recursion", () => {
    const deep = `${"[".repeat(100_000)}{"a": 1, "a": 2}${"]".repeat(100_000)}`;
    expect(findDuplicateKey(deep)?.key).toBe("a");
    expect(findDuplicateKey(deep)?.path).toHaveLength(100_001);
  });
});

describe("duplicateKeyMessage: the one sentence every reader says (docs/semantics.md 3.1)", () => {
  const long = "k".repeat(150);
  const deep = Array.from({ length: 45 }, (_, k) => `p${k}`);
  it.each([
    [
      "a key at the root",
      ["Parameter 'Trigger Data'", { path: ["ticket"], key: "ticket" }, undefined],
      "Parameter 'Trigger Data' repeats the key 'ticket' in one object (at ticket): each key may appear once.",
    ],
    [
      "a plural subject",
      ["The Search Conditions", { path: ["a", 0, "b"], key: "b" }, "repeat"],
      "The Search Conditions repeat the key 'b' in one object (at a[0].b): each key may appear once.",
    ],
    [
      "a key over 100 characters, cut",
      ["the record", { path: [long], key: long }, undefined],
      `the record repeats the key '${"k".repeat(100)}…' in one object (at ${long}): each key may appear once.`,
    ],
    [
      "a path over 40 segments, cut",
      ["the incident", { path: [...deep, "z"], key: "z" }, undefined],
      `the incident repeats the key 'z' in one object (at ${deep.slice(0, 40).join(".")}.…): each key may appear once.`,
    ],
  ] as const)("%s", (_name, [subject, duplicate, verb], expected) => {
    expect(duplicateKeyMessage(subject, duplicate, verb)).toBe(expected);
  });
});
