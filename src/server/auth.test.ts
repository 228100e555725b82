import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { type AuthResult, createAuthenticator } from "./auth.js";

const SECRET = "test-secret-of-reasonable-length-0123456789";
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const ed = generateKeyPairSync("ed25519");
const now = () => Math.floor(Date.now() / 1000);

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

async function hs256(claims: Record<string, unknown>, secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret));
}

const failure = (result: AuthResult) => (result.ok ? "ok" : result.reason);

describe("createAuthenticator: API keys (d3key)", () => {
  const auth = createAuthenticator({
    apiKeys: [
      { username: "analyst", key: "key-a" },
      { username: "analyst", key: "key-a2" },
      { username: "lead", key: "key-b" },
    ],
  });

  it.each([
    [{ d3key: "key-a" }, "analyst"],
    [{ d3key: "key-a2" }, "analyst"],
    [{ d3key: "key-b" }, "lead"],
  ])("accepts %j as %s", async (headers, username) => {
    const result = await auth.authenticate(headers);
    expect(result).toEqual({ ok: true, caller: { username }, via: "api_key" });
  });

  it.each([
    [{}, "missing_credential"],
    [{ d3key: "" }, "unknown_key"],
    [{ d3key: "key-A" }, "unknown_key"],
    [{ d3key: "key-a " }, "unknown_key"],
    [{ d3key: "key-" }, "unknown_key"],
    [{ d3key: ["key-a", "key-b"] }, "unknown_key"],
    [{ d3key: "key-a", d3jwt: "x" }, "ambiguous_credential"],
    [{ d3jwt: "a.b.c" }, "jwt_not_configured"],
    [{ authorization: "Bearer key-a" }, "missing_credential"],
  ])("refuses %j (%s)", async (headers, reason) => {
    expect(failure(await auth.authenticate(headers))).toBe(reason);
  });

  it("accepts exactly the configured keys (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40 }), async (key) => {
        const result = await auth.authenticate({ d3key: key });
        expect(result.ok).toBe(["key-a", "key-a2", "key-b"].includes(key));
      }),
      fcOptions(200),
    );
  });
});

describe("createAuthenticator: JSON web tokens (d3jwt)", () => {
  const auth = createAuthenticator({
    jwt: { secret: SECRET, publicKey: rsa.publicKey.export({ type: "spki", format: "pem" }).toString() },
  });

  it("lists the allowed algorithms", () => {
    expect(auth.jwtAlgorithms).toEqual(["HS256", "RS256"]);
    expect(createAuthenticator({ jwt: { publicKey: ec.publicKey } }).jwtAlgorithms).toEqual(["ES256"]);
  });

  it("accepts an HS256 token and an RS256 token; the user is sub", async () => {
    const token = await hs256({ sub: "analyst", exp: now() + 60 });
    expect(await auth.authenticate({ d3jwt: token })).toEqual({
      ok: true,
      caller: { username: "analyst" },
      via: "jwt",
    });
    const rs = await new SignJWT({ sub: "lead" })
      .setProtectedHeader({ alg: "RS256" })
      .setExpirationTime("1m")
      .sign(rsa.privateKey);
    expect(await auth.authenticate({ d3jwt: rs })).toMatchObject({ ok: true, caller: { username: "lead" } });
  });

  it("accepts ES256 with an EC P-256 key", async () => {
    const esAuth = createAuthenticator({ jwt: { publicKey: ec.publicKey } });
    const es = await new SignJWT({ sub: "lead" })
      .setProtectedHeader({ alg: "ES256" })
      .setExpirationTime("1m")
      .sign(ec.privateKey);
    expect(await esAuth.authenticate({ d3jwt: es })).toMatchObject({
      ok: true,
      caller: { username: "lead" },
    });
  });

  const cases: [string, () => Promise<string>, string][] = [
    ["expired", () => hs256({ sub: "analyst", exp: now() - 10 }), "expired_token"],
    ["without exp", () => hs256({ sub: "analyst" }), "invalid_token"],
    ["without sub", () => hs256({ exp: now() + 60 }), "invalid_token"],
    ["with an empty sub", () => hs256({ sub: "", exp: now() + 60 }), "invalid_token"],
    ["not yet valid", () => hs256({ sub: "analyst", exp: now() + 600, nbf: now() + 300 }), "invalid_token"],
    [
      "with a wrong signature",
      () => hs256({ sub: "analyst", exp: now() + 60 }, "another-secret"),
      "invalid_token",
    ],
    [
      "tampered (payload changed after signing)",
      async () => {
        const [header, , signature] = (await hs256({ sub: "analyst", exp: now() + 60 })).split(".");
        return `${header}.${b64url({ sub: "admin", exp: now() + 60 })}.${signature}`;
      },
      "invalid_token",
    ],
    [
      "with alg none",
      async () => `${b64url({ alg: "none", typ: "JWT" })}.${b64url({ sub: "analyst", exp: now() + 60 })}.`,
      "algorithm_not_allowed",
    ],
    [
      "with alg HS512 (outside the allow-list)",
      () =>
        new SignJWT({ sub: "analyst", exp: now() + 60 })
          .setProtectedHeader({ alg: "HS512" })
          .sign(new TextEncoder().encode(SECRET)),
      "algorithm_not_allowed",
    ],
    [
      "signed HS256 with the RSA public key as the secret (algorithm confusion)",
      () =>
        hs256(
          { sub: "analyst", exp: now() + 60 },
          rsa.publicKey.export({ type: "spki", format: "pem" }).toString(),
        ),
      "invalid_token",
    ],
    [
      "signed RS256 by another key",
      () =>
        new SignJWT({ sub: "analyst" })
          .setProtectedHeader({ alg: "RS256" })
          .setExpirationTime("1m")
          .sign(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey),
      "invalid_token",
    ],
    ["not a JWT", async () => "not-a-token", "invalid_token"],
    ["three empty parts", async () => "..", "invalid_token"],
  ];
  it.each(cases)("refuses a token %s", async (_name, make, reason) => {
    expect(failure(await auth.authenticate({ d3jwt: await make() }))).toBe(reason);
  });

  it("refuses an RS256 token when only a secret is configured", async () => {
    const hsOnly = createAuthenticator({ jwt: { secret: SECRET } });
    const rs = await new SignJWT({ sub: "lead" })
      .setProtectedHeader({ alg: "RS256" })
      .setExpirationTime("1m")
      .sign(rsa.privateKey);
    expect(failure(await hsOnly.authenticate({ d3jwt: rs }))).toBe("algorithm_not_allowed");
  });

  it("never throws on arbitrary header text (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (text) => {
        const result = await auth.authenticate({ d3jwt: text });
        expect(result.ok).toBe(false);
      }),
      fcOptions(200),
    );
  });
});

describe("createAuthenticator: configuration errors", () => {
  it.each([
    [{}, /No credential is configured/],
    [{ apiKeys: [] }, /No credential is configured/],
    [{ apiKeys: [{ username: "", key: "k" }] }, /non-empty username/],
    [{ apiKeys: [{ username: "u", key: "" }] }, /API key of user 'u' is empty/],
    // One key for two users would authenticate every request of one of them as the other.
    [
      {
        apiKeys: [
          { username: "analyst", key: "shared" },
          { username: "lead", key: "shared" },
        ],
      },
      /The same API key is configured for users 'analyst' and 'lead'/,
    ],
    [{ jwt: { secret: "" } }, /JWT secret is empty/],
    [{ jwt: { publicKey: ed.publicKey } }, /RSA key \(RS256\) or an EC P-256 key/],
    [{ jwt: { publicKey: "not a pem" } }, /./],
  ])("throws for %j", (options, message) => {
    expect(() => createAuthenticator(options as Parameters<typeof createAuthenticator>[0])).toThrow(message);
  });
});
