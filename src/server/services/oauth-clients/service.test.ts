import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createOAuthClientInput, updateOAuthClientInput } from "@/lib/schemas/oauth-clients";
import { cli, refusal, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createUserWith, seedRoles } from "@/test/fixtures";
import {
  createOAuthClient,
  deleteOAuthClient,
  getOAuthClient,
  listOAuthClients,
  rotateOAuthClientSecret,
  updateOAuthClient,
  verifyClientSecret,
} from "./service";
import { readContext } from "@/server/db/context";
import { dataLayer } from "@/server/db/data-layer";

const { client } = await testDatabase();
await seedRoles(client);

const confidential = (extra: Record<string, unknown> = {}) =>
  createOAuthClientInput.parse({
    name: "Portal",
    client_type: "confidential",
    redirect_uris: ["https://portal.example.test/callback", "http://127.0.0.1:8080/cb"],
    allowed_grant_types: ["authorization_code", "refresh_token", "client_credentials"],
    allowed_scopes: ["svc:org:read"],
    ...extra,
  });

describe("OAuth clients", () => {
  it("registers a confidential client: the secret once, only its SHA-256 stored", async () => {
    const created = await createOAuthClient(readContext(cli), confidential());
    expect(created.client_id).toMatch(/^svc_[0-9a-f]{32}$/);
    expect(created.client_secret).toMatch(/^cds_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      has_secret: true,
      is_active: true,
      is_first_party: false,
      allowed_scopes: ["svc:org:read"],
    });
    const row = await client.oauth2Client.findUniqueOrThrow({ where: { client_id: created.client_id } });
    expect(row.client_secret_hash).toBe(
      createHash("sha256")
        .update(created.client_secret as string)
        .digest("hex"),
    );
    expect(JSON.stringify(await getOAuthClient(readContext(cli), created.client_id))).not.toContain(
      created.client_secret as string,
    );
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, created.client_secret as string)).toBe(true);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, "cds_wrong")).toBe(false);
  });

  it("registers a public client without a secret, and refuses client_credentials for it", async () => {
    const pub = await createOAuthClient(
      readContext(cli),
      confidential({ client_type: "public", allowed_grant_types: ["authorization_code"] }),
    );
    expect(pub).toMatchObject({ client_secret: null, has_secret: false });
    const parsed = createOAuthClientInput.safeParse({
      name: "x",
      client_type: "public",
      redirect_uris: ["https://a.test/cb"],
      allowed_grant_types: ["client_credentials"],
    });
    expect(parsed.error?.issues.map((i) => i.message)).toEqual([
      "a public client has no secret and cannot use client_credentials",
    ]);
    expect((await refusal(rotateOAuthClientSecret(readContext(cli), pub.client_id))).code).toBe("conflict");
  });

  it.each([
    ["ftp://files.example.test/cb", "must use https (http only for a loopback host)"],
    ["http://portal.example.test/cb", "must use https (http only for a loopback host)"],
    ["https://portal.example.test/cb#frag", "must not have a fragment"],
    ["/relative/cb", "must be an absolute URI"],
    ["https://user:pw@portal.example.test/cb", "must not carry credentials"],
  ])("refuses the redirect URI %s", (uri, message) => {
    const parsed = createOAuthClientInput.safeParse({
      name: "x",
      client_type: "confidential",
      redirect_uris: [uri],
      allowed_grant_types: ["authorization_code"],
    });
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ path: ["redirect_uris", 0], message })]);
  });

  it("accepts loopback http redirect URIs", () => {
    for (const uri of ["http://localhost:3000/cb", "http://127.0.0.1/cb", "http://[::1]:9000/cb"]) {
      expect(
        createOAuthClientInput.safeParse({
          name: "x",
          client_type: "public",
          redirect_uris: [uri],
          allowed_grant_types: ["authorization_code"],
        }).success,
      ).toBe(true);
    }
  });

  it("refuses unknown scopes (400 unknown_scope) and, for a non-sys_admin, scopes it does not hold (403)", async () => {
    const before = await client.oauth2Client.count();
    const unknown = await refusal(
      createOAuthClient(readContext(cli), confidential({ allowed_scopes: ["svc:org:read", "svc:everything"] })),
    );
    expect(unknown).toMatchObject({ code: "unknown_scope", details: { scopes: ["svc:everything"] } });
    const user = await createUserWith(client, ["svc:system:oauth_clients:write", "svc:org:read"]);
    const actor = await sessionActor(client, user.id);
    const notHeld = await refusal(
      createOAuthClient(readContext(actor), confidential({ allowed_scopes: ["svc:org:read", "svc:system:admin"] })),
    );
    expect(notHeld).toMatchObject({ code: "scope_not_held", details: { scopes: ["svc:system:admin"] } });
    expect(await client.oauth2Client.count()).toBe(before);
    const ok = await createOAuthClient(readContext(actor), confidential());
    expect(
      (
        await refusal(
          updateOAuthClient(readContext(actor), ok.client_id, { allowed_scopes: ["svc:org:read", "svc:org:write"] }),
        )
      ).code,
    ).toBe("scope_not_held");
  });

  it("updates, deactivates, keeps client_type and the registration valid", async () => {
    const created = await createOAuthClient(readContext(cli), confidential());
    expect(
      await updateOAuthClient(
        readContext(cli),
        created.client_id,
        updateOAuthClientInput.parse({ name: "Portal 2", is_first_party: true }),
      ),
    ).toMatchObject({ name: "Portal 2", is_first_party: true });
    expect(
      (await refusal(updateOAuthClient(readContext(cli), created.client_id, { client_type: "public" }))).code,
    ).toBe("immutable_field");
    const invalid = await refusal(updateOAuthClient(readContext(cli), created.client_id, { redirect_uris: [] }));
    expect(invalid).toMatchObject({ code: "validation_failed", details: { errors: [{ path: "redirect_uris" }] } });
    expect((await updateOAuthClient(readContext(cli), created.client_id, { is_active: false })).is_active).toBe(false);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, created.client_secret as string)).toBe(false);
    expect(
      (await listOAuthClients(readContext(cli), { limit: 100, active: false })).data.map((c) => c.client_id),
    ).toContain(created.client_id);
  });

  it("rotates the secret: the old one stops working", async () => {
    const created = await createOAuthClient(readContext(cli), confidential());
    const rotated = await rotateOAuthClientSecret(readContext(cli), created.client_id);
    expect(rotated.client_secret).not.toBe(created.client_secret);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, created.client_secret as string)).toBe(false);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, rotated.client_secret as string)).toBe(true);
  });

  it("soft-deletes: gone from reads, sys_admins still list it", async () => {
    const created = await createOAuthClient(readContext(cli), confidential());
    expect(await deleteOAuthClient(readContext(cli), created.client_id)).toMatchObject({
      is_deleted: true,
      is_active: false,
    });
    expect((await refusal(getOAuthClient(readContext(cli), created.client_id))).code).toBe("not_found");
    expect((await listOAuthClients(readContext(cli), { limit: 100 })).data.map((c) => c.client_id)).not.toContain(
      created.client_id,
    );
    expect(
      (await listOAuthClients(readContext(cli), { limit: 100, include_deleted: true })).data.map((c) => c.client_id),
    ).toContain(created.client_id);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, created.client_secret as string)).toBe(false);
  });
});
