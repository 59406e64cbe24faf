"use client";

import type { ReactNode } from "react";
import type { z } from "zod";
import { optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/form";
import { settingKey } from "@/lib/schemas/settings";

// JSON and typed values the tenancy forms edit (settings, configs).

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A setting's key as typed (trimmed), checked against the key rule the server enforces. */
export function parseSettingKey(text: string): Parsed<string> {
  const parsed = settingKey.safeParse(text.trim());
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: text.trim() === "" ? "Key is required." : `Key ${parsed.error.issues[0]?.message ?? "is not valid"}.` };
}

/** A JSON object typed into a textarea (blank: `{}`). */
export function parseJsonObject(text: string, label: string): Parsed<Record<string, z.core.util.JSONType>> {
  if (text.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${label} is not valid JSON: ${(error as Error).message}.` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: `${label} must be a JSON object, like {"temperature": 0.2}.` };
  }
  return { ok: true, value: value as Record<string, z.core.util.JSONType> };
}

export const jsonText = (value: unknown) => (value && typeof value === "object" && Object.keys(value).length === 0 ? "" : JSON.stringify(value, null, 2));

export const VALUE_KINDS = ["string", "integer", "float", "boolean", "json"] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

/** The kind of input that edits an existing value. */
export function kindOf(value: unknown): ValueKind {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "float";
  return "json";
}

/** A value as its input shows it. */
export const valueText = (kind: ValueKind, value: unknown): string =>
  kind === "string" ? String(value ?? "") : kind === "json" ? JSON.stringify(value ?? null, null, 2) : value === undefined ? "" : String(value);

/** The value typed for a kind. */
export function parseValue(kind: ValueKind, text: string): Parsed<z.core.util.JSONType> {
  switch (kind) {
    case "string":
      return { ok: true, value: text };
    case "boolean":
      return text === "true" || text === "false" ? { ok: true, value: text === "true" } : { ok: false, message: "Value must be true or false." };
    case "integer":
      return /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text))
        ? { ok: true, value: Number(text) }
        : { ok: false, message: "Value must be a whole number, like 20." };
    case "float": {
      const n = Number(text);
      return text.trim() !== "" && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: "Value must be a number, like 0.5." };
    }
    case "json":
      try {
        return { ok: true, value: JSON.parse(text) as z.core.util.JSONType };
      } catch (error) {
        return { ok: false, message: `Value is not valid JSON: ${(error as Error).message}.` };
      }
  }
}

/** The input of a typed value: a text field, a number, true/false, or a JSON editor. */
export function ValueInput({ kind, text, onText, error, hint }: { kind: ValueKind; text: string; onText: (text: string) => void; error?: string; hint?: ReactNode }) {
  if (kind === "boolean") {
    return (
      <SelectField
        label="Value"
        value={text === "true" || text === "false" ? text : ""}
        onChange={(event) => onText(event.target.value)}
        options={[{ value: "", label: "Pick true or false" }, ...optionsOf(["true", "false"])]}
        error={error}
        hint={hint}
      />
    );
  }
  if (kind === "json") {
    return <TextAreaField label="Value" mono value={text} onChange={(event) => onText(event.target.value)} error={error} hint={hint ?? "Any JSON: an object, an array, a number, a string in double quotes…"} />;
  }
  return (
    <TextField
      label="Value"
      value={text}
      onChange={(event) => onText(event.target.value)}
      inputMode={kind === "string" ? undefined : kind === "integer" ? "numeric" : "decimal"}
      autoComplete="off"
      error={error}
      hint={hint}
    />
  );
}
