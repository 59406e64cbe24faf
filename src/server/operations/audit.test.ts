import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testDatabase } from "@/test/database";
import { createOrg, createSysAdmin, seedRoles } from "@/test/fixtures";
import { sessionActor } from "@/test/actors";
import { changesOf } from "@/server/services/audit/record";
import { OPERATION_GROUPS } from ".";
import { targetOf } from "./audit";
import { invoke } from "./invoke";
import { defineOperation, type AnyOperation } from "./operation";

// The audit trail's part of invoke(), in-process: a change and its event commit or fail together;
// targets and changes are read off the declarations and the unit of work's writes.

const { client } = await testDatabase();
await seedRoles(client);
const admin = await sessionActor(client, (await createSysAdmin(client)).id);
const raw = (params: object, body?: object) => ({ params, query: {}, body: () => body });

describe("a change and its event", () => {
  it("are one transaction: when the event cannot be written, the change is undone", async () => {
    const org = await createOrg(client);
    // An action longer than its column: the event's INSERT fails after the handler has written.
    const unrecordable = defineOperation({
      id: "x".repeat(101),
      method: "PATCH",
      path: "/api/v1/organizations/{org_id}",
      tag: "Organizations",
      summary: "test",
      access: { permission: "svc:org:write", org: "org_id" },
      params: z.strictObject({ org_id: z.uuid() }),
      response: z.unknown(),
      handler: ({ params, db }) =>
        db.organization.update({ where: { id: params.org_id }, data: { description: "never kept" } }),
    });
    await expect(invoke(unrecordable as AnyOperation, admin, raw({ org_id: org.id }))).rejects.toThrow();
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBeNull();
  });

  it("are written together, with the fields changed and their old values", async () => {
    const org = await createOrg(client);
    const before = await client.auditEvent.count();
    await invoke(
      OPERATION_GROUPS.organizations.update as AnyOperation,
      admin,
      raw({ org_id: org.id }, { description: "kept", display_name: "Shown" }),
    );
    expect(await client.auditEvent.count()).toBe(before + 1);
    const event = await client.auditEvent.findFirstOrThrow({ where: { target_id: org.id } });
    expect(event).toMatchObject({
      action: "updateOrganization",
      target_type: "organization",
      org_id: org.id,
      actor_auth: "session",
      outcome: "success",
    });
    expect(event.changes).toEqual({
      description: { old: null, new: "kept" },
      display_name: { old: null, new: "Shown" },
    });
  });

  it("leaves reads alone", async () => {
    const before = await client.auditEvent.count();
    await invoke(OPERATION_GROUPS.organizations.list as AnyOperation, admin, raw({}));
    expect(await client.auditEvent.count()).toBe(before);
  });
});

describe("targetOf", () => {
  const ops = OPERATION_GROUPS;
  it("names a created resource by its new id, anything else by the path's last parameter", () => {
    expect(targetOf(ops.apiKeys.create as AnyOperation, admin, {}, { id: "k1" })).toEqual({
      type: "api_key",
      id: "k1",
    });
    expect(
      targetOf(ops.centralPoints.update as AnyOperation, admin, { org_id: "o", central_point_id: "c" }, {}),
    ).toEqual({ type: "central_point", id: "c" });
    expect(targetOf(ops.organizations.updateSubscription as AnyOperation, admin, { org_id: "o" }, {})).toEqual({
      type: "organization",
      id: "o",
    });
    expect(targetOf(ops.account.signOutEverywhere as AnyOperation, admin, {}, {})).toEqual({
      type: "user",
      id: admin.userId,
    });
  });
});

describe("changesOf", () => {
  const write = (
    fields: string[],
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    values: Record<string, unknown> = {},
  ) => ({
    model: "User",
    operation: "update" as const,
    fields,
    values,
    before,
    after,
  });

  it("keeps a secret field's name and never its values", () => {
    const changes = changesOf(
      [
        write(
          ["password_hash", "display_name"],
          { id: "u", password_hash: "$argon2id$old", display_name: "a" },
          { id: "u", password_hash: "$argon2id$new", display_name: "b" },
        ),
      ],
      "u",
    );
    expect(changes).toEqual({ password_hash: { redacted: true }, display_name: { old: "a", new: "b" } });
    expect(JSON.stringify(changes)).not.toContain("argon2");
  });

  it("names a secret a create set even when its answer leaves the secret out", () => {
    const created = {
      ...write(["key_hash", "name"], null, { id: "k", name: "n" }, { key_hash: "abc123", name: "n" }),
      operation: "create" as const,
    };
    expect(changesOf([created], "k")).toEqual({ key_hash: { redacted: true }, name: { old: null, new: "n" } });
  });

  it("takes a new value from what was sent when the write's answer leaves the field out", () => {
    expect(changesOf([write(["email"], { id: "u", email: null }, { id: "u" }, { email: "e@x" })], "u")).toEqual({
      email: { old: null, new: "e@x" },
    });
  });

  it("leaves out fields set to what they were, and prefers the target's row", () => {
    const other = write(["name"], { id: "x", name: "p" }, { id: "x", name: "q" });
    const target = write(
      ["name", "email"],
      { id: "u", name: "same", email: null },
      { id: "u", name: "same", email: "e@x" },
    );
    expect(changesOf([other, target], "u")).toEqual({ email: { old: null, new: "e@x" } });
    expect(changesOf([other], "u")).toEqual({ name: { old: "p", new: "q" } });
    expect(changesOf([], null)).toBeNull();
  });
});
