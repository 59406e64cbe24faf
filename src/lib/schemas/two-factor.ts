import { z } from "zod";

// Two-factor authentication (TOTP) of console sign-in: shared by the server and the console's forms.

/** The platform setting that sends a sys_admin without two-factor to set it up after the password step. */
export const REQUIRE_MFA_SETTING = "auth.require_mfa_for_sys_admins";

/** A 6-digit code of the authenticator app, or a recovery code (xxxx-xxxx-xxxx-xxxx). */
export const authenticationCode = z
  .string()
  .trim()
  .min(1, "is required")
  .max(40)
  .describe("The 6-digit code of the authenticator app, or one of the recovery codes.");

export const twoFactorStatusSchema = z
  .object({
    enabled: z.boolean().describe("Whether sign-in asks for a code."),
    recovery_codes_left: z.number().int().describe("Unused recovery codes (0 while off)."),
    required: z
      .boolean()
      .describe("Whether the platform requires it of this user (a sys_admin, under auth.require_mfa_for_sys_admins)."),
  })
  .meta({ id: "TwoFactorStatus", examples: [{ enabled: true, recovery_codes_left: 9, required: false }] });
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

export const twoFactorSetupSchema = z
  .object({
    secret: z.string().describe("The setup key (base32), for typing into an authenticator app."),
    otpauth_url: z.string().describe("The same as an otpauth:// URI, for a QR code."),
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
    code: z
      .string()
      .trim()
      .regex(/^\d{6}$/, "must be the 6-digit code of your authenticator app"),
  })
  .meta({ examples: [{ code: "492039" }] });
export type ConfirmTwoFactorInput = z.output<typeof confirmTwoFactorInput>;

export const recoveryCodesSchema = z
  .object({
    recovery_codes: z.array(z.string()).describe("Ten single-use codes, shown this once."),
  })
  .meta({ id: "RecoveryCodes", examples: [{ recovery_codes: ["abcd-efgh-ijkl-mnop"] }] });

export const turnOffTwoFactorInput = z
  .strictObject({
    password: z.string().max(1024).optional().describe("Your password (required when you have one)."),
    code: authenticationCode,
  })
  .meta({ examples: [{ password: "correct horse battery staple", code: "492039" }] });
export type TurnOffTwoFactorInput = z.output<typeof turnOffTwoFactorInput>;
