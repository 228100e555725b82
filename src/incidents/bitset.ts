/**
 * Bitsets: the selection vectors of an `IncidentSet` (a set of row numbers, one bit per row), which the
 * column leaves produce and the planner combines 32 rows per word operation.
 *
 * Row `i` is bit `i & 31` of word `i >>> 5`. A bitset for `size` rows has `ceil(size / 32)` words and keeps
 * the bits past `size` clear (every function here that could set them clears them again). The combining
 * functions return fresh arrays and never modify their inputs, which may be shared (a leaf's cached bits).
 */

/** A set of row numbers as bits: row `i` is bit `i & 31` of word `i >>> 5`. */
export type Bitset = Uint32Array;

/** An empty bitset for `size` rows. */
export function emptyBitset(size: number): Bitset {
  return new Uint32Array((size + 31) >>> 5);
}

/** A bitset with every row `0 … size-1` set (the bits past `size` stay clear). */
export function fullBitset(size: number): Bitset {
  const bits = emptyBitset(size);
  bits.fill(0xffffffff);
  clearTail(bits, size);
  return bits;
}

/** Clears the bits past `size` in the last word (after a complement). */
export function clearTail(bits: Bitset, size: number): void {
  const rest = size & 31;
  if (rest !== 0 && bits.length > 0) bits[bits.length - 1]! &= 2 ** rest - 1;
}

/** The set bits of a 32-bit word. */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Number of rows set. */
export function popcount(bits: Bitset): number {
  let total = 0;
  for (let w = 0; w < bits.length; w++) {
    const x = bits[w]!;
    if (x !== 0) total += popcount32(x);
  }
  return total;
}

/** True when row `i` is set. */
export function hasBit(bits: Bitset, i: number): boolean {
  return (bits[i >>> 5]! & (1 << (i & 31))) !== 0;
}

/** Sets row `i`. */
export function setBit(bits: Bitset, i: number): void {
  bits[i >>> 5]! |= 1 << (i & 31);
}

/** The rows set, ascending, as a list. */
export function bitsToRows(bits: Bitset): Int32Array {
  const rows = new Int32Array(popcount(bits));
  let k = 0;
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w]!;
    while (x !== 0) {
      const low = x & -x;
      rows[k++] = (w << 5) + 31 - Math.clz32(low);
      x ^= low;
    }
  }
  return rows;
}

/** A bitset for `size` rows with the given rows set (each row in `0 … size-1`). */
export function rowsToBits(rows: ArrayLike<number>, size: number): Bitset {
  const bits = emptyBitset(size);
  for (let k = 0; k < rows.length; k++) setBit(bits, rows[k]!);
  return bits;
}

/** `a ∩ b` (a fresh array; `a` and `b` have the same length). */
export function and(a: Bitset, b: Bitset): Bitset {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w]! & b[w]!;
  return out;
}

/** `a ∪ b` (a fresh array; `a` and `b` have the same length). */
export function or(a: Bitset, b: Bitset): Bitset {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w]! | b[w]!;
  return out;
}

/** The rows `0 … size-1` not in `a` (a fresh array; the bits past `size` stay clear). */
export function not(a: Bitset, size: number): Bitset {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = ~a[w]!;
  clearTail(out, size);
  return out;
}

/** `a \ b` (a fresh array; `a` and `b` have the same length). */
export function andNot(a: Bitset, b: Bitset): Bitset {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w]! & ~b[w]!;
  return out;
}
