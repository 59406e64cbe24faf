import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { moment } from "@/lib/schemas/common";
import { DomainError } from "@/server/errors";
import { log } from "@/server/log";
import { NUL_AS_RECORDED } from "@/server/services/audit/record";
import { sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createUser } from "@/test/fixtures";
import { apiKeyOperations } from "./api-keys";
import { invoke } from "./invoke";
import { defineOperation, immutableAnswer } from "./operation";

// The answer's encode: what a handler returns goes out through the operation's response schema,
// whichever door asked.

const response = z.object({ id: z.string(), at: moment, ended_at: moment.nullable() });

const answering = (answer: () => unknown) =>
  defineOperation({
    id: "encodeProbe",
    method: "GET",
    path: null,
    tag: "Test",
    summary: "Answers what it is given",
    access: "public",
    response,
    handler: answer as () => z.output<typeof response>,
  });

const NO_INPUT = { params: {}, query: {}, body: () => undefined };

const { client } = await testDatabase();

describe("invoke's encode", () => {
  it("turns moments into ISO strings and leaves out what the schema does not declare", async () => {
    const at = new Date("2026-01-15T09:30:00.000Z");
    const encoded = await invoke(
      answering(() => ({ id: "a", at, ended_at: null, secret_hash: "x" })),
      null,
      NO_INPUT,
    );
    expect(encoded).toEqual({ id: "a", at: "2026-01-15T09:30:00.000Z", ended_at: null });
  });

  it("answers an internal error, and logs what did not fit, for an answer outside its schema", async () => {
    const logged = vi.spyOn(log, "error").mockImplementation(() => undefined);
    const misfit = invoke(
      answering(() => ({ id: "a", at: "2026-01-15T09:30:00.000Z", ended_at: null })),
      null,
      NO_INPUT,
    );
    await expect(misfit).rejects.toBeInstanceOf(DomainError);
    await expect(misfit).rejects.toMatchObject({ code: "internal_error" });
    expect(logged).toHaveBeenCalledWith(
      "answer outside its schema",
      expect.objectContaining({ operation: "encodeProbe" }),
    );
    logged.mockRestore();
  });

  it("does not commit a change whose answer is outside its schema", async () => {
    const logged = vi.spyOn(log, "error").mockImplementation(() => undefined);
    const change = defineOperation({
      id: "createOrganization",
      method: "POST",
      path: null,
      tag: "Test",
      summary: "Creates an organization and answers beside its schema",
      access: "public",
      response,
      handler: async ({ db }) => {
        await db.organization.create({ data: { name: "encode-misfit" } });
        return { id: "a", at: "not a Date", ended_at: null } as never;
      },
    });
    await expect(invoke(change, null, NO_INPUT)).rejects.toMatchObject({ code: "internal_error" });
    expect(await client.organization.count({ where: { name: "encode-misfit" } })).toBe(0);
    logged.mockRestore();
  });
});

describe("invoke's encode of an answer that never changes", () => {
  const at = new Date("2026-01-15T09:30:00.000Z");

  it("encodes a frozen answer once, and hands out that encoding, frozen, again", async () => {
    const kept = immutableAnswer({ id: "a", at, ended_at: null });
    const probe = answering(() => kept);
    const first = await invoke(probe, null, NO_INPUT);
    expect(first).toEqual({ id: "a", at: "2026-01-15T09:30:00.000Z", ended_at: null });
    expect(Object.isFrozen(first)).toBe(true);
    expect(await invoke(probe, null, NO_INPUT)).toBe(first);
  });

  it("encodes an answer made on each call anew", async () => {
    const probe = answering(() => ({ id: "a", at, ended_at: null }));
    const first = await invoke(probe, null, NO_INPUT);
    const second = await invoke(probe, null, NO_INPUT);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(Object.isFrozen(second)).toBe(false);
  });

  it("encodes a kept answer by the schema of the operation that answers it", async () => {
    const kept = immutableAnswer({ id: "a", at, ended_at: null });
    await invoke(
      answering(() => kept),
      null,
      NO_INPUT,
    );
    const narrower = defineOperation({
      id: "narrowProbe",
      method: "GET",
      path: null,
      tag: "Test",
      summary: "Answers fewer fields",
      access: "public",
      response: z.object({ id: z.string() }),
      handler: () => kept,
    });
    expect(await invoke(narrower, null, NO_INPUT)).toEqual({ id: "a" });
  });
});

describe("immutableAnswer", () => {
  it("freezes an answer all through", () => {
    const answer = immutableAnswer({ user: { id: "u" }, permissions: ["a"], organizations: [{ permissions: ["b"] }] });
    expect(Object.isFrozen(answer.user)).toBe(true);
    expect(Object.isFrozen(answer.organizations[0]?.permissions)).toBe(true);
    expect(() => (answer.permissions as string[]).push("c")).toThrow(TypeError);
    expect(immutableAnswer("text")).toBe("text");
  });
});

describe("invoke's refusals", () => {
  it("records a refusal whose input holds NUL, the NUL written as ␀", async () => {
    // NUL is valid JSON and valid percent-encoding, but PostgreSQL's text refuses it: the event
    // must still be written, or a refusal that probes with it leaves no trace.
    const user = await createUser(client);
    const actor = await sessionActor(client, user.id);
    const requestId = `nul-${process.pid}`;
    const refused = invoke(
      apiKeyOperations.revokeAll,
      actor,
      { params: { user_id: "a\u0000b" }, query: {}, body: () => undefined },
      { request: { requestId, ip: "127.0.0.1", userAgent: "probe\u0000/1.0" } },
    );
    await expect(refused).rejects.toMatchObject({ code: "forbidden" });
    const [event] = await client.auditEvent.findMany({ where: { request_id: requestId } });
    expect(event).toMatchObject({
      action: "revokeAllApiKeys",
      outcome: "denied",
      actor_user_id: user.id,
      target_id: `a${NUL_AS_RECORDED}b`,
      user_agent: `probe${NUL_AS_RECORDED}/1.0`,
    });
  });
});
