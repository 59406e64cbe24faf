"use client";

import { useId } from "react";
import { SCOPE_GROUPS } from "@/components/api-keys/catalog";
import { hintClass, labelClass, linkButton } from "@/components/ui/styles";
import { PERMISSIONS, type Permission } from "@/lib/permissions";
import { DangerousBadge } from "@/components/ui/badge";
import { describedBy, FieldError } from "@/components/ui/field-error";

// Permissions from the catalog, grouped by resource, each with what it allows; dangerous ones are
// marked. Only catalog permissions can be picked, and only those `offered` (an org role: org ones).

interface PermissionPickerProps {
  legend: string;
  hint?: string;
  selected: ReadonlySet<string>;
  onChange?: (next: Set<string>) => void;
  /** Which permissions may be in the set; the others are not shown. Default: all. */
  offered?: (permission: Permission) => boolean;
  /** Read-only: a built-in role's permissions. */
  readOnly?: boolean;
  error?: string;
}

export const orgPermissionsOnly = (permission: Permission) => PERMISSIONS[permission].scope === "org";

export function PermissionPicker({ legend, hint, selected, onChange, offered = () => true, readOnly = false, error }: PermissionPickerProps) {
  const id = useId();
  const groups = SCOPE_GROUPS.map((group) => ({ ...group, scopes: group.scopes.filter((s) => offered(s.permission)) })).filter((g) => g.scopes.length > 0);
  const count = [...selected].filter((p) => Object.hasOwn(PERMISSIONS, p) && offered(p as Permission)).length;

  const set = (permissions: Permission[], on: boolean) => {
    const next = new Set(selected);
    for (const p of permissions) {
      if (on) next.add(p);
      else next.delete(p);
    }
    onChange?.(next);
  };

  return (
    <fieldset aria-describedby={describedBy(hint && `${id}-hint`, error && `${id}-error`)}>
      <legend className={labelClass}>{legend}</legend>
      {hint && (
        <p id={`${id}-hint`} className={hintClass}>
          {hint}
        </p>
      )}
      <div
        className="mt-2 max-h-96 overflow-y-auto rounded-md border border-slate-300 aria-[invalid=true]:border-red-500 dark:border-slate-700"
        aria-invalid={error ? true : undefined}
        tabIndex={error ? -1 : undefined}
      >
        {groups.map((group) => {
          const all = group.scopes.every((s) => selected.has(s.permission));
          return (
            <fieldset key={group.resource} className="border-t border-slate-200 px-3 py-3 first:border-t-0 dark:border-slate-800">
              <div className="flex items-center justify-between gap-2">
                <legend className="text-sm font-semibold">{group.label}</legend>
                {!readOnly && group.scopes.length > 1 && (
                  <button
                    type="button"
                    onClick={() => set(group.scopes.map((s) => s.permission), !all)}
                    className={`${linkButton} text-xs`}
                    aria-label={`${all ? "Clear" : "Select all"} ${group.label} permissions`}
                  >
                    {all ? "Clear" : "Select all"}
                  </button>
                )}
              </div>
              <ul className="mt-2 space-y-2">
                {group.scopes.map(({ permission, dangerous, allows }) => (
                  <li key={permission} className="flex items-start gap-2">
                    <input
                      id={`${id}-${permission}`}
                      type="checkbox"
                      checked={selected.has(permission)}
                      disabled={readOnly}
                      aria-describedby={`${id}-${permission}-about`}
                      onChange={(event) => set([permission], event.target.checked)}
                      className="mt-1 size-4 shrink-0 accent-brand-600"
                    />
                    <div className="min-w-0">
                      <label htmlFor={`${id}-${permission}`} className="font-mono text-sm break-all">
                        {permission}
                      </label>
                      {dangerous && (
                        <span className="ml-2">
                          <DangerousBadge />
                        </span>
                      )}
                      <p id={`${id}-${permission}-about`} className="text-xs text-slate-500 dark:text-slate-400">
                        {allows.charAt(0).toUpperCase() + allows.slice(1)}.{dangerous && " Dangerous: it never reaches an API key."}
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
        {count === 1 ? "1 permission selected" : `${count} permissions selected`}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}
