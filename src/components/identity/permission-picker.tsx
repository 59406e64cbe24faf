"use client";

import { useId, useState } from "react";
import { SCOPE_GROUPS } from "@/components/api-keys/catalog";
import { DangerousBadge } from "@/components/ui/badge";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { useFieldController } from "@/components/ui/form";
import { hintClass, inputClass, labelClass, linkButton } from "@/components/ui/styles";
import { PERMISSIONS, type Permission } from "@/lib/permissions";

// Permissions from the catalog, grouped by resource, each with what it allows, and a search over
// names and descriptions; dangerous ones are marked. Only catalog permissions can be picked, and only
// those `offered` (an org role: org ones); what cannot be granted (`lockDangerous`: a dangerous one
// for an API key) is not offered at all, only counted. No scroll box of its own: the page or the
// dialog around it scrolls. It edits a form field holding the list of permissions picked.

interface PermissionPickerProps {
  /** The form field: a list of permissions. */
  name: string;
  legend: string;
  hint?: string;
  /** Which permissions may be in the set; the others are not shown. Default: all. */
  offered?: (permission: Permission) => boolean;
  /** Read-only: a built-in role's permissions. */
  readOnly?: boolean;
  /** What a dangerous permission says under it; `lockDangerous`: it cannot be picked, and is left out (API keys never carry one). */
  dangerousNote?: string;
  lockDangerous?: boolean;
  /** The word for what is picked: "permission", "scope". */
  noun?: string;
}

export const orgPermissionsOnly = (permission: Permission) => PERMISSIONS[permission].scope === "org";

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function PermissionPicker({
  name,
  legend,
  hint,
  offered = () => true,
  readOnly = false,
  dangerousNote = "Dangerous: it never reaches an API key.",
  lockDangerous = false,
  noun = "permission",
}: PermissionPickerProps) {
  const id = useId();
  const { field, message: error } = useFieldController(name, legend);
  const selected = new Set<string>(field.value as string[]);
  const pickable = (s: { permission: Permission; dangerous: boolean }) => !readOnly && !(lockDangerous && s.dangerous);
  const [search, setSearch] = useState("");
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const grantable = (s: { permission: Permission; dangerous: boolean }) =>
    offered(s.permission) && !(lockDangerous && s.dangerous);
  const withheld = lockDangerous
    ? SCOPE_GROUPS.flatMap((g) => g.scopes).filter((s) => offered(s.permission) && s.dangerous).length
    : 0;
  const groups = SCOPE_GROUPS.map((group) => ({
    ...group,
    scopes: group.scopes.filter(
      (s) =>
        grantable(s) &&
        words.every((word) => `${s.permission} ${s.allows} ${group.label}`.toLowerCase().includes(word)),
    ),
  })).filter((g) => g.scopes.length > 0);
  const count = [...selected].filter((p) => Object.hasOwn(PERMISSIONS, p) && offered(p as Permission)).length;

  const set = (permissions: Permission[], on: boolean) => {
    const next = new Set(selected);
    for (const p of permissions) {
      if (on) next.add(p);
      else next.delete(p);
    }
    field.onChange([...next]);
  };

  return (
    <fieldset aria-describedby={describedBy(hint && `${id}-hint`, error && `${id}-error`)}>
      <legend className={labelClass}>{legend}</legend>
      {hint && (
        <p id={`${id}-hint`} className={hintClass}>
          {hint}
        </p>
      )}
      {!readOnly && (
        <div className="mt-2">
          <label htmlFor={`${id}-search`} className="sr-only">
            Find a {noun}
          </label>
          <input
            id={`${id}-search`}
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            onKeyDown={(event) => {
              // Enter searches; it does not send the form around the picker.
              if (event.key === "Enter") event.preventDefault();
            }}
            placeholder={`Find a ${noun}: “members”, “read”, “orchestrators”…`}
            className={inputClass}
            autoComplete="off"
          />
        </div>
      )}
      <div
        className="mt-2 rounded-md border border-slate-300 aria-[invalid=true]:border-red-500 dark:border-slate-700"
        aria-invalid={error ? true : undefined}
        tabIndex={error ? -1 : undefined}
      >
        {groups.length === 0 && (
          <p className="px-3 py-3 text-sm text-slate-600 dark:text-slate-300">
            No {noun} matches “{search.trim()}”.
          </p>
        )}
        {groups.map((group) => {
          const choices = group.scopes.filter(pickable).map((s) => s.permission);
          const all = choices.length > 0 && choices.every((p) => selected.has(p));
          return (
            <fieldset
              key={group.resource}
              className="border-t border-slate-200 px-3 py-3 first:border-t-0 dark:border-slate-800"
            >
              <div className="flex items-center justify-between gap-2">
                <legend className="text-sm font-semibold">{group.label}</legend>
                {choices.length > 1 && (
                  <button
                    type="button"
                    onClick={() => set(choices, !all)}
                    className={`${linkButton} text-xs`}
                    aria-label={`${all ? "Clear" : "Select all"} ${group.label} ${noun}s`}
                  >
                    {all ? "Clear" : "Select all"}
                  </button>
                )}
              </div>
              <ul className="mt-2 space-y-2">
                {group.scopes.map((scope) => (
                  <li key={scope.permission} className="flex items-start gap-2">
                    <input
                      id={`${id}-${scope.permission}`}
                      type="checkbox"
                      checked={selected.has(scope.permission)}
                      disabled={!pickable(scope)}
                      aria-describedby={`${id}-${scope.permission}-about`}
                      onChange={(event) => set([scope.permission], event.target.checked)}
                      className="mt-1 size-4 shrink-0 accent-brand-600"
                    />
                    <div className="min-w-0">
                      <label
                        htmlFor={`${id}-${scope.permission}`}
                        className={`font-mono text-sm wrap-anywhere ${lockDangerous && scope.dangerous ? "text-slate-400 dark:text-slate-500" : ""}`}
                      >
                        {scope.permission}
                      </label>
                      {scope.dangerous && (
                        <span className="ml-2">
                          <DangerousBadge />
                        </span>
                      )}
                      <p id={`${id}-${scope.permission}-about`} className="text-xs text-slate-500 dark:text-slate-400">
                        {capitalized(scope.allows)}.{scope.dangerous && ` ${dangerousNote}`}
                      </p>
                    </div>
                  </li>
                ))}
              </ul>
            </fieldset>
          );
        })}
      </div>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300" aria-live="polite">
        {count === 1 ? `1 ${noun} selected` : `${count} ${noun}s selected`}
        {withheld > 0 && `. ${withheld} dangerous permissions are left out: ${dangerousNote}`}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}
