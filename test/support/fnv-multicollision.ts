/**
 * Strings whose FNV-1a states (32 bits, over UTF-16 code units, offset basis 0x811c9dc5) are all equal: a
 * birthday search among short strings from one state finds two that reach the same state, and from there
 * any suffix keeps them equal, so `k` pairs found one after another give 2^k colliding strings of `5k`
 * characters (each a choice of one string of every pair). The search is deterministic (strings in a fixed
 * order), so the same call gives the same strings. About 80,000 strings are hashed per pair.
 */

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** The FNV-1a state after `text`, from `state`. */
export function fnvState(text: string, state = FNV_OFFSET): number {
  let h = state;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/** Characters per string of a pair. */
const PAIR_LENGTH = 5;

/**
 * Two distinct `PAIR_LENGTH`-character ASCII strings that take FNV-1a from `state` to one state, and that
 * state. The strings are base-62 numbers spread over all 62^5 of them (consecutive ones differ in every
 * character: strings differing only in their first characters collide less often than at random).
 */
export function collidingPair(state: number): { pair: [string, string]; state: number } {
  // An open-addressing table of the states reached (2^20 slots: about a tenth full when a pair is found).
  const size = 1 << 20;
  const states = new Int32Array(size);
  const codes = new Float64Array(size);
  const used = new Uint8Array(size);
  const n = ALPHABET.length;
  const space = n ** PAIR_LENGTH;
  const chars = Array.from(ALPHABET, (c) => c.charCodeAt(0));
  const text = (code: number): string => {
    let out = "";
    for (let k = 0, x = code; k < PAIR_LENGTH; k++, x = Math.floor(x / n)) out += ALPHABET[x % n];
    return out;
  };
  for (let i = 0; i < size / 2; i++) {
    const code = (i * 387_420_489 + 12_345) % space;
    let h = state;
    for (let k = 0, x = code; k < PAIR_LENGTH; k++, x = Math.floor(x / n))
      h = Math.imul(h ^ chars[x % n]!, FNV_PRIME);
    let slot = (h ^ (h >>> 15)) & (size - 1);
    while (used[slot] === 1 && states[slot] !== h) slot = (slot + 1) & (size - 1);
    if (used[slot] === 1) return { pair: [text(codes[slot]!), text(code)], state: h };
    used[slot] = 1;
    states[slot] = h;
    codes[slot] = code;
  }
  throw new Error("no colliding pair found");
}

/**
 * `2^k` distinct ASCII strings (letters and digits, `prefix` then `5k` characters) with one FNV-1a state,
 * so one 32-bit hash for every hash that is a function of that state (`hashKey`, `hashAscii`).
 */
export function multicollision(k: number, prefix = ""): string[] {
  let state = fnvState(prefix);
  let out = [prefix];
  for (let j = 0; j < k; j++) {
    const found = collidingPair(state);
    out = out.flatMap((text) => [text + found.pair[0], text + found.pair[1]]);
    state = found.state;
  }
  return out;
}
