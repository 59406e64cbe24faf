import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { createApiKey } from "@/server/services/api-keys/service";
import { createOrg } from "@/test/fixtures";
import { appWithSysAdmin } from "@/test/suite";

// A REST call is served by the app's server itself when it carries a key, and through Next.js when
// it carries the console's session (docs/decisions/053-rest-served-by-the-front-door.md). A client
// must not be able to tell the two apart but by who it is, nor slip a request from one to the other.

const { client, app, admin, key, session } = await appWithSysAdmin();
const org = await createOrg(client);
const ONE = `/api/v1/organizations/${org.id}`;

const STATIC_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

const byKey = (path: string, init: RequestInit = {}) =>
  app.fetch(path, { ...init, headers: { "x-api-key": key.raw_key, ...(init.headers as Record<string, string>) } });

// What may differ between two answers of the same content: the request's id and moment, how the body
// and the connection are framed, a key's remaining requests, and the Vary Next.js adds for its router.
const FRAMING = new Set([
  "x-request-id",
  "date",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "ratelimit",
  "ratelimit-policy",
  "vary",
]);

/** The headers an answer carries, but those that may differ between two answers of the same content. */
const headersOf = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => !FRAMING.has(name)));

describe("REST by key and by session", () => {
  it("answer the same body and headers", async () => {
    const [keyed, signedIn] = await Promise.all([byKey(ONE), session.fetch(ONE)]);
    expect(keyed.status).toBe(200);
    expect(signedIn.status).toBe(200);
    expect(await keyed.json()).toEqual(await signedIn.json());
    expect(headersOf(keyed)).toEqual(headersOf(signedIn));
    expect(headersOf(keyed)).toMatchObject({ "content-type": "application/json", ...STATIC_HEADERS });
    expect(keyed.headers.get("ratelimit-policy")).toBe('"key";q=1000;w=60');
  });

  it("answer HEAD with GET's status and headers and no body", async () => {
    const get = await byKey(ONE);
    const body = await get.arrayBuffer();
    const head = await byKey(ONE, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(headersOf(head)).toEqual(headersOf(get));
    expect(head.headers.get("content-length")).toBe(String(body.byteLength));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    // Refusals too: HEAD of an unknown organization is GET's 404, without the problem's body.
    const missing = await byKey("/api/v1/organizations/00000000-0000-4000-8000-000000000000", { method: "HEAD" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect((await missing.arrayBuffer()).byteLength).toBe(0);
  });

  it("carry the static security headers on every answer, the front door's refusals included", async () => {
    const answers = await Promise.all([
      byKey(ONE),
      session.fetch(ONE),
      app.fetch("/api/health"),
      app.fetch("/api/v1/no-such-thing"),
      app.fetch("/api/health", { method: "DELETE" }),
      app.fetch(ONE, { method: "OPTIONS" }),
      app.fetch("/console/sign-in"),
    ]);
    for (const answer of answers) expect(headersOf(answer), answer.url).toMatchObject(STATIC_HEADERS);
  });

  it("send a write's body through whole, refuse one too large, and keep serving the connection", async () => {
    const renamed = `renamed-${org.id.slice(0, 8)}`;
    const patch = await byKey(ONE, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: renamed }),
    });
    expect(patch.status).toBe(200);
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).name).toBe(renamed);
    const large = await byKey(ONE, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(large.status).toBe(413);
    expect(large.headers.get("content-type")).toBe("application/problem+json");
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).name).toBe(renamed);
    // The client's connections still answer: the refused body was read off them and dropped.
    for (let call = 0; call < 3; call++)
      expect((await byKey(ONE, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
  });
});

describe("a body sent in chunks", () => {
  it("over the limit, is refused and the connection kept", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 3 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await byKey(ONE, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await byKey(ONE, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
  });
});

describe("a request that tries to pass for the other way in", () => {
  it("with a forged session cookie and a key, is served as the key's", async () => {
    const response = await byKey("/api/v1/me", { headers: { cookie: "authjs.session-token=forged" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ auth: "api_key" });
  });

  it("with a forged session cookie alone, is no one's", async () => {
    for (const cookie of ["authjs.session-token=forged", "__Secure-authjs.session-token=forged"]) {
      const response = await app.fetch("/api/v1/me", { headers: { cookie } });
      expect(response.status, cookie).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("with two X-API-KEY headers, is refused even when one is valid", async () => {
    for (const order of [
      [key.raw_key, "cdk_wrong"],
      ["cdk_wrong", key.raw_key],
    ]) {
      const headers = new Headers();
      for (const value of order) headers.append("x-api-key", value);
      expect((await app.fetch("/api/v1/me", { headers })).status).toBe(401);
    }
  });

  it("with a client's own address header, is judged by its socket's address", async () => {
    const elsewhere = await createApiKey(readContext(systemActor("test")), admin.id, {
      name: "elsewhere",
      scopes: ["svc:system:users:read"],
      expires_at: null,
      allowed_cidrs: ["203.0.113.0/24"],
    });
    const response = await app.fetch("/api/v1/me", {
      headers: { "x-api-key": elsewhere.raw_key, "x-svc-client-address": "203.0.113.9" },
    });
    expect(response.status).toBe(403);
    expect(await byKey("/api/v1/me", { headers: { "x-svc-client-address": "203.0.113.9" } })).toHaveProperty(
      "status",
      200,
    );
  });
});
