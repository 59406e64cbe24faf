import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/server/operations";
import { isChange } from "@/server/operations/operation";
import {
  AUDIT_ACTIONS,
  auditAction,
  auditActionChoice,
  DOMAIN_FAILED_ACTION,
  DOMAIN_JOIN_ACTION,
  SSO_JOIN_ACTION,
  DOMAIN_RECORD_MISSING_ACTION,
  DOMAIN_VERIFIED_ACTION,
  IDLE_REVOKE_ACTION,
  SIGN_IN_ACTION,
} from "./audit-actions";
import { changeEventType } from "./event-types";

// Every operation that changes something leaves an audit event; each must read as what happened,
// under the event type its webhooks carry. Generated from the registry, so a new operation is held to it.

const changing = OPERATIONS.filter(isChange).map((operation) => operation.id);

describe("audit action names", () => {
  it("name every changing operation as `<resource>.<past verb>` with a label", () => {
    expect(changing.length).toBeGreaterThan(40);
    for (const id of [...changing, SIGN_IN_ACTION, IDLE_REVOKE_ACTION]) {
      const { type, label } = auditAction(id);
      expect(type, id).toMatch(/^[a-z0-9_]+\.[a-z_]+$/);
      expect(label, id).toMatch(/^[A-Z][A-Za-z0-9' -]+$/);
      expect(label, id).not.toBe(id);
    }
  });

  it("list every action the trail records, for the filters", () => {
    const ownActions = [
      SIGN_IN_ACTION,
      IDLE_REVOKE_ACTION,
      DOMAIN_VERIFIED_ACTION,
      DOMAIN_RECORD_MISSING_ACTION,
      DOMAIN_FAILED_ACTION,
      DOMAIN_JOIN_ACTION,
      SSO_JOIN_ACTION,
    ];
    expect([...AUDIT_ACTIONS].sort()).toEqual([...changing, ...ownActions].sort());
  });

  it("read a change by the event type its webhooks carry", () => {
    for (const id of changing) expect(auditAction(id).type, id).toBe(changeEventType(id));
  });

  it("read ids as people would", () => {
    expect(auditAction("createApiKey")).toEqual({ type: "api_key.created", label: "API key created" });
    expect(auditAction("rotateOAuthClientSecret")).toEqual({
      type: "oauth_client.secret_rotated",
      label: "OAuth client secret rotated",
    });
    expect(auditAction("deleteLlmConfig").label).toBe("LLM config deleted");
    expect(auditAction("turnOffTwoFactor").label).toBe("Two-factor turned off");
    expect(auditAction(SIGN_IN_ACTION)).toEqual({ type: "session.signed_in", label: "Signed in" });
    // An action it does not know is shown as it is, never dropped.
    expect(auditAction("somethingNew")).toEqual({ type: "somethingNew", label: "somethingNew" });
  });

  it("offer each action in the filters by a name of its own, in words, not by an operation id", () => {
    const choices = AUDIT_ACTIONS.map(auditActionChoice);
    expect(new Set(choices).size).toBe(AUDIT_ACTIONS.length);
    for (const [i, choice] of choices.entries()) {
      expect(choice, AUDIT_ACTIONS[i]).toMatch(/^[A-Z][A-Za-z0-9' -]+( \([a-z ]+\))?$/);
      expect(choice, AUDIT_ACTIONS[i]).toContain(auditAction(AUDIT_ACTIONS[i] as string).label);
    }
    expect(auditActionChoice("createApiKey")).toBe("API key created");
    expect(auditActionChoice("createServiceAccountKey")).toBe("API key created (service account)");
    expect(auditActionChoice("grantOrgRole")).toBe("Role granted (organization member)");
    expect(auditActionChoice("createOrgWebhookEndpoint")).toBe("Webhook endpoint created (organization)");
  });
});
