import "server-only";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "@/server/env";

// The SMTP connection the email worker sends through, made once per SMTP_URL.

let cached: { url: string; transporter: Transporter } | undefined;

/** The transport of SMTP_URL, or undefined when email is not configured. */
export function smtpTransport(): Transporter | undefined {
  const url = env().SMTP_URL;
  if (!url) return undefined;
  if (cached?.url !== url) {
    cached?.transporter.close();
    cached = { url, transporter: nodemailer.createTransport(url) };
  }
  return cached.transporter;
}

export const emailConfigured = (): boolean => env().SMTP_URL !== undefined;

/** The sender: SMTP_FROM, else a no-reply address at the SMTP server's host. */
export function sender(): string {
  const { SMTP_FROM, SMTP_URL } = env();
  return SMTP_FROM ?? `no-reply@${SMTP_URL ? new URL(SMTP_URL).hostname : "localhost"}`;
}
