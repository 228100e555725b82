/**
 * The keys of a dataset of the in-memory backend, apart from its validation (dataset.ts), so that a reader
 * that only needs to recognise a dataset (the CLI's `match` and `timeline`) does not load the validators and
 * the timeline's date formatting with it (docs/cli.md, "Start-up").
 */

/** The keys of a dataset, in the order they are validated (docs/dataset.md). */
export const DATASET_KEYS = [
  "sites",
  "users",
  "incidents",
  "timelineEntries",
  "playbooks",
  "artifactTypes",
  "artifacts",
] as const;

/**
 * Whether a value looks like a dataset rather than a record: an object (not an array) with at least one key,
 * every key one of `DATASET_KEYS`.
 */
export function looksLikeDataset(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => (DATASET_KEYS as readonly string[]).includes(key));
}
