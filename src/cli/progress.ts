/**
 * The progress bar of `match` and `timeline` on standard error, drawn only when it is a terminal: the share
 * of the input read (by bytes, compressed bytes for gzip) with an ETA when the size is known, the records
 * read and the rate in records a second. cli-progress redraws at most ten times a second; updating it is
 * cheap, so the readers update it once a batch.
 */

import { createRequire } from "node:module";
import type { InputSource } from "../node/source.js";

type CliProgress = typeof import("cli-progress");
let loaded: CliProgress | undefined;

/** cli-progress, loaded the first time a bar is drawn (a run whose standard error is no terminal never loads it). */
function cliProgress(): CliProgress {
  loaded ??= createRequire(import.meta.url)("cli-progress") as CliProgress;
  return loaded;
}

/** A running progress display. */
export interface Progress {
  /** Sets the number of records read so far. */
  update(records: number): void;
  /** Removes the bar (before anything else is printed on the terminal). */
  stop(): void;
}

/**
 * Formats a count with thousands separators. Made with the first bar: creating an `Intl.NumberFormat` costs
 * about 15 ms of start-up (ICU's first use), which a run without a bar should not pay (docs/cli.md, Start-up).
 */
let numberFormat: Intl.NumberFormat | undefined;
function formatCount(n: number): string {
  numberFormat ??= new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  return numberFormat.format(n);
}

/**
 * Starts a progress bar for `source` on `stream` when `stream` is a terminal; otherwise returns `undefined`.
 * @param now - the clock, in milliseconds (the CLI passes `performance.now`)
 */
export function startProgress(
  source: InputSource,
  stream: NodeJS.WriteStream | undefined,
  now: () => number = () => performance.now(),
): Progress | undefined {
  if (stream === undefined || stream.isTTY !== true) return undefined;
  const known = source.size !== undefined && source.size > 0;
  const name = source.label.length > 40 ? `${source.label.slice(0, 39)}…` : source.label;
  const progress = cliProgress();
  const bar = new progress.SingleBar(
    {
      stream,
      format: known
        ? `reading ${name} [{bar}] {percentage}% | {records} records | {rate} records/s | ETA {eta_formatted}`
        : `reading ${name} | {records} records | {rate} records/s`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      // Redraw even when the terminal's width is unknown (a test's stream).
      noTTYOutput: true,
    },
    progress.Presets.shades_classic,
  );
  const started = now();
  bar.start(known ? (source.size as number) : 1, 0, { records: "0", rate: "0" });
  return {
    update(records: number): void {
      const seconds = (now() - started) / 1000;
      bar.update(known ? source.bytesRead() : 0, {
        records: formatCount(records),
        rate: seconds > 0 ? formatCount(records / seconds) : "0",
      });
    },
    stop(): void {
      bar.stop();
    },
  };
}
