/**
 * Records from an input holding a JSON array (first non-blank character `[`) or NDJSON (one JSON value per
 * line; blank lines skipped; `\r\n` accepted), read incrementally with bounded memory: at most one record
 * (one line, or one array element) of at most `maxLineLength` characters is held beyond the current chunk.
 *
 * Positions are 1-based: the line where a record starts, and the record's number among the records.
 * A record that is not valid JSON, too long, or repeats a key in one of its objects (docs/semantics.md 3.1,
 * "Duplicate keys") is reported as an invalid item, and reading goes on (the caller decides whether to
 * stop); only a broken array structure (a missing comma, an unclosed array, text after the array) ends
 * reading with an error, since no later record can be located.
 *
 * The array reader finds element boundaries with a scanner that jumps through strings with `indexOf` and
 * hands each element to `JSON.parse`, so an array costs about what the same records as NDJSON cost.
 */

import { describeShape, notUtf8, parseRecord, tooLong } from "../node/record-rules.js";
import { type InputSource, InvalidUtf8Error, markedInvalidByte } from "../node/source.js";
import { CliError, EXIT } from "./exit-codes.js";

export { describeShape, notUtf8, parseRecord, tooLong };

/** A record read from the input. */
export interface RecordItem {
  readonly ok: true;
  readonly value: unknown;
  /** 1-based number of the record among the records (blank NDJSON lines are not records). */
  readonly record: number;
  /** 1-based line where the record starts. */
  readonly line: number;
}

/** A record that could not be read (not valid JSON, too long, a repeated key). */
export interface InvalidItem {
  readonly ok: false;
  readonly record: number;
  readonly line: number;
  /** One sentence, without the position. */
  readonly message: string;
}

/** What `readRecords` yields, in batches. */
export type ReadItem = RecordItem | InvalidItem;

/** Options of `readRecords`. */
export interface ReadRecordsOptions {
  /** The longest line (NDJSON) or array element accepted, in characters. */
  readonly maxLineLength: number;
  /** What the records should be, for messages: `timeline entries`. */
  readonly expected: string;
  /** A hint appended when the input holds one JSON document of another shape (e.g. use `--data`). */
  readonly hint?: (value: unknown) => string;
}

export { DEFAULT_MAX_LINE_LENGTH } from "./record-options.js";

/**
 * Reads the records of an input (see the module comment).
 * @returns batches of items in input order (one batch per chunk of text)
 * @throws {CliError} `dataError` for a broken array, a single JSON document of the wrong shape, or invalid
 *   UTF-8 (with its line); what `source.text` throws (unreadable input, bad gzip)
 */
export async function* readRecords(
  source: InputSource,
  options: ReadRecordsOptions,
): AsyncGenerator<ReadItem[]> {
  const iterator = source.text[Symbol.asyncIterator]();
  // Find the first non-blank character to choose the format.
  let first: string | undefined;
  const buffered: string[] = [];
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = await iterator.next();
    } catch (error) {
      if (!(error instanceof InvalidUtf8Error)) throw error;
      const before = buffered.join("").split("\n").length;
      throw invalidUtf8At(error, before + error.breaksIntoChunk);
    }
    if (next.done === true) break;
    buffered.push(next.value);
    const at = next.value.search(/\S/);
    if (at !== -1) {
      first = next.value[at];
      break;
    }
  }
  if (first === undefined) return;
  const chunks = (async function* () {
    yield* buffered;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  })();
  const reader = first === "[" ? new ArrayReader(source, options) : new NdjsonReader(source, options);
  try {
    for await (const chunk of chunks) {
      const batch = reader.push(chunk);
      if (batch.length > 0) yield batch;
    }
  } catch (error) {
    if (error instanceof InvalidUtf8Error) throw reader.locate(error);
    throw error;
  }
  const last = reader.end();
  if (last.length > 0) yield last;
}

/**
 * Reads records from text already in memory, synchronously: the same readers as `readRecords` (the format
 * chosen on the first non-blank character), for the benchmark that compares the two formats.
 * @param chunks - the text, cut anywhere
 * @throws {CliError} as `readRecords` does
 */
export function readRecordsFromChunks(
  chunks: readonly string[],
  options: ReadRecordsOptions,
  label = "'text'",
): ReadItem[] {
  const first = chunks.join("").trimStart()[0];
  if (first === undefined) return [];
  const source = { label } as InputSource;
  const reader = first === "[" ? new ArrayReader(source, options) : new NdjsonReader(source, options);
  const items: ReadItem[] = [];
  for (const chunk of chunks) for (const item of reader.push(chunk)) items.push(item);
  for (const item of reader.end()) items.push(item);
  return items;
}

/** Invalid UTF-8 located: `'file' line 3 is not valid UTF-8 (byte 77 of the input).` */
export function invalidUtf8At(error: InvalidUtf8Error, line: number): CliError {
  return new CliError(
    `${error.label} line ${line} is not valid UTF-8 (byte ${error.byte} of the input).`,
    EXIT.dataError,
  );
}

/** `'file' line 3` / `'file' line 3 (record 2)`: where a record is, 1-based. */
export function formatPosition(label: string, line: number, record: number): string {
  return `${label} line ${line}${record === line ? "" : ` (record ${record})`}`;
}

interface Reader {
  push(chunk: string): ReadItem[];
  end(): ReadItem[];
  locate(error: InvalidUtf8Error): CliError;
}

class NdjsonReader implements Reader {
  #line = 0;
  #record = 0;
  #pending: string[] = [];
  #pendingLength = 0;
  #overlong = false;
  /** The first bad byte of the current line when `source.text` marked it as invalid UTF-8. */
  #invalidByte: number | undefined;
  #sawRecord = false;
  /**
   * Set while the input read so far can be one multi-line JSON document (a first line such as `{` that
   * is not JSON alone): the text kept, at most `maxLineLength` characters, like any record.
   */
  #document: string[] | undefined;
  #documentLength = 0;
  /** Judges the text kept in `#document`, and counts its line breaks. */
  #documentStart: DocumentStart | undefined;
  #firstError: InvalidItem | undefined;

  constructor(
    private readonly source: InputSource,
    private readonly options: ReadRecordsOptions,
  ) {}

  push(chunk: string): ReadItem[] {
    const invalid = markedInvalidByte(chunk);
    if (invalid !== undefined) {
      // A line of invalid UTF-8 (`--skip-invalid`): no document holds it; the line is one invalid record,
      // taken at its `\n` (the source drops its other bytes).
      const out = this.#document !== undefined ? this.#abandonDocument() : [];
      this.#invalidByte ??= invalid;
      this.#pending = [];
      this.#pendingLength = 0;
      return out;
    }
    if (this.#document !== undefined) {
      this.#document.push(chunk);
      this.#documentLength += chunk.length;
      // NDJSON after a first line such as `{` stops being one document at its first record: read as NDJSON
      // from there, so that at most one record is held and `--limit` answers early (docs/cli.md, Format).
      const viable = this.#documentStart?.feed(chunk) === true;
      return !viable || this.#documentLength > this.options.maxLineLength ? this.#abandonDocument() : [];
    }
    const out: ReadItem[] = [];
    let start = 0;
    const max = this.options.maxLineLength;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      if (nl === -1) {
        const rest = chunk.length - start;
        if (rest > 0 && !this.#overlong) {
          this.#pending.push(start === 0 ? chunk : chunk.slice(start));
          this.#pendingLength += rest;
          // A `\r` that ends the chunk may be the first half of the line's `\r\n`: not counted yet, so
          // that the limit does not depend on where the chunks are cut (`#handle` judges the whole line).
          const cr = chunk.charCodeAt(chunk.length - 1) === 13 ? 1 : 0;
          if (this.#pendingLength - cr > max) {
            this.#overlong = true;
            this.#pending = [];
          }
        }
        return out;
      }
      const line = ++this.#line;
      if (this.#invalidByte !== undefined) {
        out.push({ ok: false, record: ++this.#record, line, message: notUtf8(this.#invalidByte) });
        this.#sawRecord = true;
        this.#invalidByte = undefined;
      } else if (this.#overlong) {
        out.push({ ok: false, record: ++this.#record, line, message: tooLong(max) });
        this.#sawRecord = true;
      } else {
        const text =
          this.#pending.length === 0
            ? chunk.slice(start, nl)
            : this.#pending.join("") + chunk.slice(start, nl);
        const document = this.#handle(text, line, out);
        if (document !== undefined) {
          document.push("\n");
          const rest = chunk.slice(nl + 1);
          this.#pending = [];
          this.#pendingLength = 0;
          return out.concat(this.push(rest));
        }
      }
      this.#pending = [];
      this.#pendingLength = 0;
      this.#overlong = false;
      start = nl + 1;
    }
  }

  end(): ReadItem[] {
    if (this.#document !== undefined) return this.#endDocument();
    const out: ReadItem[] = [];
    if (this.#invalidByte !== undefined) {
      out.push({
        ok: false,
        record: ++this.#record,
        line: ++this.#line,
        message: notUtf8(this.#invalidByte),
      });
      this.#invalidByte = undefined;
    } else if (this.#overlong) {
      out.push({
        ok: false,
        record: ++this.#record,
        line: ++this.#line,
        message: tooLong(this.options.maxLineLength),
      });
    } else if (this.#pending.length > 0) {
      // The last line, without a newline: taken from `#pending` first, so that a document abandoned at the
      // end (which calls `end()` again) does not read it twice.
      const text = this.#pending.join("");
      this.#pending = [];
      this.#pendingLength = 0;
      if (this.#handle(text, ++this.#line, out) !== undefined) return this.#endDocument();
    }
    return out;
  }

  locate(error: InvalidUtf8Error): CliError {
    // While a document is kept, `#line` is its first line, and the kept text holds the lines read since.
    const kept = this.#documentStart === undefined ? 0 : this.#documentStart.breaks - 1;
    return invalidUtf8At(error, this.#line + kept + 1 + error.breaksIntoChunk);
  }

  /** Handles one line; returns the kept document when the line starts one (see `#document`). */
  #handle(raw: string, line: number, out: ReadItem[]): string[] | undefined {
    const text = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    if (text.length === 0) return;
    if (text.length > this.options.maxLineLength) {
      out.push({ ok: false, record: ++this.#record, line, message: tooLong(this.options.maxLineLength) });
      this.#sawRecord = true;
      return;
    }
    const item = parseRecord(text, this.#record + 1, line);
    if (!item.ok && text.trim() === "") return;
    this.#record++;
    if (!item.ok && !this.#sawRecord && text.trimStart().startsWith("{")) {
      // Perhaps the first line of one pretty-printed JSON document (a dataset), not NDJSON: kept while what
      // follows can still be that document, to say so at the end.
      const start = new DocumentStart();
      if (start.feed(text) && start.feed("\n") && start.open) {
        this.#document = [text];
        this.#documentLength = text.length;
        this.#documentStart = start;
        this.#firstError = item;
        return this.#document;
      }
    }
    this.#sawRecord = true;
    out.push(item);
  }

  /** The first line was not the start of one JSON document after all: read what was kept as NDJSON. */
  #abandonDocument(): ReadItem[] {
    const kept = this.#document ?? [];
    const first = this.#firstError!;
    this.#document = undefined;
    this.#documentStart = undefined;
    this.#sawRecord = true;
    return [first, ...this.push(kept.slice(2).join(""))];
  }

  #endDocument(): ReadItem[] {
    let value: unknown;
    try {
      value = JSON.parse((this.#document ?? []).join(""));
    } catch {
      return [...this.#abandonDocument(), ...this.end()];
    }
    throw new CliError(
      `${this.source.label} holds one JSON document, ${describeShape(value)}; expected ${this.options.expected}: a JSON array or NDJSON (one per line).${this.options.hint?.(value) ?? ""}`,
      EXIT.dataError,
    );
  }
}

/** What `DocumentStart` expects next, outside strings. */
enum Expect {
  /** A value: at the start, after `:`, after `,` in an array. */
  Value,
  /** After `[`: a value or `]`. */
  ValueOrClose,
  /** After `{`: a key or `}`. */
  KeyOrClose,
  /** After `,` in an object: a key. */
  Key,
  /** After a key: `:`. */
  Colon,
  /** Inside a number or a literal. */
  Scalar,
  /** After a value: `,` or the close of its container; nothing at the top. */
  After,
}

/**
 * Whether the text fed so far can be the start of one JSON document, judged incrementally in one pass and
 * loosely: strings (a raw line break ends the document), nesting and the punctuation between values, not
 * the spelling of numbers, literals and escapes, which `JSON.parse` judges once the document is whole. NDJSON
 * after a first line such as `{` stops being a document at its first record (`{` where a key is expected,
 * or two values without a comma), so the NDJSON reader holds no more than that (docs/cli.md, Format).
 * @example
 * const start = new DocumentStart();
 * start.feed('{\n  "sites": [') //=> true (and `start.open`)
 * start.feed('\n{"IncidentId": 1}\n{') //=> false: two values without a comma
 */
class DocumentStart {
  /** Line breaks fed (outside strings; a line break inside a string ends the document). */
  breaks = 0;
  #expect = Expect.Value;
  /** The open containers, innermost last: 1 an object, 2 an array. */
  #stack = new Uint8Array(64);
  #depth = 0;
  #inString = false;
  #key = false;
  #escaped = false;
  #viable = true;

  /** Whether the document goes on: still viable, and inside a container. */
  get open(): boolean {
    return this.#viable && this.#depth > 0;
  }

  /** Feeds the next text; returns `false` once the text fed cannot be the start of one JSON document. */
  feed(text: string): boolean {
    if (!this.#viable) return false;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 92) this.#escaped = true;
        else if (c === 34) {
          this.#inString = false;
          this.#expect = this.#key ? Expect.Colon : Expect.After;
        } else if (c < 32) return this.#fail();
        continue;
      }
      if (this.#expect === Expect.Scalar) {
        // Digits, letters, `.`, `+`, `-`.
        if ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) || c === 46 || c === 43 || c === 45)
          continue;
        this.#expect = Expect.After;
      }
      if (c === 32 || c === 9 || c === 13) continue;
      if (c === 10) {
        this.breaks++;
        continue;
      }
      switch (this.#expect) {
        case Expect.ValueOrClose:
        case Expect.Value:
          if (c === 93 && this.#expect === Expect.ValueOrClose) this.#close();
          else if (c === 123 || c === 91) this.#open(c === 123 ? 1 : 2);
          else if (c === 34) {
            this.#inString = true;
            this.#key = false;
          } else if (c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110)
            this.#expect = Expect.Scalar;
          else return this.#fail();
          break;
        case Expect.KeyOrClose:
        case Expect.Key:
          if (c === 125 && this.#expect === Expect.KeyOrClose) this.#close();
          else if (c === 34) {
            this.#inString = true;
            this.#key = true;
          } else return this.#fail();
          break;
        case Expect.Colon:
          if (c !== 58) return this.#fail();
          this.#expect = Expect.Value;
          break;
        default: {
          // Expect.After
          const top = this.#depth === 0 ? 0 : this.#stack[this.#depth - 1];
          if (top === 0) return this.#fail();
          if (c === 44) this.#expect = top === 1 ? Expect.Key : Expect.Value;
          else if (c === (top === 1 ? 125 : 93)) this.#close();
          else return this.#fail();
        }
      }
    }
    return true;
  }

  #open(kind: number): void {
    if (this.#depth === this.#stack.length) {
      const grown = new Uint8Array(this.#stack.length * 2);
      grown.set(this.#stack);
      this.#stack = grown;
    }
    this.#stack[this.#depth++] = kind;
    this.#expect = kind === 1 ? Expect.KeyOrClose : Expect.ValueOrClose;
  }

  #close(): void {
    this.#depth--;
    this.#expect = Expect.After;
  }

  #fail(): false {
    this.#viable = false;
    return false;
  }
}

enum State {
  /** Before `[`. */
  Start,
  /** After `[`: an element or `]`. */
  First,
  /** After `,`: an element. */
  Next,
  /** Inside an element. */
  Element,
  /** After an element: `,` or `]`. */
  After,
  /** After `]`: white space only. */
  Done,
}

class ArrayReader implements Reader {
  #state = State.Start;
  /** 1-based line of the scanner's position. */
  #line = 1;
  #record = 0;
  // The element being read.
  #kind = 0; // 1 container, 2 string, 3 other scalar
  #depth = 0;
  #inString = false;
  #escaped = false;
  #parts: string[] = [];
  #length = 0;
  #overlong = false;
  #elementLine = 0;

  constructor(
    private readonly source: InputSource,
    private readonly options: ReadRecordsOptions,
  ) {}

  push(chunk: string): ReadItem[] {
    const invalid = markedInvalidByte(chunk);
    // In an array no line is a record: invalid UTF-8 ends the input, `--skip-invalid` or not.
    if (invalid !== undefined) throw this.locate(new InvalidUtf8Error(this.source.label, invalid, 0));
    const out: ReadItem[] = [];
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.#state === State.Element) {
        i = this.#scanElement(chunk, i, out);
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (c === 10) {
        this.#line++;
        i++;
        continue;
      }
      if (c === 32 || c === 9 || c === 13 || c === 0xfeff) {
        i++;
        continue;
      }
      switch (this.#state) {
        case State.Start:
          // The format was chosen on this character.
          this.#state = State.First;
          i++;
          break;
        case State.First:
          if (c === 93) {
            this.#state = State.Done;
            i++;
          } else this.#begin(c);
          break;
        case State.Next:
          if (c === 93) throw this.#broken("a record after ',', found ']'");
          this.#begin(c);
          break;
        case State.After:
          if (c === 44) this.#state = State.Next;
          else if (c === 93) this.#state = State.Done;
          else throw this.#broken(`',' or ']' after record ${this.#record}, found ${quote(chunk, i)}`);
          i++;
          break;
        case State.Done:
          throw this.#broken(`nothing after the closing ']', found ${quote(chunk, i)}`);
      }
    }
    return out;
  }

  end(): ReadItem[] {
    if (this.#state !== State.Done) {
      throw this.#broken(
        this.#state === State.Element
          ? `record ${this.#record + 1} (line ${this.#elementLine}) to end, found the end of the input`
          : "the closing ']', found the end of the input",
      );
    }
    return [];
  }

  locate(error: InvalidUtf8Error): CliError {
    return invalidUtf8At(error, this.#line + error.breaksIntoChunk);
  }

  #broken(what: string): CliError {
    return new CliError(
      `${this.source.label} is not a valid JSON array: expected ${what} (line ${this.#line}).`,
      EXIT.dataError,
    );
  }

  #begin(c: number): void {
    this.#state = State.Element;
    this.#kind = c === 123 || c === 91 ? 1 : c === 34 ? 2 : 3;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#parts = [];
    this.#length = 0;
    this.#overlong = false;
    this.#elementLine = this.#line;
  }

  /** Scans the element from `start`; returns where scanning stopped (the chunk's end or after the element). */
  #scanElement(chunk: string, start: number, out: ReadItem[]): number {
    const n = chunk.length;
    let i = start;
    let end = -1; // exclusive end of the element in this chunk
    if (this.#kind === 3) {
      for (; i < n; i++) {
        const c = chunk.charCodeAt(i);
        if (c === 44 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) {
          end = i;
          break;
        }
      }
    } else {
      let depth = this.#depth;
      let inString = this.#inString || this.#kind === 2;
      if (this.#kind === 2 && i === start && this.#length === 0 && !this.#inString) {
        // The opening quote of a string element.
        i++;
        inString = true;
      }
      while (i < n) {
        if (inString) {
          if (this.#escaped) {
            this.#escaped = false;
            i++;
            continue;
          }
          const close = stringEnd(chunk, i);
          if (close < 0) {
            // The string goes on in the next chunk; an odd run of backslashes escapes its first character.
            this.#escaped = close === -2;
            i = n;
            break;
          }
          inString = false;
          i = close + 1;
          if (this.#kind === 2) {
            end = i;
            break;
          }
          continue;
        }
        const c = chunk.charCodeAt(i);
        if (c === 34) inString = true;
        // `{` 123 and `[` 91 share 123 once bit 5 is set, `}` 125 and `]` 93 share 125: two tests, not four.
        else if ((c | 32) === 123) depth++;
        else if ((c | 32) === 125) {
          depth--;
          if (depth === 0) {
            end = i + 1;
            break;
          }
        } else if (c === 10) this.#line++;
        i++;
      }
      this.#depth = depth;
      this.#inString = inString;
    }
    if (end === -1) {
      this.#keep(chunk, start, n);
      return n;
    }
    this.#finish(chunk.slice(start, end), end - start, out);
    return end;
  }

  #keep(chunk: string, start: number, end: number): void {
    if (this.#overlong) return;
    this.#length += end - start;
    if (this.#length > this.options.maxLineLength) {
      this.#overlong = true;
      this.#parts = [];
      return;
    }
    this.#parts.push(start === 0 && end === chunk.length ? chunk : chunk.slice(start, end));
  }

  #finish(tail: string, tailLength: number, out: ReadItem[]): void {
    const record = ++this.#record;
    const line = this.#elementLine;
    this.#state = State.After;
    if (this.#overlong || this.#length + tailLength > this.options.maxLineLength) {
      out.push({ ok: false, record, line, message: tooLong(this.options.maxLineLength) });
      return;
    }
    const text = this.#parts.length === 0 ? tail : this.#parts.join("") + tail;
    this.#parts = [];
    out.push(parseRecord(text, record, line));
  }
}

/**
 * The index of the quote that ends the string whose content starts at `from` (a position not escaped);
 * -1 when the chunk ends first, -2 when it ends on an odd run of backslashes (the next character is
 * escaped).
 */
function stringEnd(text: string, from: number): number {
  let i = from;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q === -1) {
      let k = text.length - 1;
      while (k >= i && text.charCodeAt(k) === 92) k--;
      return (text.length - 1 - k) % 2 === 1 ? -2 : -1;
    }
    let k = q - 1;
    while (k >= i && text.charCodeAt(k) === 92) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    i = q + 1;
  }
}

function quote(text: string, at: number): string {
  return JSON.stringify(text.slice(at, at + 12));
}
