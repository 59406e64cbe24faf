import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "@/lib/schemas/audit";
import { EventTable } from "./event-table";

// An audit row opens to what the event changed; one that changed nothing (a sign-in, a refused
// change) opens to the request's details only, and says so rather than offering changes.

const event = (
  id: string,
  action: string,
  changes: AuditEvent["changes"],
  outcome: AuditEvent["outcome"] = "success",
) =>
  ({
    id,
    occurred_at: "2026-03-10T14:20:00.000Z",
    actor: { user_id: null, username: null, auth: "session", key_prefix: null },
    action,
    target: { type: null, id: null, name: null },
    org_id: null,
    request_id: "req-1",
    ip: "192.0.2.1",
    user_agent: "test",
    changes,
    outcome,
  }) as unknown as AuditEvent;

const buttons = (events: AuditEvent[]) =>
  [...renderToStaticMarkup(createElement(EventTable, { events })).matchAll(/<button[^>]*>(.*?)<\/button>/g)].map(
    (match) =>
      (match[1] ?? "")
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim(),
  );

describe("the audit rows' disclosure", () => {
  it("offers the changes of an event that changed something", () => {
    const [button] = buttons([
      event("0190a000-0000-7000-8000-000000000001", "createApiKey", { name: { old: null, new: "ci" } }),
    ]);
    expect(button).toMatch(/^Show changes of API key created/);
  });

  it("offers no changes where nothing changed: a sign-in, a refused change", () => {
    expect(
      buttons([
        event("0190a000-0000-7000-8000-000000000002", "signIn", null),
        event("0190a000-0000-7000-8000-000000000003", "signIn", {}),
        event("0190a000-0000-7000-8000-000000000004", "deleteOrganization", null, "denied"),
      ]),
    ).toEqual([
      expect.stringMatching(/^Show details of Signed in/),
      expect.stringMatching(/^Show details of Signed in/),
      expect.stringMatching(/^Show details of Organization deleted/),
    ]);
  });
});
