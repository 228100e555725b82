/**
 * Authentication end to end over real HTTP (docs/semantics.md 3.1, specification 5): API keys in `d3key`,
 * tokens in `d3jwt` (valid, expired, wrong signature, `alg: none`, wrong user), and the order of checks
 * (authentication before everything but the method).
 */
import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, KEYS, post, type RunningServer, SOC, send, startServer } from "./fixtures.js";

const UNAUTHORIZED = '{"Error":"Invalid authentication key."}';
const SECRET = "end-to-end-secret-0123456789abcdef";
const ec = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const now = () => Math.floor(Date.now() / 1000);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const hs256 = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret));
const timeline = envelope({ "Incident Number": "20240101-1" });

let running: RunningServer;
beforeAll(async () => {
  running = await startServer({
    jwt: { secret: SECRET, publicKey: ec.publicKey.export({ type: "spki", format: "pem" }).toString() },
  });
});
afterAll(async () => {
  await running.server.close();
});

describe("API keys (d3key)", () => {
  it("accepts each user's key for that user", async () => {
    expect((await post(running.url, "GetIncidentTimelineEntries", timeline)).status).toBe(200);
    const lead = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope(timeline.CommandParams, "lead"),
      {
        d3key: KEYS.lead,
      },
    );
    expect(lead.status).toBe(200);
    expect((lead.json as { error: string }).error).toBe("");
  });

  it.each([
    ["no credential", {}],
    ["an unknown key", { d3key: "guess" }],
    ["a key with a different case", { d3key: KEYS.analyst.toUpperCase() }],
    ["a prefix of a key", { d3key: KEYS.analyst.slice(0, -1) }],
    ["the key in another header", { authorization: `Bearer ${KEYS.analyst}` }],
    ["both a key and a token", { d3key: KEYS.analyst, d3jwt: "x.y.z" }],
  ])("answers 401 for %s", async (_name, headers) => {
    const answer = await post(running.url, "GetIncidentTimelineEntries", timeline, headers);
    expect(answer.status).toBe(401);
    expect(answer.text).toBe(UNAUTHORIZED);
  });

  it("answers 401 when the body's Username is another user", async () => {
    const answer = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope(timeline.CommandParams, "lead"),
    );
    expect(answer.status).toBe(401);
    expect(answer.text).toBe(UNAUTHORIZED);
  });

  it("answers 401 before 404 (unknown command) and before 400 (bad body): a stranger learns nothing", async () => {
    expect((await post(running.url, "NoSuchCommand", timeline, {})).text).toBe(UNAUTHORIZED);
    expect((await post(running.url, "GetIncidentTimelineEntries", "not json", {})).text).toBe(UNAUTHORIZED);
    const form = await send(`${running.url}/Command/AddNotesToArtifacts`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=b",
    });
    expect(form.text).toBe(UNAUTHORIZED);
  });

  it("answers 401 before 405: authentication comes first, whatever the method (semantics 3.1)", async () => {
    const answer = await send(`${running.url}/Command/GetIncidentTimelineEntries`, { method: "GET" });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ Error: "Invalid authentication key." });
  });
});

describe("JSON web tokens (d3jwt)", () => {
  it("accepts a valid HS256 token; the user is sub", async () => {
    const token = await hs256({ sub: "analyst", exp: now() + 60 });
    const answer = await post(running.url, "GetIncidentTimelineEntries", timeline, { d3jwt: token });
    expect(answer.status).toBe(200);
    expect((answer.json as { error: string }).error).toBe("");
  });

  it("accepts a valid ES256 token", async () => {
    const token = await new SignJWT({ sub: "lead" })
      .setProtectedHeader({ alg: "ES256" })
      .setExpirationTime("2m")
      .sign(ec.privateKey);
    const answer = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope(timeline.CommandParams, "lead"),
      {
        d3jwt: token,
      },
    );
    expect(answer.status).toBe(200);
  });

  const refused: [string, () => Promise<string>, unknown?][] = [
    ["an expired token", () => hs256({ sub: "analyst", exp: now() - 5 })],
    ["a token with a wrong signature", () => hs256({ sub: "analyst", exp: now() + 60 }, "not-the-secret")],
    [
      "a token with alg none",
      async () => `${b64url({ alg: "none", typ: "JWT" })}.${b64url({ sub: "analyst", exp: now() + 60 })}.`,
    ],
    [
      "a token whose payload was changed after signing",
      async () => {
        const [header, , signature] = (await hs256({ sub: "lead", exp: now() + 60 })).split(".");
        return `${header}.${b64url({ sub: "analyst", exp: now() + 60 })}.${signature}`;
      },
    ],
    [
      "an HS256 token signed with the public key (algorithm confusion)",
      () =>
        hs256(
          { sub: "analyst", exp: now() + 60 },
          ec.publicKey.export({ type: "spki", format: "pem" }).toString(),
        ),
    ],
    ["a token without exp", () => hs256({ sub: "analyst" })],
    ["a token for another user than the body's Username", () => hs256({ sub: "lead", exp: now() + 60 })],
    ["garbage", async () => "garbage"],
  ];
  it.each(refused)("answers 401 for %s", async (_name, make) => {
    const answer = await post(running.url, "GetIncidentTimelineEntries", timeline, { d3jwt: await make() });
    expect(answer.status).toBe(401);
    expect(answer.text).toBe(UNAUTHORIZED);
  });

  it("a token for a user the dataset does not know gets the site-access failure, not data", async () => {
    const token = await hs256({ sub: "mallory", exp: now() + 60 });
    const answer = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope(timeline.CommandParams, "mallory"),
      { d3jwt: token },
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      error: `User 'mallory' has no access to site '${SOC}'.`,
      returnData: { Status: "Failed", Data: [] },
    });
  });
});
