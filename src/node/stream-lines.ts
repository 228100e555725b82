/**
 * A byte stream (standard input, a pipe, gzip) cut into blocks of whole lines, in linear time whatever the
 * lines' lengths (SECURITY.md: over-long lines are never quadratic): each chunk is searched for line breaks
 * once, from its first byte to its first `\n` and from its end back to its last; the bytes of a line cut by
 * chunks are kept as a list of pieces and copied once, into the line, when its `\n` comes; a line that
 * grows past the cap is handed over as its pieces (to be skipped, not held).
 */

/** Work done by a `StreamLines`, in bytes: what tests bound (never seconds). */
export interface StreamWork {
  /** Bytes searched for a line break. */
  searched: number;
  /** Bytes copied (into lines joined from pieces). */
  copied: number;
}

/** What `StreamLines.push` gives back for one chunk. */
export interface StreamCut {
  /** Blocks of whole lines (each ends with `\n`), in input order: a line joined from pieces, then the chunk's own lines. */
  readonly blocks: Buffer[];
  /**
   * The pieces of a line longer than the cap, when the chunk made the pending line so (the caller skips
   * the rest of that line; nothing of it is held here any more).
   */
  readonly overlong: Buffer[] | undefined;
}

const LF = 10;

/** Cuts chunks into blocks of whole lines (see the module comment). One per stream. */
export class StreamLines {
  private pieces: Buffer[] = [];
  private held = 0;

  /**
   * @param cap - the bytes a pending line may hold before it is handed over as over-long
   *   (`overlongBytes(--max-line-length)`)
   * @param work - where the work done is counted (tests read it)
   */
  constructor(
    private readonly cap: number,
    readonly work: StreamWork = { searched: 0, copied: 0 },
  ) {}

  /** Takes the next chunk (see `StreamCut`). */
  push(chunk: Buffer): StreamCut {
    const blocks: Buffer[] = [];
    const first = chunk.indexOf(LF);
    if (first < 0) {
      this.work.searched += chunk.length;
      return { blocks, overlong: this.hold(chunk) };
    }
    this.work.searched += first + 1;
    let start = 0;
    if (this.held > 0) {
      // The pending line ends here: joined once.
      this.pieces.push(chunk.subarray(0, first + 1));
      const line = Buffer.concat(this.pieces, this.held + first + 1);
      this.work.copied += line.length;
      blocks.push(line);
      this.pieces = [];
      this.held = 0;
      start = first + 1;
    }
    const last = chunk.lastIndexOf(LF);
    this.work.searched += chunk.length - last;
    if (last >= start) blocks.push(chunk.subarray(start, last + 1));
    const tail = chunk.subarray(last + 1);
    return { blocks, overlong: tail.length > 0 ? this.hold(tail) : undefined };
  }

  /** The last line, without a `\n`, at the end of the input (joined once), or `undefined`. */
  end(): Buffer | undefined {
    if (this.held === 0) return undefined;
    const line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.held);
    if (this.pieces.length > 1) this.work.copied += line.length;
    this.pieces = [];
    this.held = 0;
    return line;
  }

  /** Keeps `piece` of the pending line; hands the pieces over once they pass the cap. */
  private hold(piece: Buffer): Buffer[] | undefined {
    this.pieces.push(piece);
    this.held += piece.length;
    if (this.held <= this.cap) return undefined;
    const pieces = this.pieces;
    this.pieces = [];
    this.held = 0;
    return pieces;
  }
}
