import type { z } from "zod";
import type { FieldError } from "@/server/errors";
import { fieldErrorsOf, messageOf } from "@/trpc/react";

// Field errors of the catalog dialogs, from the form's own zod check or from the server (tRPC's
// error data carries the same `{path, message}` list as REST), shown next to the field they name.

export type FormErrors<F extends string> = Partial<Record<F | "form", string>>;

/** "must be a semantic version" on Version reads "Version must be a semantic version."; a nested
 * path keeps the rest: "Default settings: top_k must be >= 1." */
function sentence(label: string, rest: string, message: string): string {
  const subject = rest ? `${label}: ${rest}` : label;
  let text: string;
  if (/^[A-Z]/.test(message) && !rest) text = message; // already a whole sentence, like a conflict's
  else if (/^(must|is|are|says) /.test(message)) text = `${subject} ${message}`;
  else text = `${subject}: ${message}`;
  return text.endsWith(".") ? text : `${text}.`;
}

/** The first error of each known field; errors of no known field become the form's error. */
export function collectErrors<F extends string>(errors: readonly FieldError[], labels: Readonly<Record<F, string>>): FormErrors<F> {
  const found: FormErrors<F> = {};
  const unplaced: string[] = [];
  for (const { path, message } of errors) {
    const [head = "", ...rest] = path.split(".");
    if (Object.hasOwn(labels, head)) {
      const field = head as F;
      found[field] ??= sentence(labels[field], rest.join("."), message);
    } else {
      unplaced.push(sentence(path || "The request", "", message));
    }
  }
  if (unplaced.length > 0 && Object.keys(found).length === 0) found.form = unplaced.join(" ");
  return found;
}

export const zodErrors = (error: z.ZodError): FieldError[] =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));

/** A failed mutation's errors: by field when the server named fields, else one sentence. */
export function serverErrors<F extends string>(error: unknown, labels: Readonly<Record<F, string>>): FormErrors<F> {
  const found = collectErrors(fieldErrorsOf(error), labels);
  if (Object.keys(found).length === 0) found.form = messageOf(error);
  return found;
}

/** aria-describedby from the ids that apply. */
export const describedBy = (...parts: (string | false | undefined | null)[]) => parts.filter(Boolean).join(" ") || undefined;
