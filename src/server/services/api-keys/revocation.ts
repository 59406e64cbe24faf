import "server-only";
import type { Context } from "@/server/db/context";
import { NO_REQUEST, recordChange } from "@/server/services/audit/record";
import { systemActor } from "@/server/auth/actor";
import { hashKey, isWellFormedKey } from "@/server/auth/api-key-format";
import { notFound } from "@/server/errors";
import { combinePolicy } from "@/lib/key-policies";
import { IDLE_REVOKE_ACTION } from "@/lib/audit-actions";
import { orgPolicyValues, platformKeyPolicy } from "./policy";
import { emitEvent } from "@/server/services/webhooks/events";
import { DAY_MS } from "./rows";
import { revokeKeys } from "./service";

// Keys ended other than one at a time by their owner: reported as leaked, unused for too long (the
// maintenance job), or all of a user's at once. Each key ended is an audit event of its own, so a
// key's history shows why it stopped.

/** One event per key revoked, in the caller's transaction when there is one. */
async function recordRevocations(
  ctx: Context,
  ids: readonly string[],
  action: string,
  {
    eventType,
    orgOf = () => null,
    alsoEmit,
  }: {
    eventType?: string;
    orgOf?: (id: string) => string | null;
    /** A system event about the key, written in the same transaction as its audit event. */
    alsoEmit?: (tx: Context, id: string) => Promise<unknown>;
  } = {},
): Promise<void> {
  await ctx.transaction(async (tx) => {
    for (const id of ids) {
      await recordChange(tx, {
        actor: tx.actor,
        action,
        outcome: "success",
        target: { type: "api_key", id },
        orgId: orgOf(id),
        request: NO_REQUEST,
        eventType,
      });
      await alsoEmit?.(tx, id);
    }
  });
}

/**
 * Raw keys reported as exposed (by anyone: holding a key is enough to end it): every usable one
 * among them is revoked. The answer says how many values came and nothing else, whatever they were.
 */
export async function revokeLeakedKeys(ctx: Context, raws: readonly string[]): Promise<{ received: number }> {
  const hashes = [
    ...new Set(
      raws
        .map((raw) => raw.trim())
        .filter(isWellFormedKey)
        .map(hashKey),
    ),
  ];
  if (hashes.length > 0) {
    const { db } = ctx;
    const now = new Date();
    const usable = await db.apiKey.findMany({
      where: { key_hash: { in: hashes }, is_active: true, OR: [{ expires_at: null }, { expires_at: { gt: now } }] },
      select: { id: true },
    });
    const revoked = await revokeKeys(
      ctx,
      usable.map((k) => k.id),
    );
    await recordRevocations(ctx, revoked, "revokeApiKey", { eventType: "api_key.leaked" });
  }
  return { received: raws.length };
}

/**
 * Revokes every active key of a user or service account at once (in every process), one audit
 * event per key. Answers how many it revoked.
 */
export async function revokeAllApiKeys(ctx: Context, userId: string): Promise<{ revoked: number }> {
  const db = ctx.includingDeleted();
  if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound("user");
  const active = await db.apiKey.findMany({ where: { user_id: userId, is_active: true }, select: { id: true } });
  const revoked = await revokeKeys(
    ctx,
    active.map((k) => k.id),
  );
  await recordRevocations(ctx, revoked, "revokeApiKey");
  return { revoked: revoked.length };
}

export const IDLE_REVOKER = systemActor("idle-key-revocation");

/**
 * The maintenance job's work: revokes every active key unused — since its last use, or its creation
 * when never used — for `api_keys.idle_revoke_days` as of `now` (a service account's key: its
 * organization's value where stricter). One audit event (`revokeIdleApiKey`) per key. Answers the
 * ids of the keys revoked, for whoever announces them (the `api_key.idle_revoked` event).
 */
export async function revokeIdleKeys(
  ctx: Context,
  { now = new Date() }: { now?: Date } = {},
): Promise<{ revoked: string[] }> {
  const { db } = ctx;
  const platform = await platformKeyPolicy(db);
  const byOrg = await orgPolicyValues(db);
  const orgDays = [...byOrg.values()].map((values) => combinePolicy({}, values).idle_revoke_days);
  // The shortest idle period anywhere bounds what is worth reading; each key is then held to its own.
  const shortest = [platform.idle_revoke_days, ...orgDays].filter((d): d is number => d !== null);
  if (shortest.length === 0) return { revoked: [] };
  const cutoff = new Date(now.getTime() - Math.min(...shortest) * DAY_MS);
  const candidates = await db.apiKey.findMany({
    where: {
      is_active: true,
      OR: [{ last_used_at: { lt: cutoff } }, { last_used_at: null, created_at: { lt: cutoff } }],
    },
    select: {
      id: true,
      key_prefix: true,
      user_id: true,
      name: true,
      expires_at: true,
      last_used_at: true,
      created_at: true,
      user: { select: { kind: true, memberships: { select: { org_id: true } } } },
    },
  });
  const orgOf = new Map<string, string | null>();
  const idle = candidates.filter((key) => {
    const orgId = key.user.kind === "service" ? (key.user.memberships[0]?.org_id ?? null) : null;
    orgOf.set(key.id, orgId);
    const orgValues = orgId ? byOrg.get(orgId) : undefined;
    const days = orgValues
      ? combinePolicy({ "api_keys.idle_revoke_days": platform.idle_revoke_days }, orgValues).idle_revoke_days
      : platform.idle_revoke_days;
    if (days === null) return false;
    const lastSeen = key.last_used_at ?? key.created_at;
    return lastSeen.getTime() <= now.getTime() - days * DAY_MS;
  });
  const revoked = await revokeKeys(
    ctx,
    idle.map((k) => k.id),
  );
  const subjects = new Map(idle.map((key) => [key.id, key]));
  await recordRevocations(ctx, revoked, IDLE_REVOKE_ACTION, {
    orgOf: (id) => orgOf.get(id) ?? null,
    alsoEmit: (tx, id) => {
      const key = subjects.get(id)!;
      return emitEvent(tx, "api_key.idle_revoked", orgOf.get(id) ?? null, {
        api_key: {
          id,
          key_prefix: key.key_prefix,
          user_id: key.user_id,
          name: key.name,
          expires_at: key.expires_at?.toISOString() ?? null,
        },
      });
    },
  });
  return { revoked };
}
