/**
 * The first query on a new set (IncidentSet's `count` doc comment, "First query"): the creation order is
 * built with the set, by the constructor and by `fromNdjson`, so that no first query sorts every row.
 * Measured by sizes, never by time: the set's bytes do not grow by the order (8 bytes a row) on the first
 * first-match query.
 */
import { describe, expect, it } from "vitest";
import { IncidentSet } from "./incident-set.js";

const rows = Array.from({ length: 5000 }, (_, k) => ({
  IncidentId: k + 1,
  Number: `N-${k}`,
  CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + ((k * 7919) % 5000) * 60_000).toISOString(),
}));

describe("the creation order is built with the set", () => {
  it.each([
    ["the constructor", async () => new IncidentSet(rows)],
    [
      "fromNdjson",
      async () => IncidentSet.fromNdjson([`${rows.map((r) => JSON.stringify(r)).join("\n")}\n`]),
    ],
  ])("%s: a first query adds no order bytes", async (_name, build) => {
    const set = await build();
    const before = set.footprint().typedArrayBytes;
    // A hash lookup needs the order's ranks and nothing else that is built on demand.
    expect(set.findFirst({ Number: "N-17" })?.IncidentId).toBe(18);
    expect(set.footprint().typedArrayBytes).toBe(before);
  });

  it("rows added later are ordered by the next query, as before", () => {
    const set = new IncidentSet(rows.slice(0, 10));
    set.add({ IncidentId: 0, Number: "early", CreatedUtcTime: "2023-01-01T00:00:00Z" });
    expect(set.findFirst({})?.Number).toBe("early");
  });
});
