/**
 * The letters whose case folding is special: k and s in both cases, and their non-ASCII partners, the
 * Kelvin sign (U+212A, folds with k) and the long s (U+017F, folds with s). The character tables of the
 * regex and timeline-filter tests build their pattern and value alphabets around them.
 */

/** ASCII first: k, K, s, S, then U+212A and U+017F (the chain, matcher and bit-parallel tests). */
export const FOLDING_LETTERS: readonly string[] = ["k", "K", "s", "S", "\u212A", "\u017F"];

/** By orbit: k, K and U+212A, then s, S and U+017F (the window and timeline filter tests). */
export const FOLDING_ORBITS: readonly string[] = ["k", "K", "\u212A", "s", "S", "\u017F"];
