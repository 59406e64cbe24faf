import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SessionActor } from "@/server/auth/actor";
import { authorizeOperation } from "@/server/auth/authorize";
import { DomainError } from "@/server/errors";
import { ROUTES } from "@/server/rest/registry";
import { OPERATIONS } from ".";
import { isChange } from "./operation";
import { CHANGE_EVENT_TYPES, changeEventType, EVENT_TYPE_CATALOG } from "@/lib/event-types";

// The contracts every operation keeps, checked on the declarations themselves, so a new operation
// is held to them without anyone remembering to.

const shapeOf = (schema: z.ZodType | undefined): Record<string, unknown> =>
  schema instanceof z.ZodObject ? (schema.shape as Record<string, unknown>) : {};

describe("operation declarations", () => {
  it("name each change's webhook event type `<resource>.<past verb>` in the catalog, and nothing else", () => {
    const changes = OPERATIONS.filter(isChange).map((o) => o.id);
    for (const id of changes) expect(changeEventType(id), `${id} has an event type`).toMatch(/^[a-z_]+\.[a-z_]+$/);
    expect(Object.keys(CHANGE_EVENT_TYPES).sort()).toEqual([...changes].sort());
    const types = EVENT_TYPE_CATALOG.map((e) => e.type);
    expect(new Set(types).size).toBe(types.length);
  });

  it("have unique ids", () => {
    const ids = OPERATIONS.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // Views computed whole from the catalog or the settings tiers, not lists of stored records; a
  // key's usage is a bounded range of hourly counts (at most 90 days).
  // The webhook event types are the catalog's, listed whole (section 14: no paging).
  const VIEWS = [
    "listPermissions",
    "effectiveOrgSettings",
    "effectiveInstanceConfig",
    "getApiKeyUsage",
    "listWebhookEventTypes",
  ];

  it("answer every list as { data, next_cursor }, paged with limit and cursor", () => {
    const lists = ROUTES.filter((r) => r.method === "GET" && "data" in shapeOf(r.response) && !VIEWS.includes(r.id));
    expect(lists.length).toBeGreaterThanOrEqual(15);
    for (const route of lists) {
      expect(Object.keys(shapeOf(route.response)).sort(), route.id).toEqual(["data", "next_cursor"]);
      expect(Object.keys(shapeOf(route.query)), route.id).toEqual(expect.arrayContaining(["limit", "cursor"]));
    }
  });

  it("let sys_admins read and restore whatever a delete soft-deletes", () => {
    const softDeletes = ROUTES.filter((r) => r.method === "DELETE" && /\(soft\)/.test(r.summary));
    expect(softDeletes.length).toBeGreaterThanOrEqual(10);
    for (const remove of softDeletes) {
      const restore = ROUTES.find((r) => r.method === "POST" && r.path === `${remove.path}/restore`);
      expect(restore, `${remove.id} has a restore`).toBeDefined();
      expect(typeof restore?.access === "object" && restore.access.sysAdmin, `${restore?.id} is for sys_admins`).toBe(
        true,
      );
      const read = ROUTES.find((r) => r.method === "GET" && r.path === remove.path);
      expect(Object.keys(shapeOf(read?.query)), `${read?.id} takes include_deleted`).toContain("include_deleted");
      const list = ROUTES.find((r) => r.method === "GET" && r.path === remove.path.replace(/\/\{[a-z_]+\}$/, ""));
      if (list)
        expect(Object.keys(shapeOf(list.query)), `${list.id} takes include_deleted`).toContain("include_deleted");
    }
  });

  it("limit calls per client address only where no key is taken, so a key's RateLimit fields never meet them", () => {
    const limited = OPERATIONS.filter((o) => o.addressLimit);
    expect(limited.map((o) => o.id)).toContain("revokeLeakedApiKeys");
    for (const operation of limited) expect(["public", "session"], operation.id).toContain(operation.access);
  });

  it("create with 201 and a Location", () => {
    for (const route of ROUTES.filter((r) => r.status === 201 && r.id !== "appendMessages")) {
      expect(route.created, `${route.id} names its new resource`).toBeDefined();
    }
  });

  it("declare permissions only in the operations: route files and the tRPC layer hold none", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory()
          ? files(full)
          : /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".test.ts")
            ? [full]
            : [];
      });
    for (const file of [...files("src/app/api"), ...files("src/server/trpc")]) {
      expect(readFileSync(file, "utf8"), file).not.toMatch(/["'`]svc:[a-z_:]+["'`]/);
    }
  });

  it("refuse a session held to setting up two-factor, but for the few that set it up or sign out", () => {
    const held: SessionActor = {
      kind: "session",
      userId: "0190a000-0000-7000-8000-000000000001",
      username: "held",
      displayName: null,
      mustSetUpTwoFactor: true,
      grants: { isSysAdmin: true, global: new Set(), byOrg: new Map(), memberships: new Map(), inactive: new Set() },
    };
    const open: string[] = [];
    for (const operation of OPERATIONS.filter((o) => o.access !== "public" && o.access !== "metrics")) {
      const params =
        typeof operation.access === "object" && operation.access.org
          ? { [operation.access.org]: "0190a000-0000-7000-8000-000000000002" }
          : {};
      for (const console of [false, true]) {
        let refusal: unknown = null;
        try {
          authorizeOperation(operation.access, held, params, {
            console,
            duringTwoFactorSetup: operation.duringTwoFactorSetup,
          });
        } catch (error) {
          refusal = error;
        }
        if (operation.duringTwoFactorSetup) expect(refusal, operation.id).toBeNull();
        else expect(refusal instanceof DomainError && refusal.code === "forbidden", operation.id).toBe(true);
      }
      if (operation.duringTwoFactorSetup) open.push(operation.id);
    }
    expect(open.sort()).toEqual(["confirmTwoFactor", "getMyTwoFactor", "setUpTwoFactor", "signOutEverywhere"]);
  });
});
