import "server-only";
import type { Context } from "@/server/db/context";
import type { SessionActor } from "@/server/auth/actor";
import { isSysAdmin } from "@/server/auth/authorize";
import { requireResetOfAnother } from "@/server/auth/escalation";
import { loadGrants } from "@/server/auth/grants";
import { verifyPassword } from "@/server/auth/passwords";
import { signInThrottle, TooManySignInAttempts } from "@/server/auth/sign-in-throttle";
import {
  looksLikeRecoveryCode,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpUri,
} from "@/server/auth/totp";
import { keyRing } from "@/server/crypto/key-ring";
import { decrypt, encrypt } from "@/server/crypto/secret-box";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { withAccessChange } from "@/server/services/access-changes";
import { requireOutranksUser } from "@/server/services/users/service";
import {
  REQUIRE_MFA_SETTING,
  type ConfirmTwoFactorInput,
  type TurnOffTwoFactorInput,
  type TwoFactorStatus,
} from "@/lib/schemas/two-factor";

// Two-factor authentication (TOTP) of console sign-in. The secret is encrypted with the key ring,
// bound to its user's row; recovery codes are stored as SHA-256 and each counts once. A code is
// accepted only for a time step later than the last one accepted (stored per user), so a code seen
// over a shoulder cannot be used again. Turning it on or off, or a reset, is announced like a change
// of access: whether a sys_admin's session is held to setting it up follows at once.

type Db = Pick<DataLayer, "userTwoFactor" | "userRecoveryCode" | "platformSetting">;

const secretPlace = (userId: string) => `user_two_factor:${userId}`;

async function requireSetting(db: Pick<DataLayer, "platformSetting">): Promise<boolean> {
  return (
    (await db.platformSetting.findUnique({ where: { key: REQUIRE_MFA_SETTING }, select: { value: true } }))?.value ===
    true
  );
}

/** Whether the user has two-factor turned on (a setup not yet confirmed does not count). */
export async function hasTwoFactor(userId: string, db: Db): Promise<boolean> {
  return (await db.userTwoFactor.count({ where: { user_id: userId, enabled_at: { not: null } } })) > 0;
}

/**
 * Whether the platform requires two-factor of this user and the user has none: a sys_admin under
 * auth.require_mfa_for_sys_admins, whose session is then good only for setting it up.
 */
export async function mustSetUpTwoFactor(db: Db, userId: string, sysAdmin: boolean): Promise<boolean> {
  if (!sysAdmin) return false;
  return (await requireSetting(db)) && !(await hasTwoFactor(userId, db));
}

/**
 * Checks a code of the user's second factor and uses it up: a TOTP code (its time step then and
 * every earlier one are spent) or an unused recovery code. False when it is neither.
 */
export async function spendSecondFactor(userId: string, code: string, db: Db): Promise<boolean> {
  const row = await db.userTwoFactor.findUnique({ where: { user_id: userId } });
  if (!row?.enabled_at) return false;
  if (looksLikeRecoveryCode(code)) {
    const used = await db.userRecoveryCode.updateMany({
      where: { user_id: userId, code_hash: recoveryCodeHash(code), used_at: null },
      data: { used_at: new Date() },
    });
    return used.count === 1;
  }
  const step = matchTotp(
    decrypt(keyRing(), row.secret_encrypted, secretPlace(userId)),
    code.trim(),
    row.last_used_step,
  );
  if (step === null) return false;
  // Compare-and-set: of two sign-ins racing with the same code, one wins.
  const taken = await db.userTwoFactor.updateMany({
    where: { user_id: userId, OR: [{ last_used_step: null }, { last_used_step: { lt: step } }] },
    data: { last_used_step: step },
  });
  return taken.count === 1;
}

async function statusOf(db: Db, userId: string, sysAdmin: boolean): Promise<TwoFactorStatus> {
  const enabled = await hasTwoFactor(userId, db);
  return {
    enabled,
    recovery_codes_left: enabled ? await db.userRecoveryCode.count({ where: { user_id: userId, used_at: null } }) : 0,
    required: sysAdmin && (await requireSetting(db)),
  };
}

/** The signed-in user's own two-factor state. */
export const myTwoFactor = (ctx: Context<SessionActor>): Promise<TwoFactorStatus> =>
  statusOf(ctx.db, ctx.actor.userId, isSysAdmin(ctx.actor));

/** Another user's two-factor state (whether it is on; nothing of the secret). */
export async function userTwoFactor(ctx: Context, userId: string): Promise<TwoFactorStatus> {
  const { db } = ctx;
  if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound("user");
  return statusOf(ctx.db, userId, (await loadGrants(db, userId)).isSysAdmin);
}

const alreadyOn = () => new DomainError("conflict", "Two-factor authentication is already on: turn it off first.");

/** A new secret for the signed-in user, pending until a code of it is confirmed; the secret is answered this once. */
export async function startTwoFactorSetup(
  ctx: Context<SessionActor>,
): Promise<{ secret: string; otpauth_url: string }> {
  const { db } = ctx;
  const secret = newTotpSecret();
  const secret_encrypted = encrypt(keyRing(), secret, secretPlace(ctx.actor.userId));
  // Replaces a pending setup, never one that is on.
  const replaced = await db.userTwoFactor.updateMany({
    where: { user_id: ctx.actor.userId, enabled_at: null },
    data: { secret_encrypted, last_used_step: null },
  });
  if (replaced.count === 0) {
    if (await hasTwoFactor(ctx.actor.userId, db)) throw alreadyOn();
    await db.userTwoFactor.create({ data: { user_id: ctx.actor.userId, secret_encrypted } });
  }
  return { secret, otpauth_url: totpUri(secret, ctx.actor.username) };
}

/** Turns two-factor on with a code of the pending secret; answers the recovery codes, this once. */
export async function confirmTwoFactorSetup(
  ctx: Context<SessionActor>,
  input: ConfirmTwoFactorInput,
): Promise<{ recovery_codes: string[] }> {
  const { db } = ctx;
  const row = await db.userTwoFactor.findUnique({ where: { user_id: ctx.actor.userId } });
  if (row?.enabled_at) throw alreadyOn();
  if (!row) throw new DomainError("conflict", "Start setting up two-factor authentication first.");
  const step = matchTotp(decrypt(keyRing(), row.secret_encrypted, secretPlace(ctx.actor.userId)), input.code, null);
  if (step === null)
    throw validationFailed([{ path: "code", message: "is not the current code of your authenticator app" }]);
  const codes = newRecoveryCodes();
  return withAccessChange(db, async (tx) => {
    const confirmed = await tx.userTwoFactor.updateMany({
      where: { user_id: ctx.actor.userId, enabled_at: null, secret_encrypted: row.secret_encrypted },
      data: { enabled_at: new Date(), last_used_step: step },
    });
    if (confirmed.count !== 1) throw new DomainError("conflict", "The setup changed meanwhile: start again.");
    await tx.userRecoveryCode.deleteMany({ where: { user_id: ctx.actor.userId } });
    await tx.userRecoveryCode.createMany({
      data: codes.map((code) => ({ user_id: ctx.actor.userId, code_hash: recoveryCodeHash(code) })),
    });
    return { result: { recovery_codes: codes }, event: { userId: ctx.actor.userId } };
  });
}

async function removeTwoFactor(db: DataLayer, userId: string): Promise<void> {
  await withAccessChange(db, async (tx) => {
    await tx.userRecoveryCode.deleteMany({ where: { user_id: userId } });
    await tx.userTwoFactor.deleteMany({ where: { user_id: userId } });
    return { result: undefined, event: { userId } };
  });
}

/**
 * Turns the signed-in user's two-factor off: needs the password (when the user has one) and a code.
 * Wrong ones are throttled like sign-ins, keyed to the user (a stolen session must not become a
 * password-guessing oracle).
 */
export async function turnOffTwoFactor(
  ctx: Context<SessionActor>,
  input: TurnOffTwoFactorInput,
): Promise<TwoFactorStatus> {
  const { db } = ctx;
  const user = await db.user.findUniqueOrThrow({
    where: { id: ctx.actor.userId },
    select: { username: true, password_hash: true },
  });
  if (!(await hasTwoFactor(ctx.actor.userId, db)))
    throw new DomainError("conflict", "Two-factor authentication is not on.");
  const throttleKey = `user:${ctx.actor.userId}`;
  try {
    await signInThrottle.check(user.username, throttleKey, "code");
  } catch (error) {
    if (error instanceof TooManySignInAttempts) {
      throw new DomainError("rate_limited", error.message, { retry_after_seconds: error.retryAfterSeconds });
    }
    throw error;
  }
  const refuse = async (path: string, message: string) => {
    await signInThrottle.fail(user.username, throttleKey, "code");
    return validationFailed([{ path, message }]);
  };
  if (user.password_hash !== null && !(input.password && (await verifyPassword(user.password_hash, input.password)))) {
    throw await refuse("password", "is not your password");
  }
  if (!(await spendSecondFactor(ctx.actor.userId, input.code, db))) throw await refuse("code", "is not a valid code");
  await removeTwoFactor(db, ctx.actor.userId);
  return myTwoFactor(ctx);
}

/**
 * A sys_admin (or a user manager who outranks the user: the rule of credentials) turns another
 * user's two-factor off, for one who lost their device and recovery codes. One's own goes through
 * "Turn off", which asks for the password and a code.
 */
export async function resetTwoFactor(ctx: Context, userId: string): Promise<TwoFactorStatus> {
  const { db } = ctx;
  if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound("user");
  requireResetOfAnother(ctx.actor, userId);
  await requireOutranksUser(ctx, userId);
  await removeTwoFactor(db, userId);
  return userTwoFactor(ctx, userId);
}
