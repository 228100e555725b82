/**
 * The line kernel: WebAssembly SIMD128, compiled from this source by AssemblyScript (`npm run build:kernel`,
 * part of `npm run build`). It reads a block of NDJSON lines copied into its memory and answers, per line,
 * what `LineScanner.scanLine` (src/incidents/line-scanner.ts) answers for it, or that it leaves the line to
 * that scanner:
 *
 * - the line's bounds (its first byte, its `\n` or the block's end) and its content (the object, without the
 *   blanks around it);
 * - `OK` when the line is one JSON object, valid UTF-8, that repeats no key in any of its objects, with keys
 *   written without escapes; then, for each wanted top-level key, the kind and the byte span of its value;
 * - `DEFER` for any other line (a syntax error, an escape in a key, a byte order mark, invalid UTF-8, a
 *   repeated key, nesting deeper than `MAX_DEPTH`, an object of more than `MAX_KEYS` keys): the JavaScript
 *   scanner reads it and gives its own answer, so the kernel never has the last word on an unusual line.
 *
 * With a filter (`setFilter`, then `begin` with `filtered`), a line read `OK` whose plain ASCII value of a
 * tested field fails a test (equal to one of some strings, an ISO-8601 UTC instant within bounds, holding
 * a literal) is judged here: no record is written for it, and the next record (or `skippedLines`, after the
 * block's last record) counts it. Each test is one that `LineMatcher.testRow` (src/incidents/line-matcher.ts)
 * makes on that value, so a skipped line is one it answers "no match" for; any other value (escaped,
 * non-ASCII, not a string, an instant of another form) passes here and is judged there.
 *
 * Strings are skipped 16 bytes a step (a SIMD compare finds the first quote, backslash, control character
 * or byte ≥ 0x80), lines are found 16 bytes a step, and the top-level keys of a line are compared with the
 * previous line's 16 bytes a step (most lines repeat the keys of the line before, known to be distinct).
 * The block is followed by zero bytes: a zero is invalid everywhere in JSON, so no scan runs past the block.
 *
 * Speed: the benchmark row "line kernel: WebAssembly SIMD vs JavaScript scanner" (bench/one-shot.ts) shows
 * what it pays.
 *
 * Memory (bytes from `base`): the wanted keys, the filter, the key stacks, the block, its padding, then the
 * results.
 */

// Line statuses.
const OK: i32 = 0;
const DEFER: i32 = 1;

// Field kinds (the JavaScript side decodes each; see src/node/kernel.ts).
export const KIND_MISSING: i32 = 0;
/** A string of ASCII bytes without escapes or control characters: the span is its content. */
export const KIND_ASCII: i32 = 1;
/** Any other string (escapes, or UTF-8 of more than one byte): the span includes the quotes. */
export const KIND_STRING: i32 = 2;
export const KIND_NUMBER: i32 = 3;
export const KIND_TRUE: i32 = 4;
export const KIND_FALSE: i32 = 5;
export const KIND_NULL: i32 = 6;
/** An object or an array: the span is its text. */
export const KIND_CONTAINER: i32 = 7;

/** Most wanted keys, and their bytes in all. */
const MAX_FIELDS: i32 = 64;
const MAX_KEY_BYTES: i32 = 4096;
/** Keys of one object compared pair by pair; an object with more is left to the JavaScript scanner. */
const MAX_KEYS: i32 = 128;
/** Containers open at once; deeper lines are left to the JavaScript scanner. */
const MAX_DEPTH: i32 = 512;
/** Keys open in the nested objects of one value. */
const MAX_NESTED_KEYS: i32 = 8192;
/** Filter tests, the strings they name (equality operands, date bounds, literals), and those strings' bytes. */
const MAX_TESTS: i32 = 64;
const MAX_FILTER_STRINGS: i32 = 256;
const MAX_FILTER_BYTES: i32 = 8192;
/** Test kinds (`setFilter`). */
const TEST_EQUALS: i32 = 1;
const TEST_DATE: i32 = 2;
const TEST_CONTAINS: i32 = 3;
/** The line records of one call to `scan`. */
export const BATCH_LINES: i32 = 4096;
/** Zero bytes after the block. */
const PAD: i32 = 64;

// Fixed areas, from `base`.
const base: usize = (__heap_base + 15) & ~(15 as usize);
/** Wanted keys: offsets (i32, MAX_FIELDS + 1) then bytes. */
const keyOffsets: usize = base;
const keyBytes: usize = keyOffsets + <usize>(MAX_FIELDS + 1) * 4;
/** Wanted-key lookup: 256 slots of field + 1 (0 empty), by `slotOf`. */
const keyTable: usize = (keyBytes + <usize>MAX_KEY_BYTES + 15) & ~(15 as usize);
/**
 * Filter tests: field, kind, a, b (i32 each; see `setFilter`). Like the wanted keys, in the first page of
 * the memory, which the caller may write before any `reserve`.
 */
const filterTests: usize = keyTable + 256 * 4;
/** Filter strings: offset in `filterBytes`, length (i32 each). */
const filterStrings: usize = filterTests + <usize>MAX_TESTS * 16;
/** Filter bytes, 16 bytes of padding after them (`equalBytes` reads past a string's end). */
const filterBytes: usize = filterStrings + <usize>MAX_FILTER_STRINGS * 8;
/** This line's top-level keys: start, length, field (i32 each). */
const topKeys: usize = (filterBytes + <usize>MAX_FILTER_BYTES + 16 + 15) & ~(15 as usize);
/** The previous line's top-level keys (the shape): start, length, field. */
const shapeKeys: usize = topKeys + <usize>MAX_KEYS * 12;
/** Keys of the open nested objects: start, length. */
const nestedKeys: usize = shapeKeys + <usize>MAX_KEYS * 12;
/** Per open container: 1 object, 2 array; and the first of its keys in `nestedKeys` (i32). */
const depthKinds: usize = nestedKeys + <usize>MAX_NESTED_KEYS * 8;
const depthFrames: usize = depthKinds + <usize>MAX_DEPTH;
const blockStart: usize = (depthFrames + <usize>MAX_DEPTH * 4 + 15) & ~(15 as usize);
/**
 * Record layout: start, end, content start, content end, status, lines skipped before it, the members'
 * count, the index of their first cut and the line's epoch (see `scan`), then the fields.
 */
const ROW_FIELDS_BYTES: usize = 36;
/** Numbers per record before the fields. */
const ROW_HEAD: i32 = 9;
/**
 * Cuts (i32) one batch may hold: a batch ends early when the next line might not fit (`MAX_KEYS` members,
 * two cuts each).
 */
const CUT_WORDS: i32 = BATCH_LINES * 64;

let fieldCount: i32 = 0;
let stride: i32 = ROW_HEAD;
/** The filter's tests (`setFilter`), the longest line it judges (bytes, its `\r` included), whether it is on. */
let testCount: i32 = 0;
let filterMaxLine: i32 = 0;
let filtering: bool = false;
/** Lines judged by the filter since the last record written. */
let skipped: i32 = 0;
let blockLength: i32 = 0;
let resultStart: usize = 0;
/** Where the cuts of a batch go (after the results), whether the block's lines are cut, and the cuts written. */
let cutStart: usize = 0;
let cutting: bool = false;
let cutCount: i32 = 0;
/**
 * Grows each time the remembered top-level keys change (`parseLine`): the compact lines of one epoch hold
 * a prefix of those keys, so the bytes between their first `n` values are the same (see `scan`).
 */
let epochs: i32 = 0;
/** Where the next call to `scan` starts (an index in the block), and the offset added to every position. */
let cursor: i32 = 0;
let offset: i32 = 0;
let shapeCount: i32 = 0;
/** Per string scanned: it held an escape / a byte ≥ 0x80. */
let escaped: bool = false;
let high: bool = false;

/** Where the caller writes the wanted keys: `count + 1` offsets (i32), then the bytes from `keysBytes()`. */
export function keysOffsets(): usize {
  return keyOffsets;
}

export function keysBytes(): usize {
  return keyBytes;
}

/** The most wanted keys, and their total bytes. */
export function maxFields(): i32 {
  return MAX_FIELDS;
}

export function maxKeyBytes(): i32 {
  return MAX_KEY_BYTES;
}

function slotOf(start: usize, length: i32): i32 {
  if (length === 0) return 0;
  return (length * 31 + <i32>load<u8>(start) * 7 + <i32>load<u8>(start + <usize>length - 1)) & 255;
}

/** Takes the `count` wanted keys the caller wrote (see `keysOffsets`). A repeated key keeps its first field. */
export function configure(count: i32): void {
  fieldCount = count;
  stride = ROW_HEAD + 3 * count;
  memory.fill(keyTable, 0, 256 * 4);
  for (let f = 0; f < count; f++) {
    const from = load<i32>(keyOffsets + <usize>f * 4);
    const to = load<i32>(keyOffsets + <usize>(f + 1) * 4);
    let slot = slotOf(keyBytes + <usize>from, to - from);
    let taken = false;
    while (true) {
      const entry = load<i32>(keyTable + <usize>slot * 4);
      if (entry === 0) break;
      if (sameWanted(entry - 1, keyBytes + <usize>from, to - from)) {
        taken = true;
        break;
      }
      slot = (slot + 1) & 255;
    }
    if (!taken) store<i32>(keyTable + <usize>slot * 4, f + 1);
  }
}

function sameWanted(field: i32, start: usize, length: i32): bool {
  const from = load<i32>(keyOffsets + <usize>field * 4);
  const to = load<i32>(keyOffsets + <usize>(field + 1) * 4);
  return to - from === length && equalBytes(keyBytes + <usize>from, start, length);
}

/** The wanted field whose bytes are `[start, start + length)`, or -1. */
function fieldOf(start: usize, length: i32): i32 {
  let slot = slotOf(start, length);
  while (true) {
    const entry = load<i32>(keyTable + <usize>slot * 4);
    if (entry === 0) return -1;
    if (sameWanted(entry - 1, start, length)) return entry - 1;
    slot = (slot + 1) & 255;
  }
}

/** Byte equality, 16 bytes a step (both ranges may be read up to 15 bytes past their end: the areas are padded). */
@inline
function equalBytes(a: usize, b: usize, length: i32): bool {
  let i: i32 = 0;
  while (i + 16 <= length) {
    if (i8x16.bitmask(i8x16.eq(v128.load(a + <usize>i), v128.load(b + <usize>i))) !== 0xffff) return false;
    i += 16;
  }
  if (i < length) {
    const mask = i8x16.bitmask(i8x16.eq(v128.load(a + <usize>i), v128.load(b + <usize>i)));
    const want = (1 << (length - i)) - 1;
    if ((mask & want) !== want) return false;
  }
  return true;
}

/**
 * Makes room for a block of `length` bytes: grows the memory when needed. The memory starts at 160 pages
 * (10 MiB, `initialMemory` in asconfig.json), room for a 4 MiB block with its results and cuts, so that a
 * build or a count never grows it: growing detaches the memory's old `ArrayBuffer`, and in V8 the first
 * buffer detached in a process makes the optimized typed-array code of the whole process slower (a 1M
 * `fromNdjson` without the kernel took 1.09–1.18x the processor time once a kernel's memory had grown, three
 * runs each). Pays: the kernel row of bench/one-shot.ts, "line kernel: WebAssembly SIMD vs JavaScript
 * scanner … fromNdjson" (docs/performance.md, "The set build on the line kernel").
 * @returns the address where the caller copies the block, or 0 when the memory cannot grow
 */
export function reserve(length: i32): usize {
  const need =
    blockStart +
    <usize>length +
    <usize>PAD +
    16 +
    <usize>BATCH_LINES * <usize>(ROW_HEAD + 3 * MAX_FIELDS) * 4 +
    <usize>CUT_WORDS * 4;
  const have = <usize>memory.size() << 16;
  if (need > have) {
    const pages = <i32>((need - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0) return 0;
  }
  return blockStart;
}

/**
 * Starts on the block of `length` bytes the caller wrote at `reserve`'s address, its first line at index
 * `from`; every position in the results is an index in the block plus `at`. With `filtered`, the filter
 * (`setFilter`) judges the lines it can; with `cut`, each record gives where its line's top-level values
 * start and end (see `scan`).
 */
export function begin(length: i32, at: i32, from: i32, filtered: bool, cut: bool): void {
  blockLength = length;
  offset = at;
  cursor = from;
  shapeCount = 0;
  skipped = 0;
  filtering = filtered && testCount > 0;
  memory.fill(blockStart + <usize>length, 0, PAD);
  resultStart = (blockStart + <usize>length + <usize>PAD + 15) & ~(15 as usize);
  cutStart = resultStart + <usize>BATCH_LINES * <usize>stride * 4;
  cutting = cut;
}

/** Where the cuts of the last `scan` are (i32 each), and how many it wrote. */
export function cuts(): usize {
  return cutStart;
}

export function cutsWritten(): i32 {
  return cutCount;
}

/** Where the results of the last `scan` are: per line `stride()` i32 values. */
export function results(): usize {
  return resultStart;
}

export function lineStride(): i32 {
  return stride;
}

/** Lines the filter judged since the last record `scan` wrote (after the last `scan`: the block's tail). */
export function skippedLines(): i32 {
  return skipped;
}

/** Where the caller writes the filter: the tests (i32 × 4 each), the strings (i32 × 2 each), their bytes. */
export function filterTestsAt(): usize {
  return filterTests;
}

export function filterStringsAt(): usize {
  return filterStrings;
}

export function filterBytesAt(): usize {
  return filterBytes;
}

/** The filter's limits: tests, strings, bytes. */
export function maxTests(): i32 {
  return MAX_TESTS;
}

export function maxFilterStrings(): i32 {
  return MAX_FILTER_STRINGS;
}

export function maxFilterBytes(): i32 {
  return MAX_FILTER_BYTES;
}

/**
 * Takes the `count` filter tests the caller wrote (see `filterTestsAt`): per test its field, its kind and
 * two numbers; `TEST_EQUALS`: the first of its strings and their count; `TEST_DATE`: flags (1 a lower bound,
 * 2 inclusive, 4 an upper bound, 8 inclusive) and the string of the lower bound (the upper's is the next):
 * a bound is the 22 bytes `yyyy-MM-ddTHH:mm:ss` then the milliseconds' three digits; `TEST_CONTAINS`: its
 * string and 1 to compare ASCII letters lower-cased (the string is lower-case then). Lines longer than
 * `maxLine` bytes are not judged.
 */
export function setFilter(count: i32, maxLine: i32): void {
  testCount = count;
  filterMaxLine = maxLine;
}

/** Whether the whole block has been scanned. */
export function done(): bool {
  return cursor >= blockLength;
}

/**
 * Scans the next lines of the block (at most `BATCH_LINES`).
 * @returns how many line records were written at `results()`: per line its start, its end (its `\n`, or the
 *   block's end), its content's start and end, its status, the lines the filter judged before it, then (a
 *   block begun with `cut`, status `OK`; else -1, 0, -1) how many top-level values the line holds, the index
 *   at `cuts()` (in i32) of its first value's start and end (the next value's follow), and its epoch: -1,
 *   or a number that lines of the block share only when the bytes between their first `n` values are the
 *   same (written without blanks, with the same keys in the same order), then per wanted field its kind,
 *   start and end
 */
export function scan(): i32 {
  let n: i32 = 0;
  let out = resultStart;
  const end = blockStart + <usize>blockLength;
  let p = blockStart + <usize>cursor;
  cutCount = 0;
  while (n < BATCH_LINES && !done()) {
    // Room for the cuts of a line of `MAX_KEYS` values.
    if (cutting && cutCount > CUT_WORDS - 2 * MAX_KEYS) break;
    const lineStart = p;
    for (let f: i32 = 0; f < fieldCount; f++) store<i32>(out + ROW_FIELDS_BYTES + <usize>f * 12, KIND_MISSING);
    store<i32>(out, -1, 24);
    store<i32>(out, cutCount, 28);
    store<i32>(out, -1, 32);
    let lineEnd = parseLine(p, out);
    let status = OK;
    if (lineEnd === 0) {
      status = DEFER;
      store<i32>(out, -1, 24);
      store<i32>(out, -1, 32);
      lineEnd = findLf(lineStart, end);
    } else if (filtering && <i32>(lineEnd - lineStart) <= filterMaxLine && fails(out)) {
      // Judged here: a record that does not match; no record is written for it (nor its cuts kept).
      if (cutting) cutCount = load<i32>(out, 28);
      skipped++;
      p = lineEnd + 1;
      cursor = <i32>(p - blockStart);
      continue;
    }
    store<i32>(out, <i32>(lineStart - blockStart) + offset);
    store<i32>(out, <i32>(lineEnd - blockStart) + offset, 4);
    store<i32>(out, status, 16);
    store<i32>(out, skipped, 20);
    skipped = 0;
    out += <usize>stride * 4;
    n++;
    p = lineEnd + 1;
    cursor = <i32>(p - blockStart);
  }
  return n;
}

/** The first `\n` at or after `p`, or `end`. */
function findLf(p: usize, end: usize): usize {
  const lf = i8x16.splat(10);
  while (p < end) {
    const mask = i8x16.bitmask(i8x16.eq(v128.load(p), lf));
    if (mask !== 0) {
      const at = p + <usize>ctz(mask);
      return at < end ? at : end;
    }
    p += 16;
  }
  return end;
}

@inline
function skipBlank(p: usize): usize {
  while (true) {
    const c = load<u8>(p);
    if (c !== 32 && c !== 9 && c !== 13) return p;
    p++;
  }
}

/**
 * Reads the line at `p` into the record at `out` (content bounds and fields).
 * @returns the address of the `\n` ending the line (or the block's end), or 0 when the line is left to the
 *   JavaScript scanner
 */
function parseLine(p: usize, out: usize): usize {
  p = skipBlank(p);
  const contentStart = p;
  if (load<u8>(p) !== 0x7b) return 0;
  p = skipBlank(p + 1);
  // No blank between the values and their keys (`{"a":1,"b":2}`), and where the line's cuts go.
  let compact = p === contentStart + 1;
  const cutAt = cutStart + <usize>cutCount * 4;
  let count: i32 = 0;
  let same = shapeCount > 0;
  let matched: i32 = 0;
  if (load<u8>(p) === 0x7d) p++;
  else {
    while (true) {
      if (load<u8>(p) !== 0x22) return 0;
      if (count === MAX_KEYS) return 0;
      const keyStart = p + 1;
      let keyEnd: usize = 0;
      let field: i32 = -1;
      if (same && count < shapeCount) {
        const at = shapeKeys + <usize>count * 12;
        const from = <usize>load<i32>(at);
        const length = load<i32>(at, 4);
        if (load<u8>(keyStart + <usize>length) === 0x22 && equalBytes(keyStart, from, length)) {
          keyEnd = keyStart + <usize>length;
          field = load<i32>(at, 8);
          matched = count + 1;
        }
      }
      if (keyEnd === 0) {
        same = false;
        escaped = false;
        keyEnd = stringEnd(keyStart);
        if (keyEnd === 0 || escaped) return 0;
        field = fieldOf(keyStart, <i32>(keyEnd - keyStart));
      }
      const top = topKeys + <usize>count * 12;
      store<i32>(top, <i32>keyStart);
      store<i32>(top, <i32>(keyEnd - keyStart), 4);
      store<i32>(top, field, 8);
      count++;
      // The compact form first: the colon right after the key's closing quote, the value right after it.
      if (load<u8>(keyEnd + 1) === 0x3a) p = keyEnd + 2;
      else {
        compact = false;
        p = skipBlank(keyEnd + 1);
        if (load<u8>(p) !== 0x3a) return 0;
        p = p + 1;
      }
      const colon = p;
      p = skipBlank(p);
      if (p !== colon) compact = false;
      const valueStart = p;
      const c = load<u8>(p);
      let kind: i32 = KIND_CONTAINER;
      let spanStart = valueStart;
      let spanEnd: usize = 0;
      if (c === 0x22) {
        escaped = false;
        high = false;
        const q = stringEnd(p + 1);
        if (q === 0) return 0;
        if (escaped || high) {
          kind = KIND_STRING;
          spanEnd = q + 1;
        } else {
          kind = KIND_ASCII;
          spanStart = p + 1;
          spanEnd = q;
        }
        p = q + 1;
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        p = scanNumber(p);
        if (p === 0) return 0;
        kind = KIND_NUMBER;
        spanEnd = p;
      } else if (c === 0x7b || c === 0x5b) {
        p = skipNested(p);
        if (p === 0) return 0;
        spanEnd = p;
      } else {
        const word = load<u32>(p);
        if (word === 0x65757274) {
          kind = KIND_TRUE;
          p += 4;
        } else if (word === 0x6c6c756e) {
          kind = KIND_NULL;
          p += 4;
        } else if (word === 0x736c6166 && load<u8>(p + 4) === 0x65) {
          kind = KIND_FALSE;
          p += 5;
        } else return 0;
        spanEnd = p;
      }
      if (field >= 0) {
        const slot = out + ROW_FIELDS_BYTES + <usize>field * 12;
        store<i32>(slot, kind);
        store<i32>(slot, <i32>(spanStart - blockStart) + offset, 4);
        store<i32>(slot, <i32>(spanEnd - blockStart) + offset, 8);
      }
      if (cutting) {
        // The cuts and the epoch let the records' shape encoder skip its own scan of the line's values
        // (record-shapes.ts `encode`). Pays: the kernel row of bench/one-shot.ts, "line kernel: WebAssembly
        // SIMD vs JavaScript scanner … fromNdjson" (docs/performance.md, "The set build on the line kernel").
        // `count` is already this value's number plus one.
        const cut = cutAt + <usize>(count - 1) * 8;
        store<i32>(cut, <i32>(valueStart - blockStart) + offset);
        store<i32>(cut, <i32>(p - blockStart) + offset, 4);
      }
      let d = load<u8>(p);
      if (d === 0x2c) {
        const comma = p + 1;
        p = skipBlank(comma);
        if (p !== comma) compact = false;
        continue;
      }
      if (d !== 0x7d) {
        compact = false;
        p = skipBlank(p);
        d = load<u8>(p);
        if (d === 0x2c) {
          p = skipBlank(p + 1);
          continue;
        }
        if (d !== 0x7d) return 0;
      }
      p++;
      break;
    }
  }
  const contentEnd = p;
  p = skipBlank(p);
  const end = blockStart + <usize>blockLength;
  if (p !== end && load<u8>(p) !== 10) return 0;
  // Keys in the previous line's order are distinct; each other key is compared with the ones before it.
  if (!same) {
    if (repeats(topKeys, 12, count, matched)) return 0;
    if (count > 0) {
      memory.copy(shapeKeys, topKeys, <usize>count * 12);
      shapeCount = count;
      epochs++;
    }
  }
  store<i32>(out, <i32>(contentStart - blockStart) + offset, 8);
  store<i32>(out, <i32>(contentEnd - blockStart) + offset, 12);
  if (cutting) {
    // An empty object has no cuts to share.
    store<i32>(out, count, 24);
    store<i32>(out, compact && count > 0 ? epochs : -1, 32);
    cutCount += 2 * count;
  }
  return p;
}

/** Whether a key of `[0, count)` (start and length at `keys`, `size` bytes apart) equals an earlier one; those before `known` are distinct. */
function repeats(keys: usize, size: usize, count: i32, known: i32): bool {
  for (let i: i32 = known > 1 ? known : 1; i < count; i++) {
    const si = <usize>load<i32>(keys + <usize>i * size);
    const li = load<i32>(keys + <usize>i * size, 4);
    for (let j: i32 = 0; j < i; j++) {
      const lj = load<i32>(keys + <usize>j * size, 4);
      if (li !== lj) continue;
      if (equalBytes(si, <usize>load<i32>(keys + <usize>j * size), li)) return true;
    }
  }
  return false;
}

/** `scanString`, with the common short string (its closing quote in the first 16 bytes, nothing before it) inline. */
@inline
function stringEnd(p: usize): usize {
  const v = v128.load(p);
  const mask = i8x16.bitmask(
    v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))), i8x16.lt_s(v, i8x16.splat(0x20))),
  );
  if (mask !== 0) {
    const q = p + <usize>ctz(mask);
    if (load<u8>(q) === 0x22) return q;
  }
  return scanString(p);
}

/**
 * Scans a string's body from `p` (after its opening quote), 16 bytes a step: the address of its closing
 * quote, or 0 when it is not a valid JSON string of valid UTF-8. Sets `escaped` and `high`.
 */
function scanString(p: usize): usize {
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  while (true) {
    const v = v128.load(p);
    // Signed: bytes ≥ 0x80 are negative, so "less than 0x20" also finds them.
    const mask = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_s(v, space)));
    if (mask === 0) {
      p += 16;
      continue;
    }
    p += <usize>ctz(mask);
    const c = <i32>load<u8>(p);
    if (c === 0x22) return p;
    if (c === 0x5c) {
      escaped = true;
      const e = <i32>load<u8>(p + 1);
      if (e === 0x75) {
        if (!isHex(load<u8>(p + 2)) || !isHex(load<u8>(p + 3)) || !isHex(load<u8>(p + 4)) || !isHex(load<u8>(p + 5)))
          return 0;
        p += 6;
      } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        p += 2;
      } else return 0;
      continue;
    }
    if (c < 0x20) return 0;
    high = true;
    p = utf8Char(p, c);
    if (p === 0) return 0;
  }
}

@inline
function isHex(c: u8): bool {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

@inline
function isContinuation(c: u8): bool {
  return (c & 0xc0) === 0x80;
}

/** Checks the UTF-8 character whose lead byte `c` (≥ 0x80) is at `p` (as a fatal `TextDecoder` does): the address after it, or 0. */
function utf8Char(p: usize, c: i32): usize {
  if (c < 0xc2) return 0;
  const c1 = load<u8>(p + 1);
  if (c < 0xe0) return isContinuation(c1) ? p + 2 : 0;
  const c2 = load<u8>(p + 2);
  if (c < 0xf0) {
    // No overlong form (E0 needs A0..BF), no surrogate (ED needs 80..9F).
    if (c === 0xe0 ? c1 < 0xa0 || c1 > 0xbf : c === 0xed ? c1 < 0x80 || c1 > 0x9f : !isContinuation(c1)) return 0;
    return isContinuation(c2) ? p + 3 : 0;
  }
  if (c > 0xf4) return 0;
  const c3 = load<u8>(p + 3);
  // F0 needs 90..BF (no overlong form); F4 needs 80..8F (at most U+10FFFF).
  if (c === 0xf0 ? c1 < 0x90 || c1 > 0xbf : c === 0xf4 ? c1 < 0x80 || c1 > 0x8f : !isContinuation(c1)) return 0;
  return isContinuation(c2) && isContinuation(c3) ? p + 4 : 0;
}

/** Scans a JSON number at `p`: the address after it, or 0. */
function scanNumber(p: usize): usize {
  if (load<u8>(p) === 0x2d) p++;
  let c = load<u8>(p);
  if (c === 0x30) p++;
  else if (c >= 0x31 && c <= 0x39) p = skipDigits(p + 1);
  else return 0;
  if (load<u8>(p) === 0x2e) {
    const from = p + 1;
    p = skipDigits(from);
    if (p === from) return 0;
  }
  c = load<u8>(p);
  if (c === 0x65 || c === 0x45) {
    p++;
    c = load<u8>(p);
    if (c === 0x2b || c === 0x2d) p++;
    const from = p;
    p = skipDigits(from);
    if (p === from) return 0;
  }
  return p;
}

@inline
function skipDigits(p: usize): usize {
  while (true) {
    const c = load<u8>(p);
    if (c < 0x30 || c > 0x39) return p;
    p++;
  }
}

/** Pushes the key at `p` (a quote) of a nested object and skips to its value: the value's address, or 0. */
function nestedKey(p: usize, top: i32): usize {
  if (load<u8>(p) !== 0x22 || top >= MAX_NESTED_KEYS) return 0;
  escaped = false;
  const q = scanString(p + 1);
  if (q === 0 || escaped) return 0;
  const at = nestedKeys + <usize>top * 8;
  store<i32>(at, <i32>(p + 1));
  store<i32>(at, <i32>(q - p - 1), 4);
  p = skipBlank(q + 1);
  if (load<u8>(p) !== 0x3a) return 0;
  return skipBlank(p + 1);
}

/** Skips the object or array at `p`, validating it and checking its objects' keys: the address after it, or 0. */
function skipNested(p: usize): usize {
  let depth: i32 = 0;
  let top: i32 = 0;
  while (true) {
    // A value starts at p.
    const c = load<u8>(p);
    if (c === 0x7b || c === 0x5b) {
      if (depth === MAX_DEPTH) return 0;
      store<u8>(depthKinds + <usize>depth, c === 0x7b ? 1 : 2);
      store<i32>(depthFrames + <usize>depth * 4, top);
      depth++;
      p = skipBlank(p + 1);
      if (load<u8>(p) === (c === 0x7b ? 0x7d : 0x5d)) {
        depth--;
        p++;
      } else {
        if (c === 0x7b) {
          p = nestedKey(p, top);
          if (p === 0) return 0;
          top++;
        }
        continue;
      }
    } else if (c === 0x22) {
      const q = scanString(p + 1);
      if (q === 0) return 0;
      p = q + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      p = scanNumber(p);
      if (p === 0) return 0;
    } else {
      const word = load<u32>(p);
      if (word === 0x65757274 || word === 0x6c6c756e) p += 4;
      else if (word === 0x736c6166 && load<u8>(p + 4) === 0x65) p += 5;
      else return 0;
    }
    // After a value: close containers, or go on to the next element.
    while (true) {
      if (depth === 0) return p;
      p = skipBlank(p);
      const d = load<u8>(p);
      const inObject = load<u8>(depthKinds + <usize>depth - 1) === 1;
      if (d === 0x2c) {
        p = skipBlank(p + 1);
        if (inObject) {
          p = nestedKey(p, top);
          if (p === 0) return 0;
          top++;
        }
        break;
      }
      if (d !== (inObject ? 0x7d : 0x5d)) return 0;
      depth--;
      if (inObject) {
        const from = load<i32>(depthFrames + <usize>depth * 4);
        if (top - from > MAX_KEYS) return 0;
        if (repeats(nestedKeys + <usize>from * 8, 8, top - from, 0)) return 0;
        top = from;
      }
      p++;
    }
  }
}

/** Whether a test of the filter fails on a plain ASCII value of the line whose fields the record at `out` holds. */
function fails(out: usize): bool {
  for (let t: i32 = 0; t < testCount; t++) {
    const test = filterTests + <usize>t * 16;
    const slot = out + ROW_FIELDS_BYTES + <usize>load<i32>(test) * 12;
    if (load<i32>(slot) !== KIND_ASCII) continue;
    const start = blockStart + <usize>(load<i32>(slot, 4) - offset);
    const length = load<i32>(slot, 8) - load<i32>(slot, 4);
    const kind = load<i32>(test, 4);
    const a = load<i32>(test, 8);
    const b = load<i32>(test, 12);
    if (kind === TEST_EQUALS) {
      if (!equalsOne(start, length, a, b)) return true;
    } else if (kind === TEST_DATE) {
      if (outOfRange(start, length, a, b)) return true;
    } else if (kind === TEST_CONTAINS) {
      const at = filterStrings + <usize>a * 8;
      if (!holds(start, length, filterBytes + <usize>load<i32>(at), load<i32>(at, 4), b !== 0)) return true;
    }
  }
  return false;
}

/** Whether `[start, start + length)` equals one of the `count` filter strings from `first`. */
function equalsOne(start: usize, length: i32, first: i32, count: i32): bool {
  for (let k: i32 = first; k < first + count; k++) {
    const at = filterStrings + <usize>k * 8;
    if (load<i32>(at, 4) === length && equalBytes(start, filterBytes + <usize>load<i32>(at), length)) return true;
  }
  return false;
}

@inline
function digit(p: usize): i32 {
  return <i32>load<u8>(p) - 0x30;
}

/** Two ASCII digits at `p` as a number, or -1 (as `byteDigits2` of src/conditions/dates.ts). */
@inline
function digits2(p: usize): i32 {
  const x = digit(p);
  const y = digit(p + 1);
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

/**
 * Whether `[start, start + length)` is an ISO-8601 UTC instant (as `isoUtcBytesMs` of src/conditions/dates.ts
 * reads one: `yyyy-MM-ddTHH:mm:ssZ` or `yyyy-MM-ddTHH:mm:ss.SSSZ`, a real date and time) outside the bounds
 * of the date test (`flags`, its lower bound the filter string `bound`, its upper the next). A value that is
 * no such instant is not outside: the JavaScript side judges it.
 *
 * The bytes are compared with the bounds first and the instant checked only when they fall outside: the
 * bytes of a valid instant, then its milliseconds' digits, compare as its time does, and a value that is
 * no instant is never outside, whatever its bytes. Speed: bench/one-shot.ts, the date range rows (each line
 * of the export goes through here; docs/performance.md, "The kernel's filter": the date test).
 */
function outOfRange(start: usize, length: i32, flags: i32, bound: i32): bool {
  if (length !== 20 && length !== 24) return false;
  let outside = false;
  if ((flags & 1) !== 0) {
    const c = compareInstant(start, length, bound);
    outside = c < 0 || (c === 0 && (flags & 2) === 0);
  }
  if (!outside && (flags & 4) !== 0) {
    const c = compareInstant(start, length, bound + 1);
    outside = c > 0 || (c === 0 && (flags & 8) === 0);
  }
  return outside && isInstant(start, length);
}

/** Digit positions of `yyyy-MM-ddTHH:mm` (bits of a 16-byte mask): 0–3, 5–6, 8–9, 11–12, 14–15. */
const INSTANT_DIGITS: i32 = 0xdb6f;
/** Separator positions of `yyyy-MM-ddTHH:mm`: 4, 7 (`-`), 10 (`T`), 13 (`:`). */
const INSTANT_SEPARATORS: i32 = 0x2490;

/** Whether `[start, start + length)` (`length` 20 or 24) is an instant `isoUtcBytesMs` reads. */
function isInstant(start: usize, length: i32): bool {
  // The first 16 bytes at once: digits where digits go, the separators where they go.
  const v = v128.load(start);
  const digits = i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(10)));
  const template = i8x16(0, 0, 0, 0, 0x2d, 0, 0, 0x2d, 0, 0, 0x54, 0, 0, 0x3a, 0, 0);
  const separators = i8x16.bitmask(i8x16.eq(v, template));
  if ((digits & INSTANT_DIGITS) !== INSTANT_DIGITS || (separators & INSTANT_SEPARATORS) !== INSTANT_SEPARATORS)
    return false;
  if (load<u8>(start + 16) !== 0x3a || load<u8>(start + <usize>length - 1) !== 0x5a) return false;
  const second = digits2(start + 17);
  if (second < 0 || second > 59) return false;
  if (length === 24) {
    const c = digit(start + 22);
    if (load<u8>(start + 19) !== 0x2e || digits2(start + 20) < 0 || c < 0 || c > 9) return false;
  }
  // Digits known: the fields' ranges, and the day within its month.
  const year = digit(start) * 1000 + digit(start + 1) * 100 + digit(start + 2) * 10 + digit(start + 3);
  const month = digit(start + 5) * 10 + digit(start + 6);
  const day = digit(start + 8) * 10 + digit(start + 9);
  const hour = digit(start + 11) * 10 + digit(start + 12);
  const minute = digit(start + 14) * 10 + digit(start + 15);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59) return false;
  let days: i32 = 31;
  if (month === 4 || month === 6 || month === 9 || month === 11) days = 30;
  else if (month === 2) days = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return day <= days;
}

/**
 * The order of the bytes at `start` (`length` 20 or 24) and the bound of filter string `bound`: the first 19
 * bytes (16 at once), then the milliseconds' three digits (`000` when there are none).
 */
function compareInstant(start: usize, length: i32, bound: i32): i32 {
  const b = filterBytes + <usize>load<i32>(filterStrings + <usize>bound * 8);
  const same = i8x16.bitmask(i8x16.eq(v128.load(start), v128.load(b)));
  if (same !== 0xffff) {
    const i = <usize>ctz(~same);
    return <i32>load<u8>(start + i) - <i32>load<u8>(b + i);
  }
  for (let i: usize = 16; i < 19; i++) {
    const d = <i32>load<u8>(start + i) - <i32>load<u8>(b + i);
    if (d !== 0) return d;
  }
  for (let i: usize = 0; i < 3; i++) {
    const c: i32 = length === 24 ? <i32>load<u8>(start + 20 + i) : 0x30;
    const d = c - <i32>load<u8>(b + 19 + i);
    if (d !== 0) return d;
  }
  return 0;
}

/** ASCII letters of `v` lower-cased. */
@inline
function lower(v: v128): v128 {
  const upper = v128.and(i8x16.gt_u(v, i8x16.splat(0x40)), i8x16.lt_u(v, i8x16.splat(0x5b)));
  return v128.or(v, v128.and(upper, i8x16.splat(0x20)));
}

/**
 * Whether `[start, start + length)` holds the `size` bytes at `needle` (with `fold`, its ASCII letters
 * compared lower-cased), as `contains` of src/incidents/line-matcher.ts says: 16 positions a step, those
 * whose first and last bytes are the needle's compared whole. Reads up to 31 bytes past the value (inside the
 * block and its padding).
 */
function holds(start: usize, length: i32, needle: usize, size: i32, fold: bool): bool {
  if (size > length) return false;
  const first = i8x16.splat(load<u8>(needle));
  const last = i8x16.splat(load<u8>(needle + <usize>size - 1));
  const limit = length - size;
  for (let i: i32 = 0; i <= limit; i += 16) {
    let a = v128.load(start + <usize>i);
    let z = v128.load(start + <usize>(i + size - 1));
    if (fold) {
      a = lower(a);
      z = lower(z);
    }
    let mask = i8x16.bitmask(v128.and(i8x16.eq(a, first), i8x16.eq(z, last)));
    if (limit - i < 15) mask &= (1 << (limit - i + 1)) - 1;
    while (mask !== 0) {
      const at = start + <usize>(i + ctz(mask));
      if (sameFolded(at + 1, needle + 1, size - 2, fold)) return true;
      mask &= mask - 1;
    }
  }
  return false;
}

/** Whether the `size` bytes at `a` (with `fold`, ASCII letters lower-cased) are those at `b`. */
function sameFolded(a: usize, b: usize, size: i32, fold: bool): bool {
  for (let i: i32 = 0; i < size; i++) {
    let c = <i32>load<u8>(a + <usize>i);
    if (fold && c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== <i32>load<u8>(b + <usize>i)) return false;
  }
  return true;
}
