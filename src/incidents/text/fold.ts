/**
 * Case folding for trigrams (text/index.ts has the map): each UTF-16 unit folds to one of 64 symbols, ASCII
 * letters to lower case, digits, the other ASCII characters into 27 shared classes, the Kelvin sign to `k`
 * and the long s to `s` (the only non-ASCII characters RE2's case folding equates with ASCII ones), and
 * every other character to `OPAQUE`, a symbol no query trigram contains. A trigram key is three symbols in
 * 18 bits. `foldVariant` tells the characters of one symbol apart (the literal proof reads it).
 */

/** The folded symbol no query trigram contains (non-ASCII characters other than the two folding ones). */
export const OPAQUE = 63;

/** Trigram keys: three 6-bit symbols. */
export const GRAM_KEYS = 1 << 18;

/**
 * The folded symbol of one UTF-16 unit or code point (see the file comment): 0–25 letters (case-folded),
 * 26–35 digits, 36–62 other ASCII, 63 anything else.
 */
export function foldSymbol(c: number): number {
  if (c >= 97 && c <= 122) return c - 97;
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 48 && c <= 57) return c - 22;
  if (c < 128) return 36 + (c % 27);
  if (c === 0x212a) return 10; // KELVIN SIGN folds with k
  if (c === 0x17f) return 18; // LATIN SMALL LETTER LONG S folds with s
  return OPAQUE;
}

/** `foldSymbol` of every UTF-16 unit (64 KiB, built on the first trigram index). */
let foldTable: Uint8Array | undefined;

export function getFoldTable(): Uint8Array {
  if (foldTable === undefined) {
    foldTable = new Uint8Array(0x10000);
    for (let c = 0; c < 0x10000; c++) foldTable[c] = foldSymbol(c);
  }
  return foldTable;
}

/**
 * The variant of a character within its folded symbol (see `GramIndex.meta`): 0 for a lower-case ASCII letter,
 * a digit, or the first printable ASCII character of its shared symbol; 1 for an upper-case ASCII letter; 2
 * for any other character (the other ASCII characters of a shared symbol, the Kelvin sign, the long s, and
 * characters that fold to `OPAQUE`, which no trigram holds). A symbol and a variant 0 or 1 name one character.
 */
export function foldVariant(c: number): number {
  if (c >= 97 && c <= 122) return 0;
  if (c >= 65 && c <= 90) return 1;
  if (c >= 48 && c <= 57) return 0;
  if (c >= 128) return 2;
  // The first printable (32–126) non-alphanumeric ASCII character with the same `c % 27` is canonical.
  for (let d = c % 27; d < c; d += 27) {
    const alnum = (d >= 48 && d <= 57) || (d >= 65 && d <= 90) || (d >= 97 && d <= 122);
    if (d >= 32 && !alnum) return 2;
  }
  return c >= 32 && c <= 126 ? 0 : 2;
}

/** `foldVariant` of every ASCII character (built with the fold table). */
let variantTable: Uint8Array | undefined;

export function getVariantTable(): Uint8Array {
  if (variantTable === undefined) {
    variantTable = new Uint8Array(0x10000).fill(2);
    for (let c = 0; c < 128; c++) variantTable[c] = foldVariant(c);
  }
  return variantTable;
}
