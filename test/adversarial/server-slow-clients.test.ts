/**
 * The reference server under slow and greedy clients (docs/semantics.md 3.1): raw TCP
 * connections that stall in the headers, stall in the body, sit idle after an answer, or pile up from one
 * address. Each must be cut off on time, with the exact 408 body where a request was under way, while
 * `GET /healthz` from another address is still answered. The options are short (300 ms, a cap of 4) so the
 * suite takes seconds; traffic goes only to 127.0.0.1 (other loopback source addresses stand for other
 * clients), and every loop is bounded.
 *
 * On a busy machine (a load average of 9 on two cores) timers fire late and pauses stretch, so no verdict
 * here is an upper bound in time: a cut must come (within `HANG_GUARD_MS`, a guard against a hang, not a
 * verdict), never before its timeout (timers never fire early), and what was cut is told by what the
 * connection received (`""` for a cap, the 408 body for a timeout). A client that must stay within a
 * timeout works at a ratio of 1:30 or more of it, or acts on events instead of pauses.
 */
import net from "node:net";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type ServerOptions } from "../../src/server/index.js";
import { KEYS, TEST_DATASET } from "../server/fixtures.js";

const TIMEOUT_MS = 300;
const KEEP_ALIVE_MS = 300;
const CAP = 4;
/** A guard against a hang: a cut or an answer that has not come by then never will. Not a verdict. */
const HANG_GUARD_MS = 60_000;
const TIMEOUT_RESPONSE =
  "HTTP/1.1 408 Request Timeout\r\n" +
  "Content-Type: application/json; charset=utf-8\r\n" +
  "Content-Length: 48\r\n" +
  "Connection: close\r\n\r\n" +
  '{"Error":"The request took too long to arrive."}';

const servers: FastifyInstance[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: ServerOptions = {}): Promise<number> {
  const server = createServer({
    dataset: TEST_DATASET,
    apiKeys: [{ username: "analyst", key: KEYS.analyst }],
    requestTimeoutMs: TIMEOUT_MS,
    keepAliveTimeoutMs: KEEP_ALIVE_MS,
    maxConnectionsPerAddress: CAP,
    ...options,
  });
  servers.push(server);
  await server.listen({ host: "127.0.0.1", port: 0 });
  return (server.server.address() as net.AddressInfo).port;
}

/** A raw connection: what it received, and when (ms after connecting) the server closed it. */
interface Raw {
  readonly socket: net.Socket;
  readonly connected: Promise<void>;
  readonly closed: Promise<{ ms: number; data: string }>;
  received(): string;
}

function connect(port: number, localAddress = "127.0.0.1"): Raw {
  const started = performance.now();
  const socket = net.connect({ port, host: "127.0.0.1", localAddress });
  sockets.push(socket);
  let data = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    data += chunk;
  });
  socket.on("error", () => {});
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const closed = new Promise<{ ms: number; data: string }>((resolve) =>
    socket.once("close", () => resolve({ ms: performance.now() - started, data })),
  );
  return { socket, connected, closed, received: () => data };
}

/** Resolves with the value, or rejects after `ms` (a bounded wait: a connection never cut fails the test). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

/** `GET /healthz` on a fresh connection from `localAddress`: its status line. */
async function healthz(port: number, localAddress: string): Promise<string> {
  const raw = connect(port, localAddress);
  raw.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const { data } = await within(raw.closed, HANG_GUARD_MS, "GET /healthz");
  return data.split("\r\n")[0] ?? "";
}

/** The server's open connections. */
function openConnections(server: FastifyInstance): Promise<number> {
  return new Promise<number>((resolve) => server.server.getConnections((_error, n) => resolve(n)));
}

/** Waits (bounded by `HANG_GUARD_MS`) until the server counts `n` open connections. */
async function untilConnections(server: FastifyInstance, n: number): Promise<void> {
  await within(
    (async () => {
      while ((await openConnections(server)) !== n) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    HANG_GUARD_MS,
    `${n} open connections`,
  );
}

const PARTIAL_HEADERS = "POST /Command/GetIncidentTimelineEntries HTTP/1.1\r\nHost: 127.0.0.1\r\nd3key: ";
const PARTIAL_BODY =
  "POST /Command/GetIncidentTimelineEntries HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
  `d3key: ${KEYS.analyst}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"Username":`;

describe("stalled requests are answered 408 and closed (docs/semantics.md 3.1)", () => {
  it.each([
    ["partial headers", PARTIAL_HEADERS],
    ["a partial body of an authenticated request", PARTIAL_BODY],
    ["nothing at all", ""],
  ])("%s", async (_name, bytes) => {
    const port = await start();
    const raw = connect(port);
    await raw.connected;
    if (bytes !== "") raw.socket.write(bytes);
    const { ms, data } = await within(raw.closed, HANG_GUARD_MS, "stalled request");
    expect(data).toBe(TIMEOUT_RESPONSE);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
  });

  it("counts from the request's first byte: a body trickled one byte at a time is cut off too", async () => {
    const port = await start();
    const raw = connect(port);
    await raw.connected;
    raw.socket.write(PARTIAL_BODY);
    // One byte every 50 ms keeps the socket busy but never completes the body.
    const trickle = setInterval(() => {
      if (!raw.socket.destroyed) raw.socket.write(" ");
    }, 50);
    try {
      const { data } = await within(raw.closed, HANG_GUARD_MS, "trickled request");
      expect(data).toBe(TIMEOUT_RESPONSE);
    } finally {
      clearInterval(trickle);
    }
  });

  it("still answers a request that completes in time", async () => {
    // A pause of 100 ms inside a timeout of 10 s (1:100): a busy machine cannot stretch one into the other.
    const port = await start({ requestTimeoutMs: 10_000 });
    const raw = connect(port);
    await raw.connected;
    const body = JSON.stringify({
      Username: "analyst",
      Site: "Security Operations",
      CommandParams: { "Incident Number": "20240101-1" },
    });
    raw.socket.write(
      `POST /Command/GetIncidentTimelineEntries HTTP/1.1\r\nHost: 127.0.0.1\r\nd3key: ${KEYS.analyst}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    raw.socket.write(body);
    const { data } = await within(raw.closed, HANG_GUARD_MS, "complete request");
    expect(data.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(data).toContain('"Status":"Successful"');
  });
});

describe("idle keep-alive connections are closed (docs/semantics.md 3.1)", () => {
  it("closes the connection after the keep-alive timeout, with nothing more sent", async () => {
    const port = await start({ requestTimeoutMs: 10_000 });
    const raw = connect(port);
    await raw.connected;
    raw.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await within(
      new Promise<void>((resolve) => raw.socket.once("data", () => resolve())),
      HANG_GUARD_MS,
      "healthz answer",
    );
    const answeredAt = performance.now();
    await within(raw.closed, HANG_GUARD_MS, "idle keep-alive connection");
    const idle = performance.now() - answeredAt;
    expect(idle).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    // Nothing but the one 200 answer: no 408 on a connection that had finished its request.
    expect(raw.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(raw.received()).toContain("HTTP/1.1 200 OK");
  });

  it("keeps a connection that sends its next request within the timeout", async () => {
    // Each request is sent as soon as the previous answer arrives (an event, not a pause), well within 3 s.
    const port = await start({ requestTimeoutMs: 10_000, keepAliveTimeoutMs: 3_000 });
    const raw = connect(port);
    await raw.connected;
    for (let i = 1; i <= 3; i++) {
      raw.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await within(
        (async () => {
          while ((raw.received().match(/HTTP\/1\.1 200 OK/g) ?? []).length < i && !raw.socket.destroyed) {
            await new Promise((resolve) => raw.socket.once("data", resolve).once("close", resolve));
          }
        })(),
        HANG_GUARD_MS,
        `answer ${i}`,
      );
    }
    expect(raw.socket.destroyed).toBe(false);
    expect(raw.received().match(/HTTP\/1\.1 200 OK/g)).toHaveLength(3);
  });
});

describe("answers the client does not read are dropped", () => {
  it("closes a connection whose client stops reading its answer, and frees what was buffered for it", async () => {
    // 32 MB answers: far more than the socket buffers hold, so the server must keep the rest itself.
    const big = "a".repeat(32 * 1024 * 1024);
    let answered = 0;
    const port = await start({
      requestTimeoutMs: TIMEOUT_MS,
      handler: async () => {
        answered++;
        return { status: 200, body: { big } };
      },
    });
    const raw = connect(port);
    await raw.connected;
    raw.socket.pause();
    const request =
      "POST /Command/X HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      `d3key: ${KEYS.analyst}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    raw.socket.write(request + request);
    // The paused client cannot see the close; the server's count of open connections can.
    const server = servers.at(-1)!;
    const started = performance.now();
    await untilConnections(server, 0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(answered).toBeGreaterThanOrEqual(1);
    // What reached the client is a cut answer: the rest was dropped with the connection.
    raw.socket.resume();
    const { data } = await within(raw.closed, HANG_GUARD_MS, "the client sees the close");
    expect(data.length).toBeLessThan(big.length);
  });

  it("keeps a connection whose client reads its answer slowly but steadily", async () => {
    const big = "a".repeat(8 * 1024 * 1024);
    // A timeout fifty times the pause between bursts (1:50), so that a busy machine does not cut a steady
    // reader.
    const port = await start({
      requestTimeoutMs: 5_000,
      handler: async () => ({ status: 200, body: { big } }),
    });
    const raw = connect(port);
    await raw.connected;
    raw.socket.pause();
    raw.socket.write(
      "POST /Command/X HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
        `d3key: ${KEYS.analyst}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
    // Read in bursts every 100 ms: the server can always write within the timeout.
    const reader = setInterval(() => {
      raw.socket.resume();
      setTimeout(() => raw.socket.pause(), 5);
    }, 100);
    try {
      const { data } = await within(raw.closed, HANG_GUARD_MS * 2, "a slow reader");
      expect(data.length).toBeGreaterThan(big.length);
      expect(data.endsWith('"}')).toBe(true);
    } finally {
      clearInterval(reader);
    }
  });
});

describe("connection caps (docs/semantics.md 3.1)", () => {
  it("closes a connection beyond the per-address cap unanswered; /healthz from another address is answered", async () => {
    // A request timeout of 60 s: any close seen here is the cap's (unanswered), never the timeout's (408).
    const port = await start({ requestTimeoutMs: 60_000 });
    const held: Raw[] = [];
    for (let i = 0; i < CAP; i++) {
      const raw = connect(port);
      held.push(raw);
      await raw.connected;
      raw.socket.write(PARTIAL_HEADERS);
    }
    // The server counts a connection when it accepts it: wait until it counts all four.
    await untilConnections(servers.at(-1)!, CAP);
    for (let i = 0; i < 3; i++) {
      const extra = connect(port);
      const { data } = await within(extra.closed, HANG_GUARD_MS, "connection beyond the cap");
      expect(data).toBe("");
    }
    for (const raw of held) expect(raw.socket.destroyed).toBe(false);

    expect(await healthz(port, "127.0.0.2")).toBe("HTTP/1.1 200 OK");
    for (const raw of held) expect(raw.socket.destroyed).toBe(false);
  });

  it("gives the address its places back when its connections close", async () => {
    const port = await start();
    for (let round = 0; round < 3; round++) {
      const batch = Array.from({ length: CAP }, () => connect(port));
      await Promise.all(batch.map((raw) => raw.connected));
      for (const raw of batch) raw.socket.destroy();
      await Promise.all(batch.map((raw) => raw.closed));
      await untilConnections(servers.at(-1)!, 0);
    }
    expect(await healthz(port, "127.0.0.1")).toBe("HTTP/1.1 200 OK");
  });

  it("closes a connection beyond the total cap, whatever its address", async () => {
    const port = await start({ requestTimeoutMs: 60_000, maxConnections: 3 });
    const held = ["127.0.0.3", "127.0.0.4", "127.0.0.5"].map((address) => connect(port, address));
    await Promise.all(held.map((raw) => raw.connected));
    for (const raw of held) raw.socket.write(PARTIAL_HEADERS);
    await untilConnections(servers.at(-1)!, 3);
    const extra = connect(port, "127.0.0.6");
    const { data } = await within(extra.closed, HANG_GUARD_MS, "connection beyond the total cap");
    expect(data).toBe("");
    for (const raw of held) expect(raw.socket.destroyed).toBe(false);
  });

  it("cuts a flood of stalled connections from one address while /healthz is answered", async () => {
    const port = await start();
    const flood = Array.from({ length: 40 }, () => connect(port));
    for (const raw of flood) raw.socket.on("connect", () => raw.socket.write(PARTIAL_BODY));
    for (let i = 0; i < 5; i++) expect(await healthz(port, "127.0.0.2")).toBe("HTTP/1.1 200 OK");
    const outcomes = await within(Promise.all(flood.map((raw) => raw.closed)), HANG_GUARD_MS, "the flood");
    // At most CAP of them got a request under way (and its 408); the rest were closed unread.
    const answered = outcomes.filter((outcome) => outcome.data === TIMEOUT_RESPONSE).length;
    expect(answered).toBeLessThanOrEqual(CAP);
    expect(outcomes.every((outcome) => outcome.data === "" || outcome.data === TIMEOUT_RESPONSE)).toBe(true);
  });
});
