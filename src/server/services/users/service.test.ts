import { describe, expect, it } from "vitest";
import { authenticateApiKey } from "@/server/auth/api-key-stage";
import { verifyPassword } from "@/server/auth/passwords";
import { createApiKey } from "@/server/services/api-keys/service";
import { cli, refusal } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createSysAdmin, createUser, roleId, seedRoles } from "@/test/fixtures";
import { createServiceAccount } from "@/server/services/service-accounts/service";
import {
  createUser as createUserAs,
  deleteUser,
  getUser,
  listIdentities,
  listUsers,
  resetPassword,
  restoreUser,
  unlinkIdentity,
  updateUser,
} from "./service";
import { readContext } from "@/server/db/context";

const { client } = await testDatabase();
await seedRoles(client);

let n = 0;
const fresh = (prefix = "u") => `${prefix}${process.pid}x${++n}`;

describe("users", () => {
  it("creates a user with a profile and an argon2id password, never returning the hash", async () => {
    const username = fresh("ada");
    const user = await createUserAs(readContext(cli), {
      username,
      email: `${username}@example.test`,
      password: "correct horse battery",
      display_name: "Ada",
      locale: "en-GB",
      timezone: "Europe/London",
      bio: "Counts.",
      avatar_url: "https://example.test/ada.png",
    });
    expect(user).toMatchObject({
      username,
      email: `${username}@example.test`,
      display_name: "Ada",
      locale: "en-GB",
      timezone: "Europe/London",
      has_password: true,
      is_deleted: false,
    });
    expect(user).not.toHaveProperty("password_hash");
    const row = await client.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(row.password_hash as string, "correct horse battery")).toBe(true);
    expect(row.created_by).toBe("system:test");
  });

  it("creates an OAuth-only user without a password", async () => {
    const user = await createUserAs(readContext(cli), { username: fresh(), password: null });
    expect(user.has_password).toBe(false);
    expect((await client.user.findUniqueOrThrow({ where: { id: user.id } })).password_hash).toBeNull();
  });

  it("keeps usernames unique, and emails unique among users that have one (409, nothing stored)", async () => {
    const username = fresh();
    await createUserAs(readContext(cli), { username, email: `${username}@example.test`, password: null });
    const before = await client.user.count();
    const name = await refusal(createUserAs(readContext(cli), { username, password: null }));
    expect(name).toMatchObject({ code: "conflict", details: { errors: [{ path: "username" }] } });
    const mail = await refusal(
      createUserAs(readContext(cli), { username: fresh(), email: `${username}@example.test`, password: null }),
    );
    expect(mail).toMatchObject({ code: "conflict", details: { errors: [{ path: "email" }] } });
    await createUserAs(readContext(cli), { username: fresh(), password: null });
    await createUserAs(readContext(cli), { username: fresh(), password: null });
    expect(await client.user.count()).toBe(before + 2);
  });

  it("lets a deleted user's username and email be taken, and then refuses to restore it (409)", async () => {
    const username = fresh();
    const old = await createUserAs(readContext(cli), { username, email: `${username}@example.test`, password: null });
    await deleteUser(readContext(cli), old.id);
    const taken = await createUserAs(readContext(cli), { username, email: `${username}@example.test`, password: null });
    expect(taken.id).not.toBe(old.id);
    expect((await refusal(restoreUser(readContext(cli), old.id))).code).toBe("conflict");
    await deleteUser(readContext(cli), taken.id);
    expect((await restoreUser(readContext(cli), old.id)).is_deleted).toBe(false);
  });

  it("searches by username, display name or email, newest first, paginated", async () => {
    const tag = fresh("zeta");
    const a = await createUserAs(readContext(cli), { username: `${tag}-a`, password: null });
    const b = await createUserAs(readContext(cli), {
      username: fresh(),
      display_name: `Mr ${tag.toUpperCase()}`,
      password: null,
    });
    const c = await createUserAs(readContext(cli), { username: fresh(), email: `${tag}@example.test`, password: null });
    // Newest first is by id (UUIDv7, time-ordered): two made in one millisecond may be either way.
    const newestFirst = [a, b, c].map((u) => u.id).sort((x, y) => y.localeCompare(x));
    const all = await listUsers(readContext(cli), { q: tag, limit: 50 });
    expect(all.data.map((u) => u.id)).toEqual(newestFirst);
    const first = await listUsers(readContext(cli), { q: tag, limit: 2 });
    expect(first.data.map((u) => u.id)).toEqual(newestFirst.slice(0, 2));
    const second = await listUsers(readContext(cli), { q: tag, limit: 2, cursor: first.next_cursor ?? undefined });
    expect(second).toEqual({ data: [expect.objectContaining({ id: newestFirst[2] })], next_cursor: null });
  });

  it("updates a profile and resets a password (generated once, or given)", async () => {
    const user = await createUserAs(readContext(cli), { username: fresh(), password: "first password 1" });
    expect(await updateUser(readContext(cli), user.id, { display_name: "New", bio: null })).toMatchObject({
      display_name: "New",
      bio: null,
    });
    const generated = await resetPassword(readContext(cli), user.id, {});
    expect(generated.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const hash = (await client.user.findUniqueOrThrow({ where: { id: user.id } })).password_hash as string;
    expect(await verifyPassword(hash, generated.password as string)).toBe(true);
    expect(await verifyPassword(hash, "first password 1")).toBe(false);
    expect((await resetPassword(readContext(cli), user.id, { password: "chosen password 2" })).password).toBeNull();
  });

  it("clears a verified email when the email changes, and only then", async () => {
    const username = fresh();
    const user = await createUserAs(readContext(cli), { username, email: `${username}@example.test`, password: null });
    expect(user.email_verified_at).toBeNull();
    const verifiedAt = new Date("2026-11-01T10:00:00Z");
    await client.user.update({ where: { id: user.id }, data: { email_verified_at: verifiedAt } });
    // The same address again, and other fields, keep it.
    const same = await updateUser(readContext(cli), user.id, { email: `${username}@example.test`, bio: "x" });
    expect(same.email_verified_at).toEqual(verifiedAt);
    const changed = await updateUser(readContext(cli), user.id, { email: `${username}@elsewhere.test` });
    expect(changed.email_verified_at).toBeNull();
    expect((await getUser(readContext(cli), user.id)).email_verified_at).toBeNull();
  });

  it("soft-deletes: hidden from reads, its API keys fail at once; sys_admins see and restore it", async () => {
    const admin = await createSysAdmin(client);
    const owned = await createApiKey(readContext(cli), admin.id, {
      name: "k",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    expect((await authenticateApiKey(owned.raw_key)).userId).toBe(admin.id);
    await deleteUser(readContext(cli), admin.id);
    expect((await refusal((async () => authenticateApiKey(owned.raw_key))())).code).toBe("api_key_revoked");
    expect((await refusal(getUser(readContext(cli), admin.id))).code).toBe("not_found");
    expect((await getUser(readContext(cli), admin.id, { includeDeleted: true })).is_deleted).toBe(true);
    expect((await listUsers(readContext(cli), { limit: 100, include_deleted: true })).data.map((u) => u.id)).toContain(
      admin.id,
    );
    expect((await listUsers(readContext(cli), { limit: 100 })).data.map((u) => u.id)).not.toContain(admin.id);
    await restoreUser(readContext(cli), admin.id);
    expect((await authenticateApiKey(owned.raw_key)).userId).toBe(admin.id);
  });

  it("never deletes the last sys_admin", async () => {
    const sysAdminRole = await roleId(client, "sys_admin");
    const holders = await client.userRole.findMany({
      where: { role_id: sysAdminRole, org_id: null, user: { is_deleted: false } },
    });
    for (const h of holders.slice(1)) await deleteUser(readContext(cli), h.user_id);
    const last = holders[0]?.user_id as string;
    const error = await refusal(deleteUser(readContext(cli), last));
    expect(error.code).toBe("conflict");
    expect((await client.user.findUniqueOrThrow({ where: { id: last } })).is_deleted).toBe(false);
    const next = await createSysAdmin(client);
    expect((await deleteUser(readContext(cli), last)).is_deleted).toBe(true);
    expect((await refusal(deleteUser(readContext(cli), next.id))).code).toBe("conflict");
  });
});

describe("OAuth identities", () => {
  it("lists a user's identities and unlinks one", async () => {
    const user = await createUser(client);
    const github = await client.userOauthIdentity.create({
      data: { user_id: user.id, provider: "github", provider_user_id: fresh("gh") },
    });
    await client.userOauthIdentity.create({
      data: { user_id: user.id, provider: "oauth2", provider_user_id: fresh("sub") },
    });
    expect((await listIdentities(readContext(cli), user.id, { limit: 50 })).data.map((i) => i.provider)).toEqual([
      "github",
      "oauth2",
    ]);
    expect((await unlinkIdentity(readContext(cli), user.id, github.id)).id).toBe(github.id);
    expect((await listIdentities(readContext(cli), user.id, { limit: 50 })).data.map((i) => i.provider)).toEqual([
      "oauth2",
    ]);
    const other = await createUser(client);
    const theirs = await client.userOauthIdentity.create({
      data: { user_id: other.id, provider: "google", provider_user_id: fresh("g") },
    });
    expect((await refusal(unlinkIdentity(readContext(cli), user.id, theirs.id))).code).toBe("not_found");
  });

  it("keeps (provider, provider_user_id) unique", async () => {
    const [a, b] = [await createUser(client), await createUser(client)];
    const id = fresh("dup");
    await client.userOauthIdentity.create({ data: { user_id: a.id, provider: "google", provider_user_id: id } });
    await expect(
      client.userOauthIdentity.create({ data: { user_id: b.id, provider: "google", provider_user_id: id } }),
    ).rejects.toThrow();
    await client.userOauthIdentity.create({ data: { user_id: b.id, provider: "github", provider_user_id: id } });
  });
});

// A service account deleted through the users route kept its keys, which a
// restore brought back. Every route that deletes the account now revokes them for good.
describe("deleting a service account as a user", () => {
  it("revokes its keys, so a restore brings none back", async () => {
    const org = await createOrg(client);
    const account = await createServiceAccount(readContext(cli), org.id, {
      username: fresh("robot"),
      display_name: null,
      role_ids: [await roleId(client, "org_member")],
    });
    const key = await createApiKey(readContext(cli), account.id, {
      name: "ci",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    await deleteUser(readContext(cli), account.id);
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({ is_active: false });
    await restoreUser(readContext(cli), account.id);
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({ is_active: false });
    expect((await refusal(Promise.resolve().then(() => authenticateApiKey(key.raw_key)))).code).toBe("api_key_revoked");
    const events = await client.auditEvent.count({ where: { action: "revokeApiKey", target_id: key.id } });
    expect(events).toBe(1);
  });

  it("leaves a person's keys to come back with the person", async () => {
    const user = await createSysAdmin(client);
    await createSysAdmin(client);
    const key = await createApiKey(readContext(cli), user.id, {
      name: "mine",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    await deleteUser(readContext(cli), user.id);
    await restoreUser(readContext(cli), user.id);
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({ is_active: true });
  });
});
