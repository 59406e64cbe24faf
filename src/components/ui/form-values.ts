import type { FieldValues } from "react-hook-form";
import type { z } from "zod";

// Between what a form's fields hold (text) and what the API takes (nulls, lists, JSON objects).

/** Blank text becomes null (an optional field cleared), the rest is trimmed. */
export const orNull = (value: string): string | null => (value.trim() === "" ? null : value.trim());

/** Blank text becomes null; the rest is kept as typed (a description, a bio). */
export const blankAsNull = (value: string): string | null => (value.trim() === "" ? null : value);

/**
 * A form's values: those of the item it edits (a null text blank), or `blank` for a new one. The
 * keys are blank's, so an item's other fields stay out of the form.
 */
export function valuesFrom<V extends FieldValues>(item: object | null, blank: V): V {
  if (item === null) return blank;
  const own = item as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(blank).map(([key, fallback]) => [key, own[key] ?? (typeof fallback === "string" ? "" : fallback)]),
  ) as V;
}

/** The text fields of a record as a form edits them (null: blank). */
export function textsOf<K extends string>(
  record: { [key in K]?: string | null } | null,
  keys: readonly K[],
): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, record?.[key] ?? ""])) as Record<K, string>;
}

/** Each of these text fields trimmed, blank ones null. */
export function orNullEach<K extends string>(values: Record<K, string>): Record<K, string | null> {
  return Object.fromEntries(Object.entries<string>(values).map(([key, value]) => [key, orNull(value)])) as Record<
    K,
    string | null
  >;
}

/** A comma-separated list typed into one field. */
/**
 * A group of checkboxes' value as a list: the form library answers a lone checkbox of a name with its
 * value (or false), several with the list of those checked.
 */
export const checkedValues = (value: string[] | string | false | undefined): string[] =>
  Array.isArray(value) ? value : value ? [value] : [];

export const splitList = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

type Json = z.core.util.JSONType;

/** A JSON object typed into a textarea (blank: `{}`); what is not one is reported. */
export function jsonObjectOf(text: string, label: string, report: (message: string) => void): Record<string, Json> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    report(`${label} is not valid JSON: ${(error as Error).message}.`);
    return {};
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    report(`${label} must be a JSON object, like {"temperature": 0.2}.`);
    return {};
  }
  return value as Record<string, Json>;
}
