/**
 * The first match (docs/semantics.md 1.9), written once for every reader of the Node entry and the CLI:
 * the earliest `CreatedUtcTime`, ties by `IncidentId` (`isBefore`, src/incidents/order.ts), and among
 * records with equal keys the earlier one in the input. Readers see records (or blocks of them) in input
 * order and ask this of each match.
 */

import { isBefore, type OrderKey } from "../incidents/order.js";

/**
 * Whether a match with order key `key` becomes the first match, `best` being the first match of the
 * records before it in the input (`undefined` while there is none): only when it comes strictly before
 * (an equal key keeps the earlier record).
 * @example isNewFirst(undefined, key) //=> true
 */
export function isNewFirst(best: OrderKey | undefined, key: OrderKey): boolean {
  return best === undefined || isBefore(key, best);
}
