/**
 * Numbers crafted against V8's hashing of number keys (`Map`, `Set`), which is not seeded: an int32 (a Smi,
 * or a heap number holding an int32 value, -0 included) is hashed by Thomas Wang's 32-bit integer mix, and
 * any other double by a 64-bit mix of its bits; both keep 30 bits. Every step of either mix is invertible
 * (an odd multiplication, a xor with a shift of itself), so choosing the hash's low bits and inverting gives
 * as many keys as wanted whose hashes agree in those bits: a V8 hash table puts them all in one bucket, so
 * each insert and lookup walks a chain as long as the keys already there.
 *
 * The mixes are written here from their published definitions, to craft inputs; the tests measure what the
 * crafted keys cost, so a V8 that hashed them differently would show up as crafted keys costing no more than
 * plain ones (the tests' own check of the craft).
 */

/** The inverse of an odd `a` modulo 2^32 (Newton's iteration). */
export function inverse32(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x;
}

/** Undoes `h ^= h >>> shift` on 32 bits (unsigned). */
export function unshiftXor32(y: number, shift: number): number {
  let x = y;
  for (let s = shift; s < 32; s += shift) x = y ^ (x >>> shift);
  return x >>> 0;
}

/** V8's hash of an int32 key (Wang's mix of its 32 bits), 30 bits. */
export function v8IntHash(key: number): number {
  let h = key | 0;
  h = ~h + (h << 15);
  h ^= h >>> 12;
  h += h << 2;
  h ^= h >>> 4;
  h = Math.imul(h, 2057);
  h ^= h >>> 16;
  return h & 0x3fffffff;
}

/** The int32 whose 32-bit Wang mix (before the 30-bit mask) is `y`. */
function unmixInt(y: number): number {
  let h = unshiftXor32(y >>> 0, 16);
  h = Math.imul(h, inverse32(2057));
  h = unshiftXor32(h, 4);
  h = Math.imul(h, inverse32(5));
  h = unshiftXor32(h, 12);
  // ~h + (h << 15) is h * 32767 - 1.
  return Math.imul(h + 1, inverse32(32767)) | 0;
}

/**
 * `count` distinct non-negative int32 keys (Smis on a 64-bit V8) whose V8 hashes agree in their low `bits`
 * bits: one bucket of any V8 hash table of up to 2^bits buckets. Deterministic.
 */
export function collidingInts(count: number, bits = 16, low = 0x2a5): number[] {
  const out: number[] = [];
  const mask = (1 << bits) - 1;
  for (let high = 1; out.length < count; high++) {
    const key = unmixInt((high << bits) | (low & mask));
    if (key >= 0 && (v8IntHash(key) & mask) === (low & mask)) out.push(key);
  }
  return out;
}

const M64 = (1n << 64n) - 1n;

/** The inverse of an odd `a` modulo 2^64. */
function inverse64(a: bigint): bigint {
  let x = a;
  for (let i = 0; i < 6; i++) x = (x * (2n - a * x)) & M64;
  return x;
}

/** Undoes `h ^= h >> shift` on 64 bits. */
function unshiftXor64(y: bigint, shift: bigint): bigint {
  let x = y;
  for (let s = shift; s < 64n; s += shift) x = y ^ (x >> shift);
  return x;
}

/** V8's hash of a double that is not an int32 (a 64-bit mix of its bits), 30 bits. */
export function v8DoubleHash(value: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  let h = view.getBigUint64(0);
  h = (~h + (h << 18n)) & M64;
  h ^= h >> 31n;
  h = (h * 21n) & M64;
  h ^= h >> 11n;
  h = (h + (h << 6n)) & M64;
  h ^= h >> 22n;
  return Number(h & 0x3fffffffn);
}

/**
 * `count` distinct finite doubles, none an int32 (so V8 hashes their bits), whose V8 hashes agree in their low
 * `bits` bits. Deterministic.
 */
export function collidingDoubles(count: number, bits = 16, low = 0x2a5): number[] {
  const out: number[] = [];
  const mask = (1 << bits) - 1;
  const view = new DataView(new ArrayBuffer(8));
  const inv21 = inverse64(21n);
  const inv65 = inverse64(65n);
  const inv262143 = inverse64((1n << 18n) - 1n);
  for (let high = 1n; out.length < count; high++) {
    // A 64-bit result with the chosen low bits; the bits above spread by a multiplier.
    let h = ((high * 0x9e3779b97f4a7c15n) & M64 & ~BigInt(mask)) | BigInt(low & mask);
    h = unshiftXor64(h, 22n);
    h = (h * inv65) & M64;
    h = unshiftXor64(h, 11n);
    h = (h * inv21) & M64;
    h = unshiftXor64(h, 31n);
    h = ((h + 1n) * inv262143) & M64;
    view.setBigUint64(0, h);
    const value = view.getFloat64(0);
    if (!Number.isFinite(value) || (value | 0) === value) continue;
    if ((v8DoubleHash(value) & mask) === (low & mask)) out.push(value);
  }
  return out;
}
