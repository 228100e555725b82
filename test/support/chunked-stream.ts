/** A readable stream over bytes cut into fixed-size chunks, as a pipe gives them (NDJSON reader tests). */
import { Readable } from "node:stream";

/** A stream that gives `bytes` in chunks of `size` bytes, as a pipe does. */
export function chunked(bytes: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts, { objectMode: false });
}
