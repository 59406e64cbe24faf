import { z } from "zod";
import { LENGTH, id, pageQuery, moment, text, timestamp } from "./common";

// The audit trail: one event per change, sign-in or refused authorization.

const AUDIT_ACTOR_AUTHS = ["session", "api_key", "cli", "system", "scim"] as const;
const AUDIT_OUTCOMES = ["success", "denied"] as const;

/**
 * Fields whose values never enter the trail, whatever table they are in: a change to one is
 * recorded by its name only (`{ "redacted": true }`).
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  "password",
  "password_hash",
  "key_hash",
  "raw_key",
  "api_key",
  "client_secret",
  "client_secret_hash",
  "token_hash",
  "secret",
  "token",
  "token_hash",
  "totp_secret",
  "recovery_codes",
  "secret_encrypted",
  "previous_secret_encrypted",
  "oidc_client_secret_encrypted",
]);

const auditChange = z.union([
  z.object({ old: z.unknown(), new: z.unknown() }),
  z.object({ redacted: z.literal(true) }),
]);

export const auditEventSchema = z.object({
  id: z.uuid(),
  occurred_at: moment,
  actor: z.object({
    user_id: z.uuid().nullable(),
    username: text().nullable().describe("The user's current username; null when the user is gone or there is none."),
    auth: z.enum(AUDIT_ACTOR_AUTHS),
    key_prefix: text(16).nullable(),
  }),
  action: text(100).describe(
    "The operation id (e.g. `createApiKey`), `signIn`, or `revokeIdleApiKey` (the maintenance job).",
  ),
  target: z.object({
    type: text(LENGTH.SHORT).nullable(),
    id: text().nullable(),
    name: text()
      .nullable()
      .describe("The target's name (a user's username) as it is now, deleted ones' too; null when it has none."),
  }),
  org_id: z.uuid().nullable(),
  request_id: text(128).nullable(),
  ip: text(64).nullable(),
  user_agent: text().nullable(),
  changes: z
    .record(text(), auditChange)
    .nullable()
    .describe("Changed fields with their old and new values; secret fields by name only."),
  outcome: z.enum(AUDIT_OUTCOMES),
});
export type AuditEvent = z.input<typeof auditEventSchema>;

export const listAuditEventsQuery = pageQuery.extend({
  action: text(100).min(1).optional(),
  actor_user_id: id.optional(),
  actor_username: text(LENGTH.STANDARD)
    .min(1)
    .optional()
    .describe("Events by the user with this username (case-insensitive), deleted users' too."),
  target_id: text().min(1).optional(),
  since: timestamp.optional().describe("Events at or after this moment."),
  until: timestamp.optional().describe("Events before this moment."),
});
export type ListAuditEventsQuery = z.output<typeof listAuditEventsQuery>;

export const orgAuditParams = z.strictObject({ org_id: id });
