import { z } from "zod";
import {
  DESCRIPTION_LENGTH,
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  LENGTH,
  listOf,
  pageQuery,
  searchTerm,
  softDeletedRecord,
  text,
  moment,
} from "./common";

// User summaries: what pickers and lists show of a user (never credentials).

export const userSummarySchema = z.object({
  id: z.uuid(),
  username: text(),
  display_name: text().nullable(),
});
export type UserSummary = z.input<typeof userSummarySchema>;

// ---------------------------------------------------------------------------------------------
// Users, their OAuth identities and password resets.

const isTimeZone = (value: string): boolean => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

/** Letters, digits, ".", "_" and "-": never "@", so sign-in can tell a username from an email. */
export const username = text()
  .trim()
  .min(1, "must not be empty")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "may hold letters, digits, '.', '_' and '-', starting with a letter or digit");

/** Stored lowercase: sign-in by email is case-insensitive. */
export const emailAddress = text().trim().toLowerCase().pipe(z.email("must be an email address"));

/** The longest password anyone may have (hashing costs grow with it). */
export const PASSWORD_LENGTH = 1024;
export const password = text(PASSWORD_LENGTH).min(12, "must be at least 12 characters");

/** A user's locale, a language tag: a column of 35 characters. */
const LOCALE_LENGTH = 35;
/** A user's time zone, an IANA name: a column of 64 characters. */
const TIME_ZONE_LENGTH = 64;

const profileFields = {
  email: emailAddress.nullable().optional(),
  display_name: text().trim().nullable().optional(),
  avatar_url: z
    // The message is for the URL's form alone; its length answers as every other bound does.
    .url({
      protocol: /^https$/,
      error: (issue) => (issue.code === "invalid_format" ? "must be an https URL" : undefined),
    })
    .max(LENGTH.VERY_LONG)
    .nullable()
    .optional(),
  locale: text(LOCALE_LENGTH)
    .trim()
    .regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, "must be a language tag like en or pt-BR")
    .nullable()
    .optional(),
  timezone: text(TIME_ZONE_LENGTH)
    .trim()
    .refine(isTimeZone, "must be an IANA time zone like Europe/Paris")
    .nullable()
    .optional(),
  bio: text(DESCRIPTION_LENGTH).nullable().optional(),
};

export const createUserInput = z
  .strictObject({
    username,
    ...profileFields,
    password: password
      .nullable()
      .default(null)
      .describe("null (or absent): an OAuth-only user, who cannot sign in with a password."),
  })
  .meta({
    examples: [
      {
        username: "ada",
        email: "ada@example.com",
        display_name: "Ada Lovelace",
        password: "correct horse battery staple",
      },
    ],
  });
export type CreateUserInput = z.output<typeof createUserInput>;

export const updateUserInput = z
  .strictObject({ username: username.optional(), ...profileFields })
  .meta({ examples: [{ display_name: "Ada King", locale: "en-GB", timezone: "Europe/London" }] });
export type UpdateUserInput = z.output<typeof updateUserInput>;

export const resetPasswordInput = z
  .strictObject({
    password: password.optional().describe("Absent: a random password is generated and returned once."),
  })
  .meta({ examples: [{}] });
export type ResetPasswordInput = z.output<typeof resetPasswordInput>;

export const listUsersQuery = pageQuery.extend({
  q: searchTerm(
    "Matches username, display name or email, case aside; one or two characters match where a value or a word of it begins.",
  ),
  include_deleted: includeDeleted,
});
export type ListUsersQuery = z.output<typeof listUsersQuery>;

export const userIdParams = z.strictObject({ user_id: id });

export const userSchema = z
  .object({
    id: z.uuid(),
    username: text(),
    email: text().nullable(),
    email_verified_at: moment
      .nullable()
      .describe(
        "When the current email was shown to be the user's (a link sent to it, an identity provider's assertion, a sys_admin's word); null: not verified. A change of email clears it.",
      ),
    display_name: text().nullable(),
    avatar_url: text(LENGTH.VERY_LONG).nullable(),
    locale: text(LOCALE_LENGTH).nullable(),
    timezone: text(TIME_ZONE_LENGTH).nullable(),
    bio: text(DESCRIPTION_LENGTH).nullable(),
    has_password: z.boolean().describe("false for OAuth-only users. The hash itself is never returned."),
    kind: z
      .enum(["human", "service"])
      .describe("`service`: a service account of one organization, which never signs in to the console."),
    ...softDeletedRecord,
  })
  .meta({
    id: "User",
    examples: [
      {
        id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        username: "ada",
        email: "ada@example.com",
        email_verified_at: "2026-01-15T09:40:00.000Z",
        display_name: "Ada Lovelace",
        avatar_url: null,
        locale: "en-GB",
        timezone: "Europe/London",
        bio: null,
        has_password: true,
        kind: "human",
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type User = z.input<typeof userSchema>;
export const userListSchema = listOf(userSchema);

export const passwordResetSchema = z.object({
  user: userSchema,
  password: text(PASSWORD_LENGTH)
    .nullable()
    .describe("The generated password, shown once; null when the request gave one."),
});
export type PasswordReset = z.input<typeof passwordResetSchema>;

export const identityParams = z.strictObject({ user_id: id, identity_id: id });

export const identitySchema = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    provider: text(LENGTH.SHORT).describe(
      "github, google, oauth2 (the configured OpenID Connect provider), or sso:<connection id> (an organization's SSO connection).",
    ),
    provider_user_id: text(),
    created_at: moment,
  })
  .meta({
    id: "Identity",
    examples: [
      {
        id: "0193a5c9-7b8c-7d9e-8f0a-1b2c3d4e5f60",
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        provider: "github",
        provider_user_id: "583231",
        created_at: "2026-01-15T09:30:00.000Z",
      },
    ],
  });
export type Identity = z.input<typeof identitySchema>;
export const identityListSchema = listOf(identitySchema);
