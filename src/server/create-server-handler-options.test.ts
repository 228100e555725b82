/**
 * What `createServer` hands the default command handler: the Search Conditions time budget of
 * docs/semantics.md 1.7 (`maxTimeMS`, default 2,000, measured with `performance.now()`) and the catalogue.
 * The handler enforces the budget (tested with the handler); this checks the server passes it on.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as commands from "../commands/index.js";
import { DEFAULT_CATALOG, extendCatalog } from "../conditions/catalog.js";

vi.mock("../commands/index.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../commands/index.js")>();
  return { ...original, createCommandHandler: vi.fn(original.createCommandHandler) };
});

const { createServer } = await import("./create-server.js");
const created = vi.mocked(commands.createCommandHandler);

afterEach(() => {
  created.mockClear();
});

const keys = [{ username: "alice", key: "k" }];

describe("createServer: the default handler's options", () => {
  it("passes maxTimeMS 2,000 and a performance.now() clock by default", async () => {
    const server = createServer({ apiKeys: keys });
    const options = created.mock.calls[0]?.[1];
    expect(options?.maxTimeMS).toBe(2_000);
    const before = performance.now();
    const reading = options?.clock?.() ?? Number.NaN;
    expect(reading).toBeGreaterThanOrEqual(before);
    expect(reading).toBeLessThanOrEqual(performance.now());
    expect(options?.parseOptions).toBeUndefined();
    await server.close();
  });

  it("passes the maxTimeMS option and the catalogue", async () => {
    const catalog = extendCatalog(DEFAULT_CATALOG, { labels: { Severity: ["Unassigned"] } });
    const server = createServer({ apiKeys: keys, maxTimeMS: 150, catalog });
    const options = created.mock.calls[0]?.[1];
    expect(options?.maxTimeMS).toBe(150);
    expect(options?.parseOptions?.catalog).toBe(catalog);
    await server.close();
  });

  it("builds no handler when one is given", async () => {
    const server = createServer({ apiKeys: keys, handler: async () => ({ status: 200, body: {} }) });
    expect(created).not.toHaveBeenCalled();
    await server.close();
  });
});
