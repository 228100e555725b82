/**
 * Attacks on the server's authentication: before the method (CONNECT too), over-long command requests judged
 * from Node's rawPacket, failed authentications counted per address.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { createServer } from "../../src/server/index.js";
import { KEYS, SOC, TEST_DATASET } from "../server/fixtures.js";

async function listening(rateLimit = 1000) {
  const server = createServer({
    dataset: TEST_DATASET,
    apiKeys: [{ username: "analyst", key: KEYS.analyst }],
    rateLimit,
  });
  await server.listen({ host: "127.0.0.1", port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { server, port: address.port };
}

/**
 * Writes raw bytes on a fresh connection; every status line received until the server closes it (the
 * server closes after its answers; `waitMs` only guards against a hang, on a busy machine too).
 */
function raw(port: number, bytes: string, waitMs = 60_000): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(text.match(/HTTP\/1\.1 \d{3}/g)?.map((s) => s.slice(9)) ?? []);
    });
  });
}

const body = JSON.stringify({
  Username: "analyst",
  Site: SOC,
  CommandParams: { "Incident Number": "20240101-1" },
});
const command = (key: string) =>
  `POST /Command/GetIncidentTimelineEntries HTTP/1.1\r\nHost: a\r\nd3key: ${key}\r\nConnection: close\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const overLong = (key: string) =>
  `POST /Command/${"x".repeat(20_000)} HTTP/1.1\r\nHost: a\r\nd3key: ${key}\r\n\r\n`;

describe("the failed-authentication budget is not a guessing oracle (docs/server.md: keys cannot be guessed at line speed)", () => {
  it("past the address's budget, a right guess is answered as a wrong one (429), not 200", async () => {
    const { server, port } = await listening(2);
    try {
      const wrong = [];
      for (let i = 0; i < 3; i++) wrong.push((await raw(port, command(`guess-${i}`)))[0]);
      expect(wrong).toEqual(["401", "401", "429"]);
      // The attacker's next guess happens to be right: it must not stand out from the wrong ones.
      expect((await raw(port, command(KEYS.analyst)))[0]).toBe("429");
    } finally {
      await server.close();
    }
  });

  it("past the address's budget, a right guess in an over-long request is 429 like a wrong one, not 431", async () => {
    const { server, port } = await listening(2);
    try {
      const wrong = [];
      for (let i = 0; i < 3; i++) wrong.push((await raw(port, overLong(`guess-${i}`)))[0]);
      expect(wrong).toEqual(["401", "401", "429"]);
      expect((await raw(port, overLong(KEYS.analyst)))[0]).toBe("429");
    } finally {
      await server.close();
    }
  });
});

describe("an over-long request is judged by its own credential", () => {
  it("an over-long /healthz pipelined after a command request is 431, not the command's 401, and costs no budget", async () => {
    const { server, port } = await listening(2);
    try {
      const oversized = `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`;
      const first = command("wrong").replace("Connection: close\r\n", "");
      expect(await raw(port, first + oversized)).toEqual(["401", "431"]);
      // Only the one failed authentication counted: the next wrong key is still 401, not 429.
      expect(await raw(port, command("wrong-again"))).toEqual(["401"]);
    } finally {
      await server.close();
    }
  });
});

describe("every method on a command path authenticates first", () => {
  it.each([
    ["without a credential", "401", ""],
    ["with a valid credential", "405", `d3key: ${KEYS.analyst}\r\n`],
  ])(
    "CONNECT /Command/X %s is answered %s, not with a silently closed connection",
    async (_n, status, header) => {
      const { server, port } = await listening();
      try {
        expect(await raw(port, `CONNECT /Command/X HTTP/1.1\r\nHost: a\r\n${header}\r\n`)).toEqual([status]);
      } finally {
        await server.close();
      }
    },
  );
});
