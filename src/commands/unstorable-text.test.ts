import { describe, expect, it } from "vitest";
import { unstorableCharacter } from "./unstorable-text.js";

/** docs/semantics.md 3.3, "Text that no store keeps". */
describe("unstorableCharacter", () => {
  it.each([
    ["plain text, é, 李, 😀, \u2028", undefined],
    ["", undefined],
    ["a\u0000", "the character U+0000 at character 2"],
    ["\ud800", "an unpaired surrogate U+D800 at character 1"],
    ["ab\udc00", "an unpaired surrogate U+DC00 at character 3"],
    ["😀\ud83d", "an unpaired surrogate U+D83D at character 3"],
    ["\ud83d\ud83d\ude00", "an unpaired surrogate U+D83D at character 1"],
  ])("%j → %s", (text, expected) => {
    expect(unstorableCharacter(text)).toBe(expected);
  });

  it("agrees with TextEncoder: the text survives a UTF-8 round trip exactly when it holds no unpaired surrogate", () => {
    for (let code = 0xd7f0; code <= 0xe010; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      const survives = new TextDecoder().decode(new TextEncoder().encode(text)) === text;
      expect(unstorableCharacter(text) === undefined).toBe(survives);
    }
  });
});
