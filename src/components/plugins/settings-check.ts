import type { ErrorSchema, RJSFSchema } from "@rjsf/utils";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { FieldError } from "@/lib/errors";
import type { CheckSettingsInput } from "@/lib/schemas/plugins";
import { useDebounced } from "@/components/ui/use-debounced";
import { fieldErrorsOf, messageOf, sentAsPost, useTRPC } from "@/trpc/react";

// The settings form's check, asked of the server (plugins.checkSettings) once typing pauses: its
// answer comes from the code that checks a registration, so the console says what the API would.
// Until the answer to the settings shown is in, nothing is shown as their verdict.

const NONE: ErrorSchema = {};
const [MUTED, GOOD, BAD] = [
  "text-slate-600 dark:text-slate-300",
  "text-emerald-700 dark:text-emerald-300",
  "text-red-700 dark:text-red-400",
];

/**
 * The problems as rjsf's ErrorSchema, each at its field. The server names a field by its keys
 * joined with dots after "settings", and a key may hold a dot: each is matched against the data.
 */
function errorSchemaOf(problems: FieldError[], data: unknown): ErrorSchema {
  type ErrorNode = { __errors?: string[]; [key: string]: unknown };
  const root = Object.create(null) as ErrorNode;
  for (const { path, message } of problems) {
    let node = root;
    let value = data;
    let rest = path.startsWith("settings.") ? path.slice("settings.".length) : "";
    while (rest !== "") {
      const keys = typeof value === "object" && value !== null ? Object.keys(value) : [];
      const key =
        keys.filter((k) => rest === k || rest.startsWith(`${k}.`)).sort((x, y) => y.length - x.length)[0] ?? rest;
      node = (node[key] ??= Object.create(null)) as ErrorNode;
      value = (value as Record<string, unknown> | undefined)?.[key];
      rest = rest.slice(key.length + 1);
    }
    (node.__errors ??= []).push(message);
  }
  return root as ErrorSchema;
}

/** Where the check stands, in words, and the settings' problems at their fields (none until the answer is in). */
export interface SettingsCheck {
  summary: string;
  tone: string;
  errors: ErrorSchema;
  retry?: () => void;
}

/**
 * The server's check of `settings` against `schema`, asked once they have not changed for a moment;
 * none is shown while `outdated` (what the form shows is about to change).
 */
export function useSettingsCheck(schema: RJSFSchema, settings: unknown, outdated: boolean): SettingsCheck {
  const trpc = useTRPC();
  // As JSON text, as they would be saved (undefined fields left out), so equal input is equal text.
  const current = JSON.stringify({ settings_schema: schema, settings: settings ?? null });
  const asked = useDebounced(current);
  const input = useMemo(() => JSON.parse(asked) as CheckSettingsInput, [asked]);
  const query = useQuery({ ...trpc.plugins.checkSettings.queryOptions(input, sentAsPost), staleTime: Infinity });
  if (outdated || asked !== current || query.isFetching)
    return { summary: "Checking these settings…", tone: MUTED, errors: NONE };
  // Input the server refuses outright (a schema over its size cap) is answered with field errors.
  const problems = query.data?.problems ?? fieldErrorsOf(query.error);
  if (!query.data && problems.length === 0) {
    const summary = `These settings could not be checked: ${messageOf(query.error)}`;
    return { summary, tone: BAD, errors: NONE, retry: () => void query.refetch() };
  }
  const ofSchema = problems.filter((p) => p.path === "settings_schema" || p.path.startsWith("settings_schema."));
  if (ofSchema.length > 0) {
    const summary = `The settings schema is not acceptable: ${ofSchema.map((p) => `${p.path} ${p.message}`).join("; ")}.`;
    return { summary, tone: BAD, errors: NONE };
  }
  if (problems.length === 0) return { summary: "These settings satisfy the schema.", tone: GOOD, errors: NONE };
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  return {
    summary: `These settings do not satisfy the schema: ${count}.`,
    tone: BAD,
    errors: errorSchemaOf(problems, settings),
  };
}
