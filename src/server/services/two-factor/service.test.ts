import { describe, expect, it } from "vitest";
import { totpCode } from "@/server/auth/totp";
import { refusal, sessionActor } from "@/test/actors";
import { TEST_ENCRYPTION_KEYS } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createUser, PASSWORD, seedRoles } from "@/test/fixtures";
import {
  confirmTwoFactorSetup,
  hasTwoFactor,
  myTwoFactor,
  startTwoFactorSetup,
  turnOffTwoFactor,
  spendSecondFactor,
} from "./service";
import { readContext } from "@/server/db/context";
import { dataLayer } from "@/server/db/data-layer";

process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
const { client } = await testDatabase();
await seedRoles(client);

const now = () => Date.now() / 1000;

async function withTwoFactor() {
  const user = await createUser(client);
  const actor = await sessionActor(client, user.id);
  const { secret } = await startTwoFactorSetup(readContext(actor));
  const { recovery_codes } = await confirmTwoFactorSetup(readContext(actor), { code: totpCode(secret, now()) });
  return { user, actor, secret, recovery_codes };
}

describe("two-factor setup", () => {
  it("stays off until a code of the new secret is confirmed, then answers ten recovery codes", async () => {
    const user = await createUser(client);
    const actor = await sessionActor(client, user.id);
    const { secret, otpauth_url } = await startTwoFactorSetup(readContext(actor));
    expect(otpauth_url).toContain(secret);
    expect(await hasTwoFactor(user.id, dataLayer("test"))).toBe(false);
    expect(
      (await refusal(confirmTwoFactorSetup(readContext(actor), { code: totpCode(secret, now() - 120) }))).code,
    ).toBe("validation_failed");
    const { recovery_codes } = await confirmTwoFactorSetup(readContext(actor), { code: totpCode(secret, now()) });
    expect(recovery_codes).toHaveLength(10);
    expect(await myTwoFactor(readContext(actor))).toEqual({ enabled: true, recovery_codes_left: 10, required: false });
    expect((await refusal(startTwoFactorSetup(readContext(actor)))).code).toBe("conflict");
  });

  it("stores the secret encrypted and the recovery codes hashed", async () => {
    const { user, secret, recovery_codes } = await withTwoFactor();
    const stored = JSON.stringify([
      await client.userTwoFactor.findUniqueOrThrow({ where: { user_id: user.id } }),
      await client.userRecoveryCode.findMany({ where: { user_id: user.id } }),
    ]);
    expect(stored).not.toContain(secret);
    for (const code of recovery_codes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace(/-/g, ""));
    }
  });
});

describe("second factor at sign-in", () => {
  it("takes a code once: the same code, or an older one, is refused afterwards", async () => {
    const { user, secret } = await withTwoFactor();
    // The confirmation used its step already: the next step's code is the first one left.
    const used = (await client.userTwoFactor.findUniqueOrThrow({ where: { user_id: user.id } }))
      .last_used_step as number;
    const next = totpCode(secret, (used + 1) * 30);
    expect(await spendSecondFactor(user.id, totpCode(secret, used * 30), dataLayer("test"))).toBe(false);
    expect(await spendSecondFactor(user.id, next, dataLayer("test"))).toBe(true);
    expect(await spendSecondFactor(user.id, next, dataLayer("test"))).toBe(false);
  });

  it("takes each recovery code once, typed in any case", async () => {
    const { user, actor, recovery_codes } = await withTwoFactor();
    const [first, second] = recovery_codes as [string, string];
    expect(await spendSecondFactor(user.id, first.toUpperCase(), dataLayer("test"))).toBe(true);
    expect(await spendSecondFactor(user.id, first, dataLayer("test"))).toBe(false);
    expect(await spendSecondFactor(user.id, second, dataLayer("test"))).toBe(true);
    expect((await myTwoFactor(readContext(actor))).recovery_codes_left).toBe(8);
    expect(await spendSecondFactor(user.id, "aaaa-bbbb-cccc-dddd", dataLayer("test"))).toBe(false);
  });

  it("takes no code of a user without two-factor, or one whose setup is pending", async () => {
    const user = await createUser(client);
    expect(await spendSecondFactor(user.id, "123456", dataLayer("test"))).toBe(false);
    const { secret } = await startTwoFactorSetup(readContext(await sessionActor(client, user.id)));
    expect(await spendSecondFactor(user.id, totpCode(secret, now()), dataLayer("test"))).toBe(false);
  });
});

describe("turning it off", () => {
  it("needs the password and a code, and then removes the secret and the codes", async () => {
    const { user, actor, recovery_codes } = await withTwoFactor();
    const [code] = recovery_codes as [string];
    const wrongPassword = await refusal(turnOffTwoFactor(readContext(actor), { password: "not the password", code }));
    expect(wrongPassword).toMatchObject({ code: "validation_failed", details: { errors: [{ path: "password" }] } });
    const wrongCode = await refusal(turnOffTwoFactor(readContext(actor), { password: PASSWORD, code: "000000" }));
    expect(wrongCode).toMatchObject({ code: "validation_failed", details: { errors: [{ path: "code" }] } });
    expect(await hasTwoFactor(user.id, dataLayer("test"))).toBe(true);
    expect(await turnOffTwoFactor(readContext(actor), { password: PASSWORD, code })).toMatchObject({ enabled: false });
    expect(await client.userTwoFactor.count({ where: { user_id: user.id } })).toBe(0);
    expect(await client.userRecoveryCode.count({ where: { user_id: user.id } })).toBe(0);
  });
});
