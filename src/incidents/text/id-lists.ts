/**
 * Ascending lists of value ids (text/index.ts has the map), as the trigram lists and proofs hold them:
 * their union, intersection and difference, each a merge (or binary probes when one list is much shorter).
 */

/** No ids. */
export const NO_IDS = new Int32Array(0);

/** The ids `0 … count-1`, ascending. */
export function idsBelow(count: number): Int32Array {
  const ids = new Int32Array(count);
  for (let id = 0; id < count; id++) ids[id] = id;
  return ids;
}

/** The union of two ascending id lists (each id once), ascending: a merge. */
export function unite(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

/** The intersection of two ascending id lists: a merge, or binary probes when one is much shorter. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length > b.length) return intersect(b, a);
  const out = new Int32Array(a.length);
  let n = 0;
  if (b.length > 16 * a.length) {
    let lo = 0;
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      let hi = b.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (b[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      if (lo < b.length && b[lo] === x) out[n++] = x;
    }
    return out.subarray(0, n);
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}

/** The ids of ascending list `a` that ascending list `b` lacks. */
export function exclude(a: Int32Array, b: Int32Array): Int32Array {
  if (b.length === 0) return a;
  const out = new Int32Array(a.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const id = a[i]!;
    while (j < b.length && b[j]! < id) j++;
    if (j === b.length || b[j] !== id) out[n++] = id;
  }
  return out.subarray(0, n);
}
