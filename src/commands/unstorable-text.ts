/**
 * Text that no store keeps as sent (docs/semantics.md 3.3, "Text that no store keeps"): the character
 * U+0000, which PostgreSQL text and jsonb refuse, and an unpaired UTF-16 surrogate, which UTF-8 cannot
 * encode (a UTF-8 store, file or wire would turn it into U+FFFD). A note or Trigger Data holding either
 * is refused by the command, on every backend, rather than failing on one backend (a 500) and being kept
 * altered or as sent on another.
 */

/**
 * Describes the first character of `text` that no store keeps, or returns `undefined` when there is none.
 * @param text - any string
 * @returns e.g. `the character U+0000 at character 3`, `an unpaired surrogate U+D800 at character 2`
 */
export function unstorableCharacter(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return `the character U+0000 at character ${i + 1}`;
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return `an unpaired surrogate U+${code.toString(16).toUpperCase()} at character ${i + 1}`;
  }
  return undefined;
}
