import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Actor } from "@/server/auth/actor";
import { authorizeOperation, holds } from "@/server/auth/authorize";
import { ROUTES, type RestOperation } from "@/server/rest/registry";
import { authenticateApiKey } from "@/server/auth/api-key-stage";
import { loadGrants } from "@/server/auth/grants";
import { linkedUserId, linkExternalSignIn } from "@/server/auth/oauth";
import { dataLayer } from "@/server/db/data-layer";
import { ORG_PERMISSIONS, type Permission } from "@/lib/permissions";
import { addMember, removeMember } from "@/server/services/memberships/service";
import { grantRole } from "@/server/services/roles/grants";
import { resetPassword, restoreUser } from "@/server/services/users/service";
import { cli, refusal, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, createOrgUser, createRole, roleId, seedRoles } from "@/test/fixtures";
import {
  createServiceAccountKey,
  listServiceAccountKeys,
  revokeServiceAccountKey,
  rollServiceAccountKey,
  updateServiceAccountKey,
} from "./keys";
import {
  createServiceAccount,
  deleteServiceAccount,
  getServiceAccount,
  listServiceAccounts,
  updateServiceAccount,
} from "./service";
import { readContext } from "@/server/db/context";

const { client } = await testDatabase();
await seedRoles(client);

let n = 0;
const fresh = (prefix = "robot") => `${prefix}-${process.pid}-${++n}`;
const IN_A_YEAR = () => new Date(Date.now() + 365 * 86_400_000).toISOString();
const WRITE: Permission = "svc:org:service_accounts:write";

/** A human holding `permissions` (always service_accounts:write) in a new organization, through a custom org role. */
async function manager(permissions: readonly Permission[] = []) {
  const org = await createOrg(client);
  const user = await createOrgUser(
    client,
    org.id,
    await createRole(client, "org", [...new Set([WRITE, ...permissions])]),
  );
  return { user, org, actor: () => sessionActor(client, user.id) };
}

async function orgAdmin() {
  const org = await createOrg(client);
  const user = await createOrgAdmin(client, org.id);
  return { user, org, actor: () => sessionActor(client, user.id) };
}

/** A service account made by `actor` in the organization, holding these org roles. */
const newAccount = async (actor: () => Promise<Actor>, orgId: string, role_ids: string[] = []) =>
  createServiceAccount(readContext(await actor()), orgId, { username: fresh(), display_name: null, role_ids });

describe("service accounts", () => {
  it("are made by an org admin with org roles, as members of that organization only, without a password", async () => {
    const { org, actor } = await orgAdmin();
    const member = await roleId(client, "org_member");
    const account = await createServiceAccount(readContext(await actor()), org.id, {
      username: fresh(),
      display_name: "CI",
      role_ids: [member],
    });
    expect(account).toMatchObject({ org_id: org.id, display_name: "CI", roles: [{ id: member, name: "org_member" }] });
    const row = await client.user.findUniqueOrThrow({ where: { id: account.id }, include: { memberships: true } });
    expect(row).toMatchObject({ kind: "service", password_hash: null, email: null });
    expect(row.memberships.map((m) => m.org_id)).toEqual([org.id]);
    expect(
      (await listServiceAccounts(readContext(await actor()), org.id, { limit: 50 })).data.map((a) => a.id),
    ).toEqual([account.id]);
    // Another organization's path does not reach it; a human member is no service account.
    const other = await orgAdmin();
    expect((await refusal(getServiceAccount(readContext(await other.actor()), other.org.id, account.id))).code).toBe(
      "not_found",
    );
    const human = (await actor()).userId;
    expect((await refusal(getServiceAccount(readContext(await actor()), org.id, human))).code).toBe("not_found");
  });

  it("hold org roles only and stay in their one organization", async () => {
    const { org, actor } = await orgAdmin();
    const account = await newAccount(actor, org.id);
    const system = await createRole(client, "system", ["svc:system:audit:read"]);
    const created = await refusal(
      createServiceAccount(readContext(await actor()), org.id, {
        username: fresh(),
        display_name: null,
        role_ids: [system.id],
      }),
    );
    expect(created).toMatchObject({ code: "validation_failed", details: { errors: [{ path: "role_ids.0" }] } });
    // Even a sys_admin (the CLI) grants it no system role, adds it to no other organization, and
    // cannot take it out of its own or give it a password.
    expect((await refusal(grantRole(readContext(cli), account.id, { role_id: system.id, org_id: null }))).code).toBe(
      "validation_failed",
    );
    const second = await createOrg(client);
    expect((await refusal(addMember(readContext(cli), second.id, { user_id: account.id }))).code).toBe("conflict");
    expect((await refusal(removeMember(readContext(cli), org.id, account.id))).code).toBe("conflict");
    expect(
      (await refusal(resetPassword(readContext(cli), account.id, { password: "a-long-enough-password" }))).code,
    ).toBe("conflict");
    // And the database itself keeps a password off a service account.
    const error = await refusal(client.user.update({ where: { id: account.id }, data: { password_hash: "x" } }));
    expect(error.code).toBe("validation_failed");
    expect(await client.userOrgMembership.count({ where: { user_id: account.id } })).toBe(1);
    expect(await client.userRole.count({ where: { user_id: account.id, org_id: null } })).toBe(0);
  });

  it("cannot be reached by any external sign-in", async () => {
    const { org, actor } = await orgAdmin();
    const account = await newAccount(actor, org.id);
    // An identity linked to it by hand, and an email it was given: neither signs anyone in as it.
    await client.userOauthIdentity.create({
      data: { user_id: account.id, provider: "github", provider_user_id: `gh-${account.id}` },
    });
    expect(await linkedUserId("github", `gh-${account.id}`)).toBeNull();
    expect(
      await linkExternalSignIn({ provider: "github", providerUserId: `gh-${account.id}`, profile: undefined }),
    ).toBeNull();
    const email = `${fresh()}@example.test`;
    await client.user.update({ where: { id: account.id }, data: { email } });
    expect(
      await linkExternalSignIn({
        provider: "github",
        providerUserId: `gh-new-${account.id}`,
        profile: { email, email_verified: true },
      }),
    ).toBeNull();
    expect(await client.userOauthIdentity.count({ where: { user_id: account.id } })).toBe(1);
  });

  it("keeps its key working after its creator leaves and is deleted; deleting it ends its keys", async () => {
    const { user, org, actor } = await orgAdmin();
    const account = await newAccount(actor, org.id, [await roleId(client, "org_member")]);
    const key = await createServiceAccountKey(readContext(await actor()), org.id, account.id, {
      name: "ci",
      scopes: ["svc:org:read"],
      expires_at: IN_A_YEAR(),
      rate_limit: null,
      allowed_org_ids: null,
      allowed_cidrs: null,
    });
    await client.userRole.deleteMany({ where: { user_id: user.id } });
    await client.userOrgMembership.deleteMany({ where: { user_id: user.id } });
    await client.user.update({ where: { id: user.id }, data: { is_deleted: true } });
    const asKey = await authenticateApiKey(key.raw_key);
    expect(holds(asKey, "svc:org:read", org.id)).toBe(true);
    expect([...asKey.grants.memberships.keys()]).toEqual([org.id]);

    await deleteServiceAccount(readContext(cli), org.id, account.id);
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).is_active).toBe(false);
    expect((await refusal(Promise.resolve().then(() => authenticateApiKey(key.raw_key)))).code).toMatch(
      /api_key_revoked|invalid_api_key/,
    );
  });
});

describe("no escalation", () => {
  it("refuses a role or a scope the manager does not hold there, storing nothing", async () => {
    const { org, actor } = await manager(["svc:org:read", "svc:org:members:read"]);
    const wide = await createRole(client, "org", ["svc:org:read", "svc:org:write"]);
    const users = await client.user.count();
    const error = await refusal(
      createServiceAccount(readContext(await actor()), org.id, {
        username: fresh(),
        display_name: null,
        role_ids: [wide.id],
      }),
    );
    expect(error).toMatchObject({ code: "scope_not_held", details: { scopes: ["svc:org:write"] } });
    expect(await client.user.count()).toBe(users);

    const narrow = await createRole(client, "org", ["svc:org:read"]);
    const account = await newAccount(actor, org.id, [narrow.id]);
    expect(
      (await refusal(updateServiceAccount(readContext(await actor()), org.id, account.id, { role_ids: [wide.id] })))
        .code,
    ).toBe("scope_not_held");
    const keys = await client.apiKey.count();
    const body = { name: "k", expires_at: null, rate_limit: null, allowed_org_ids: null, allowed_cidrs: null };
    // Held by the manager but not by the account; held by neither; a system scope.
    for (const scopes of [["svc:org:members:read"], ["svc:org:write"], ["svc:system:orgs:read"]] as Permission[][]) {
      const refused = await refusal(
        createServiceAccountKey(readContext(await actor()), org.id, account.id, { ...body, scopes }),
      );
      expect(refused.code, scopes[0]).toBe("scope_not_held");
    }
    expect(await client.apiKey.count()).toBe(keys);

    // A sys_admin gives the account a key with a scope the manager lacks: the manager cannot roll it.
    await updateServiceAccount(readContext(cli), org.id, account.id, { role_ids: [wide.id] });
    const strong = await createServiceAccountKey(readContext(cli), org.id, account.id, {
      ...body,
      scopes: ["svc:org:write"],
    });
    const roll = await refusal(
      rollServiceAccountKey(readContext(await actor()), org.id, account.id, strong.id, { grace_period_seconds: 0 }),
    );
    expect(roll.code).toBe("scope_not_held");
    expect(await client.apiKey.count({ where: { user_id: account.id } })).toBe(1);
    // Nor take the wide role away.
    expect(
      (await refusal(updateServiceAccount(readContext(await actor()), org.id, account.id, { role_ids: [] }))).code,
    ).toBe("scope_not_held");
    expect((await refusal(deleteServiceAccount(readContext(await actor()), org.id, account.id))).code).toBe(
      "scope_not_held",
    );
  });

  // The property: whatever a non-sys_admin manager asks for, a service account it makes ends up
  // holding nothing in the organization the manager did not hold there, nothing anywhere else, and
  // no key of it carries a scope the manager did not hold there.
  it("holds for any roles and key scopes a manager asks for", async () => {
    const roles = await Promise.all(
      [
        ["svc:org:read"],
        ["svc:org:read", "svc:org:write"],
        ["svc:conversations:write", "svc:conversations:read"],
        ["svc:org:service_accounts:read", "svc:org:members:read"],
        ORG_PERMISSIONS,
      ].map((permissions) => createRole(client, "org", permissions as Permission[])),
    );
    const scenario = fc.record({
      held: fc.subarray(ORG_PERMISSIONS, { maxLength: 10 }),
      roles: fc.subarray(
        roles.map((r) => r.id),
        { maxLength: 3 },
      ),
      keyScopes: fc.array(
        fc.subarray([...ORG_PERMISSIONS, "svc:system:orgs:read" as Permission], { minLength: 1, maxLength: 4 }),
        {
          maxLength: 3,
        },
      ),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ held, roles: roleIds, keyScopes }) => {
        const { org, actor } = await manager(held);
        const granter = await actor();
        const account = await createServiceAccount(readContext(granter), org.id, {
          username: fresh(),
          display_name: null,
          role_ids: roleIds,
        }).catch(() => undefined);
        if (!account) return;
        for (const scopes of keyScopes) {
          await createServiceAccountKey(readContext(granter), org.id, account.id, {
            name: "k",
            scopes,
            expires_at: null,
            rate_limit: null,
            allowed_org_ids: null,
            allowed_cidrs: null,
          }).catch(() => undefined);
        }
        const grants = await loadGrants(dataLayer("test", { client }), account.id);
        expect(grants.isSysAdmin).toBe(false);
        expect(grants.global.size).toBe(0);
        expect([...grants.memberships.keys()]).toEqual([org.id]);
        for (const p of grants.byOrg.get(org.id) ?? []) expect(holds(granter, p, org.id), p).toBe(true);
        const keys = await listServiceAccountKeys(readContext(granter), org.id, account.id, { limit: 100 });
        for (const key of keys.data)
          for (const scope of key.scopes) expect(holds(granter, scope as Permission, org.id), scope).toBe(true);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

// A manager holding only svc:org:read (and the service-account permissions)
// lifted the restrictions of an org admin's key and revoked keys of accounts it could not delete.
describe("no escalation through a key's change or revocation", () => {
  const restricted = {
    name: "locked-down",
    expires_at: null,
    rate_limit: { requests: 600, window_seconds: 60 },
    allowed_org_ids: null,
    allowed_cidrs: ["10.0.0.0/8"],
  };

  it("refuses a lesser manager loosening or revoking a key it could not issue, changing nothing", async () => {
    const { org, actor } = await manager(["svc:org:read", "svc:org:service_accounts:read"]);
    const wide = await createRole(client, "org", ["svc:org:read", "svc:org:write"]);
    const account = await newAccount(async () => cli, org.id, [wide.id]);
    const key = await createServiceAccountKey(readContext(cli), org.id, account.id, {
      ...restricted,
      scopes: ["svc:org:read", "svc:org:write"],
    });
    const before = await client.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    for (const change of [
      { allowed_cidrs: null },
      { rate_limit: { requests: 10_000_000, window_seconds: 1 } },
      { name: "renamed" },
    ]) {
      const error = await refusal(
        updateServiceAccountKey(readContext(await actor()), org.id, account.id, key.id, change),
      );
      expect(error, JSON.stringify(change)).toMatchObject({
        code: "scope_not_held",
        details: { scopes: ["svc:org:write"] },
      });
    }
    expect((await refusal(revokeServiceAccountKey(readContext(await actor()), org.id, account.id, key.id))).code).toBe(
      "scope_not_held",
    );
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toEqual(before);
  });

  it("lets a manager change and revoke a key within what it holds", async () => {
    const { org, actor } = await manager(["svc:org:read"]);
    const narrow = await createRole(client, "org", ["svc:org:read"]);
    const account = await newAccount(actor, org.id, [narrow.id]);
    const key = await createServiceAccountKey(readContext(await actor()), org.id, account.id, {
      ...restricted,
      scopes: ["svc:org:read"],
    });
    const changed = await updateServiceAccountKey(readContext(await actor()), org.id, account.id, key.id, {
      allowed_cidrs: null,
    });
    expect(changed.allowed_cidrs).toBeNull();
    expect((await revokeServiceAccountKey(readContext(await actor()), org.id, account.id, key.id)).is_active).toBe(
      false,
    );
  });
});

// Generated from the route registry: every route that changes, rolls or revokes one key (personal
// or a service account's), called as the REST handler calls it (declared access, then the
// operation), by managers holding any set of permissions. Whatever it holds, a key a manager could
// not issue is left exactly as it was — not loosened, not re-limited, not rolled, not revoked — and
// every refusal is one the route declares. New key routes are covered without anyone adding them.
const KEY_ROUTES = ROUTES.filter((r) => /\{key_id\}(\/roll)?$/.test(r.path) && r.method !== "GET");

async function callRoute(route: RestOperation, actor: Actor, params: Record<string, string>, body: unknown) {
  // Only the parameters the route's path names, as the REST handler takes them from the path.
  const named = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  const parsedParams = route.params ? route.params.parse(Object.fromEntries(named.map((k) => [k, params[k]]))) : {};
  authorizeOperation(route.access, actor, parsedParams, { write: true });
  return route.handler({
    ...readContext(actor),
    params: parsedParams,
    query: {},
    body: route.body ? route.body.parse(body) : {},
  } as never);
}

/** What a caller may send each key route to widen or end the key. */
const ATTACKS: Record<string, unknown[]> = {
  PATCH: [
    { allowed_cidrs: null, allowed_org_ids: null },
    { rate_limit: { requests: 10_000_000, window_seconds: 1 } },
    { name: "renamed" },
  ],
  POST: [{ grace_period_seconds: 604_800 }],
  DELETE: [undefined],
};

describe("no escalation on every key route (generated from the registry)", () => {
  it("finds the PATCH, roll and DELETE routes of personal and service-account keys", () => {
    const names = KEY_ROUTES.map((r) => `${r.method} ${r.path}`);
    for (const method of ["PATCH", "DELETE", "POST"])
      for (const owner of ["/api/admin/users/api-keys/", "/service-accounts/{user_id}/api-keys/"])
        expect(
          names.some((n) => n.startsWith(method) && n.includes(owner)),
          `${method} ${owner}`,
        ).toBe(true);
    for (const route of KEY_ROUTES) expect(ATTACKS[route.method], route.id).toBeDefined();
  });

  it("holds for any permissions a manager has and any scopes the key carries", async () => {
    const scenario = fc.record({
      held: fc.subarray(ORG_PERMISSIONS, { maxLength: 12 }),
      keyScopes: fc.subarray(ORG_PERMISSIONS, { minLength: 1, maxLength: 4 }),
    });
    let changedSome = false;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ held, keyScopes }) => {
        const { org, actor } = await manager(held);
        const role = await createRole(client, "org", keyScopes);
        const account = await newAccount(async () => cli, org.id, [role.id]);
        const granter = await actor();
        const mayIssue = keyScopes.every((p) => holds(granter, p, org.id));
        for (const route of KEY_ROUTES) {
          for (const body of ATTACKS[route.method]!) {
            const key = await createServiceAccountKey(readContext(cli), org.id, account.id, {
              name: "target",
              scopes: keyScopes,
              expires_at: IN_A_YEAR(),
              rate_limit: { requests: 600, window_seconds: 60 },
              allowed_org_ids: null,
              allowed_cidrs: ["10.0.0.0/8"],
            });
            const before = await client.apiKey.findUniqueOrThrow({ where: { id: key.id } });
            const keys = await client.apiKey.count({ where: { user_id: account.id } });
            const params = { org_id: org.id, user_id: account.id, key_id: key.id };
            const outcome = await callRoute(route, await actor(), params, body).then(
              () => null,
              (e: unknown) => refusalCode(e),
            );
            const after = await client.apiKey.findUniqueOrThrow({ where: { id: key.id } });
            const touched =
              JSON.stringify(after) !== JSON.stringify(before) ||
              (await client.apiKey.count({ where: { user_id: account.id } })) !== keys;
            const name = `${route.method} ${route.path} ${JSON.stringify(body)}`;
            if (outcome === null) {
              expect(mayIssue, `${name}: changed a key its caller could not issue`).toBe(true);
              changedSome = true;
            } else {
              expect(touched, `${name}: refused (${outcome}) but changed the key`).toBe(false);
              if (outcome !== "forbidden") expect(route.errors ?? [], name).toContain(outcome);
              if (!mayIssue) expect(["forbidden", "scope_not_held", "not_found"], name).toContain(outcome);
            }
            // Above the platform's ceiling, nobody but a sys_admin re-limits a key.
            if (route.method === "PATCH" && JSON.stringify(body).includes("10000000")) expect(outcome).not.toBeNull();
            await client.apiKey.updateMany({ where: { user_id: account.id }, data: { is_active: false } });
          }
        }
      }),
      {
        numRuns: 12,
        examples: [
          [{ held: ["svc:org:read"], keyScopes: ["svc:org:read"] }],
          [{ held: [], keyScopes: ["svc:org:read"] }],
        ],
      },
    );
    // Not vacuous: some manager held enough to change a key.
    expect(changedSome).toBe(true);
  }, 180_000);
});

function refusalCode(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (typeof code !== "string") throw e;
  return code;
}

// What an org-role attacker tries next, once the direct paths above are shut.
describe("an org admin widening or reviving a key by other paths", () => {
  const keyBody = {
    name: "k",
    scopes: ["svc:org:read"] as Permission[],
    expires_at: null,
    rate_limit: null,
    allowed_org_ids: null,
    allowed_cidrs: ["10.0.0.0/8"],
  };

  it("cannot send scopes or an expiry to any key PATCH, nor a rate limit to any roll", () => {
    const patches = KEY_ROUTES.filter((r) => r.method === "PATCH");
    const rolls = KEY_ROUTES.filter((r) => r.method === "POST");
    expect(patches.length).toBeGreaterThanOrEqual(2);
    for (const route of patches)
      for (const body of [{ scopes: ["svc:org:write"] }, { expires_at: null }, { is_active: true }])
        expect(route.body?.safeParse(body).success, `${route.id} ${JSON.stringify(body)}`).toBe(false);
    for (const route of rolls)
      expect(route.body?.safeParse({ rate_limit: { requests: 10_000_000, window_seconds: 1 } }).success).toBe(false);
  });

  it("does not reach another organization's key through an account of its own", async () => {
    const mine = await orgAdmin();
    const myAccount = await newAccount(mine.actor, mine.org.id, [await roleId(client, "org_member")]);
    const theirs = await orgAdmin();
    const theirAccount = await newAccount(theirs.actor, theirs.org.id, [await roleId(client, "org_member")]);
    const theirKey = await createServiceAccountKey(
      readContext(await theirs.actor()),
      theirs.org.id,
      theirAccount.id,
      keyBody,
    );
    const before = await client.apiKey.findUniqueOrThrow({ where: { id: theirKey.id } });
    const me = await mine.actor();
    for (const call of [
      () => updateServiceAccountKey(readContext(me), mine.org.id, myAccount.id, theirKey.id, { allowed_cidrs: null }),
      () => rollServiceAccountKey(readContext(me), mine.org.id, myAccount.id, theirKey.id, { grace_period_seconds: 0 }),
      () => revokeServiceAccountKey(readContext(me), mine.org.id, myAccount.id, theirKey.id),
      // Their account under my organization's path, too.
      () =>
        updateServiceAccountKey(readContext(me), mine.org.id, theirAccount.id, theirKey.id, { allowed_cidrs: null }),
    ])
      expect((await refusal(call())).code).toBe("not_found");
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: theirKey.id } })).toEqual(before);
    expect(await client.apiKey.count({ where: { user_id: theirAccount.id } })).toBe(1);
  });

  it("cannot revive a revoked key: a change leaves it revoked, a roll is 409, a restore brings none back", async () => {
    const { org, actor } = await orgAdmin();
    const account = await newAccount(actor, org.id, [await roleId(client, "org_member")]);
    const key = await createServiceAccountKey(readContext(await actor()), org.id, account.id, keyBody);
    await revokeServiceAccountKey(readContext(await actor()), org.id, account.id, key.id);
    const changed = await updateServiceAccountKey(readContext(await actor()), org.id, account.id, key.id, {
      allowed_cidrs: null,
      name: "again",
    });
    expect(changed.is_active).toBe(false);
    const roll = await refusal(
      rollServiceAccountKey(readContext(await actor()), org.id, account.id, key.id, { grace_period_seconds: 60 }),
    );
    expect(roll.code).toBe("conflict");
    const other = await createServiceAccountKey(readContext(await actor()), org.id, account.id, keyBody);
    await deleteServiceAccount(readContext(await actor()), org.id, account.id);
    await restoreUser(readContext(cli), account.id);
    expect(await client.apiKey.count({ where: { user_id: account.id, is_active: true } })).toBe(0);
    expect((await refusal(Promise.resolve().then(() => authenticateApiKey(other.raw_key)))).code).toBe(
      "api_key_revoked",
    );
  });
});
