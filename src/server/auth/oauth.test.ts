import { describe, expect, it } from "vitest";
import { testDatabase } from "@/test/database";
import { createUser, seedRoles } from "@/test/fixtures";
import { linkedUserId, linkExternalSignIn, verifiedGitHubEmail } from "./oauth";

// How an external sign-in reaches one of our users (the HTTP round trip through a real OpenID
// provider is in rest/oidc-sign-in.http.test.ts).

const { client } = await testDatabase();
await seedRoles(client);

let n = 0;
const id = () => `ext-${process.pid}-${++n}`;

async function userWithEmail(email: string) {
  const user = await createUser(client);
  return client.user.update({ where: { id: user.id }, data: { email } });
}

describe("linkExternalSignIn", () => {
  it("links a first sign-in to the user with that verified email, case-insensitively, then follows the link", async () => {
    const user = await userWithEmail(`grace${n}@example.test`);
    const sub = id();
    const profile = { email: user.email?.toUpperCase(), email_verified: true };
    expect(await linkExternalSignIn({ provider: "google", providerUserId: sub, profile })).toBe(user.id);
    expect(await client.userOauthIdentity.findMany({ where: { user_id: user.id } })).toEqual([
      expect.objectContaining({ provider: "google", provider_user_id: sub }),
    ]);
    expect(await linkExternalSignIn({ provider: "google", providerUserId: sub, profile: {} })).toBe(user.id);
    expect(await linkedUserId("google", sub)).toBe(user.id);
  });

  it("stores the generic OpenID Connect provider as oauth2", async () => {
    const user = await userWithEmail(`oidc${n}@example.test`);
    const sub = id();
    await linkExternalSignIn({
      provider: "oidc",
      providerUserId: sub,
      profile: { email: user.email, email_verified: true },
    });
    expect((await client.userOauthIdentity.findFirstOrThrow({ where: { provider_user_id: sub } })).provider).toBe(
      "oauth2",
    );
  });

  it("refuses an unverified email, an unknown email and an unknown provider, linking nothing", async () => {
    const user = await userWithEmail(`hopper${n}@example.test`);
    const before = await client.userOauthIdentity.count();
    expect(
      await linkExternalSignIn({
        provider: "github",
        providerUserId: id(),
        profile: { email: user.email, email_verified: false },
      }),
    ).toBeNull();
    expect(
      await linkExternalSignIn({ provider: "github", providerUserId: id(), profile: { email: user.email } }),
    ).toBeNull();
    expect(
      await linkExternalSignIn({
        provider: "github",
        providerUserId: id(),
        profile: { email: "nobody@example.test", email_verified: true },
      }),
    ).toBeNull();
    expect(
      await linkExternalSignIn({
        provider: "twitter",
        providerUserId: id(),
        profile: { email: user.email, email_verified: true },
      }),
    ).toBeNull();
    expect(await client.userOauthIdentity.count()).toBe(before);
  });

  it("does not link to a deleted user, and refuses a link whose user was deleted", async () => {
    const user = await userWithEmail(`gone${n}@example.test`);
    const sub = id();
    await linkExternalSignIn({
      provider: "google",
      providerUserId: sub,
      profile: { email: user.email, email_verified: true },
    });
    await client.user.update({ where: { id: user.id }, data: { is_deleted: true } });
    expect(await linkExternalSignIn({ provider: "google", providerUserId: sub, profile: {} })).toBeNull();
    expect(await linkedUserId("google", sub)).toBeNull();
    expect(
      await linkExternalSignIn({
        provider: "google",
        providerUserId: id(),
        profile: { email: user.email, email_verified: true },
      }),
    ).toBeNull();
  });

  it("creates a user without roles only when configured to, from a verified email", async () => {
    const sub = id();
    const profile = {
      email: `New.Person${n}@example.test`,
      email_verified: true,
      name: "New Person",
      preferred_username: "new person!",
    };
    expect(
      await linkExternalSignIn({ provider: "oidc", providerUserId: sub, profile }, { autoCreate: false }),
    ).toBeNull();
    const userId = await linkExternalSignIn({ provider: "oidc", providerUserId: sub, profile }, { autoCreate: true });
    const user = await client.user.findUniqueOrThrow({
      where: { id: userId as string },
      include: { user_roles: true, oauth_identities: true },
    });
    expect(user).toMatchObject({
      username: "new-person-",
      email: profile.email.toLowerCase(),
      display_name: "New Person",
      password_hash: null,
      user_roles: [],
    });
    expect(user.email_verified_at).toBeInstanceOf(Date);
    expect(user.oauth_identities).toEqual([expect.objectContaining({ provider: "oauth2", provider_user_id: sub })]);
    const again = await linkExternalSignIn(
      { provider: "oidc", providerUserId: id(), profile: { ...profile, email: `other${n}@example.test` } },
      { autoCreate: true },
    );
    expect((await client.user.findUniqueOrThrow({ where: { id: again as string } })).username).toMatch(
      /^new-person--[0-9a-f]{6}$/,
    );
    expect(
      await linkExternalSignIn(
        { provider: "oidc", providerUserId: id(), profile: { email: "x@example.test", email_verified: false } },
        { autoCreate: true },
      ),
    ).toBeNull();
  });
});

describe("an identity provider's word on an email", () => {
  const verifiedAt = async (userId: string) =>
    (await client.user.findUniqueOrThrow({ where: { id: userId } })).email_verified_at;

  it("verifies the user's email when a sign-in asserts that very address verified", async () => {
    const user = await userWithEmail(`asserted${n}@example.test`);
    const sub = id();
    // Linked by the verified email: that email is now verified.
    const profile = { email: user.email!.toUpperCase(), email_verified: true };
    expect(await linkExternalSignIn({ provider: "google", providerUserId: sub, profile })).toBe(user.id);
    expect(await verifiedAt(user.id)).toBeInstanceOf(Date);

    // After a change of email (cleared), a later sign-in asserting another address verifies nothing...
    await client.user.update({
      where: { id: user.id },
      data: { email: `changed${n}@example.test`, email_verified_at: null },
    });
    await linkExternalSignIn({ provider: "google", providerUserId: sub, profile });
    expect(await verifiedAt(user.id)).toBeNull();
    // ...nor one asserting the current address unverified; one asserting it verified does.
    const current = { email: `changed${n}@example.test`, email_verified: false };
    await linkExternalSignIn({ provider: "google", providerUserId: sub, profile: current });
    expect(await verifiedAt(user.id)).toBeNull();
    await linkExternalSignIn({
      provider: "google",
      providerUserId: sub,
      profile: { ...current, email_verified: true },
    });
    expect(await verifiedAt(user.id)).toBeInstanceOf(Date);
  });
});

describe("verifiedGitHubEmail", () => {
  it("takes the primary email only when GitHub has verified it", () => {
    expect(
      verifiedGitHubEmail([
        { email: "a@x.test", primary: false, verified: true },
        { email: "b@x.test", primary: true, verified: true },
      ]),
    ).toBe("b@x.test");
    expect(verifiedGitHubEmail([{ email: "b@x.test", primary: true, verified: false }])).toBeNull();
    expect(verifiedGitHubEmail({ message: "Bad credentials" })).toBeNull();
  });
});
