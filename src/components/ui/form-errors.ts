import type { z } from "zod";
import type { FieldError } from "@/server/errors";
import { fieldErrorsOf, messageOf } from "@/trpc/react";

// Field errors of the console's forms, from the form's own zod check or from the server (tRPC's
// error data carries the same `{path, message}` list as REST), worded as sentences that name the
// field they belong to.

export type FormErrors<F extends string> = Partial<Record<F | "form", string>>;

/** Names the field of an error below it (`redirect_uris.1` → "Redirect URI 2"). */
export type FieldLabeller<F extends string> = (field: F, rest: string[]) => string;

const FRIENDLY: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Too small: expected string to have >=1 characters?$/, () => "is required"],
  [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `must be at least ${m[1]} characters`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `must be at most ${m[1]} characters`],
  [/^Invalid URL$/, () => "must be a URL"],
  [/^Invalid email address$/, () => "must be an email address"],
  [/^Invalid option/, () => "is not one of the choices"],
  [/^Invalid input: expected \w+, received undefined$/, () => "is required"],
];

/**
 * "must not be empty" on Name reads "Name must not be empty."; a whole sentence stays one (unless
 * `nested`: an error below a field keeps naming where it is); anything else reads "Name: …".
 */
export function sentence(subject: string, message: string, nested = false): string {
  const rule = FRIENDLY.find(([pattern]) => pattern.test(message));
  const text = rule ? rule[1](message.match(rule[0]) as RegExpMatchArray) : message;
  let full: string;
  if (/^(must|is|are|cannot|should|may|says) /.test(text)) full = `${subject} ${text}`;
  else if (!subject || (/^[A-Z]/.test(text) && !nested)) full = text;
  else full = `${subject}: ${text}`;
  return full.endsWith(".") ? full : `${full}.`;
}

/**
 * Adds errors to `found`: each next to the field it names (`labels` names the fields the form shows;
 * an error below a field, like `default_settings.top_k`, names the rest of its path), anything else
 * on the form.
 */
export function collectErrors<F extends string>(
  errors: readonly FieldError[],
  labels: Readonly<Record<F, string>>,
  labelFor?: FieldLabeller<F>,
  found: FormErrors<F> = {},
): FormErrors<F> {
  const unplaced: string[] = [];
  for (const { path, message } of errors) {
    const [head = "", ...rest] = path.split(".");
    if (!Object.hasOwn(labels, head)) {
      unplaced.push(sentence(path || "The request", message));
      continue;
    }
    const field = head as F;
    const subject = labelFor ? labelFor(field, rest) : rest.length > 0 ? `${labels[field]}: ${rest.join(".")}` : labels[field];
    const text = sentence(subject, message, rest.length > 0);
    const before = found[field];
    found[field] = !before ? text : before.includes(text) ? before : `${before} ${text}`;
  }
  if (unplaced.length > 0) found.form = [found.form, ...unplaced].filter(Boolean).join(" ");
  return found;
}

export const zodErrors = (error: z.ZodError): FieldError[] =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));

/** A failed call's errors: by field when the server named fields, else its message. */
export function serverErrors<F extends string>(error: unknown, labels: Readonly<Record<F, string>>, labelFor?: FieldLabeller<F>): FormErrors<F> {
  const found = collectErrors(fieldErrorsOf(error), labels, labelFor);
  if (Object.keys(found).length === 0) found.form = messageOf(error);
  return found;
}
