import { z } from "zod";
import { LENGTH, list, text } from "./common";
import { PASSWORD_LENGTH } from "./users";

// Two-factor authentication (TOTP) of console sign-in: shared by the server and the console's forms.

/** The platform setting that sends a sys_admin without two-factor to set it up after the password step. */
export const REQUIRE_MFA_SETTING = "auth.require_mfa_for_sys_admins";
/** How many recovery codes setting up two-factor gives. */
export const RECOVERY_CODES = 10;

/** A 6-digit code of the authenticator app, or a recovery code (xxxx-xxxx-xxxx-xxxx). */
const authenticationCode = text(40)
  .trim()
  .min(1, "is required")
  .describe("The 6-digit code of the authenticator app, or one of the recovery codes.");

export const twoFactorStatusSchema = z
  .object({
    enabled: z.boolean().describe("Whether sign-in asks for a code."),
    recovery_codes_left: z.number().int().min(0).max(RECOVERY_CODES).describe("Unused recovery codes (0 while off)."),
    required: z
      .boolean()
      .describe("Whether the platform requires it of this user (a sys_admin, under auth.require_mfa_for_sys_admins)."),
  })
  .meta({ id: "TwoFactorStatus", examples: [{ enabled: true, recovery_codes_left: 9, required: false }] });
export type TwoFactorStatus = z.input<typeof twoFactorStatusSchema>;

export const twoFactorSetupSchema = z
  .object({
    secret: text(LENGTH.SHORT).describe("The setup key (base32), for typing into an authenticator app."),
    otpauth_url: text(LENGTH.VERY_LONG).describe("The same as an otpauth:// URI, for a QR code."),
  })
  .meta({
    id: "TwoFactorSetup",
    examples: [
      {
        secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
        otpauth_url: "otpauth://totp/svc:root?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=svc",
      },
    ],
  });

export const confirmTwoFactorInput = z
  .strictObject({
    code: text(6)
      .trim()
      .regex(/^\d{6}$/, "must be the 6-digit code of your authenticator app"),
  })
  .meta({ examples: [{ code: "492039" }] });
export type ConfirmTwoFactorInput = z.output<typeof confirmTwoFactorInput>;

export const recoveryCodesSchema = z
  .object({
    recovery_codes: list(text(LENGTH.SHORT), RECOVERY_CODES).describe("Ten single-use codes, shown this once."),
  })
  .meta({ id: "RecoveryCodes", examples: [{ recovery_codes: ["abcd-efgh-ijkl-mnop"] }] });

export const turnOffTwoFactorInput = z
  .strictObject({
    password: text(PASSWORD_LENGTH).optional().describe("Your password (required when you have one)."),
    code: authenticationCode,
  })
  .meta({ examples: [{ password: "correct horse battery staple", code: "492039" }] });
export type TurnOffTwoFactorInput = z.output<typeof turnOffTwoFactorInput>;
