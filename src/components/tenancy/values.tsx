"use client";

import type { ReactNode } from "react";
import type { z } from "zod";
import { optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import type { ValueType } from "@/lib/schemas/settings";

// Typed values the tenancy forms edit (settings, configs), typed as text and turned into what the
// schema takes; what cannot be turned is reported next to its field.

type Json = z.core.util.JSONType;
type Report = (message: string) => void;

export const jsonText = (value: unknown) =>
  value && typeof value === "object" && Object.keys(value).length === 0 ? "" : JSON.stringify(value, null, 2);

/** The kind of input that edits an existing value. */
export function kindOf(value: unknown): ValueType {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "float";
  return "json";
}

/** A value as its input shows it. */
export const valueText = (kind: ValueType, value: unknown): string =>
  kind === "string"
    ? String(value ?? "")
    : kind === "json"
      ? JSON.stringify(value ?? null, null, 2)
      : value === undefined
        ? ""
        : String(value);

/** The value typed for a kind. */
export function valueOf(kind: ValueType, text: string, report: Report): Json {
  switch (kind) {
    case "string":
      return text;
    case "boolean":
      if (text === "true" || text === "false") return text === "true";
      report("Value must be true or false.");
      return null;
    case "integer":
      if (/^-?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text))) return Number(text);
      report("Value must be a whole number, like 20.");
      return null;
    case "float": {
      const n = Number(text);
      if (text.trim() !== "" && Number.isFinite(n)) return n;
      report("Value must be a number, like 0.5.");
      return null;
    }
    case "json":
      try {
        return JSON.parse(text) as Json;
      } catch (error) {
        report(`Value is not valid JSON: ${(error as Error).message}.`);
        return null;
      }
  }
}

/** The `value` field of a setting form, as the kind of value asks: text, a number, true/false, or JSON. */
export function ValueInput({ kind, hint }: { kind: ValueType; hint?: ReactNode }) {
  if (kind === "boolean") {
    return (
      <SelectField
        name="value"
        label="Value"
        options={[{ value: "", label: "Pick true or false" }, ...optionsOf(["true", "false"])]}
        hint={hint}
      />
    );
  }
  if (kind === "json") {
    return (
      <TextAreaField
        name="value"
        label="Value"
        mono
        hint={hint ?? "Any JSON: an object, an array, a number, a string in double quotes…"}
      />
    );
  }
  return (
    <TextField
      name="value"
      label="Value"
      inputMode={kind === "string" ? undefined : kind === "integer" ? "numeric" : "decimal"}
      autoComplete="off"
      hint={hint}
    />
  );
}
