"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState, type KeyboardEvent } from "react";
import { messageOf, useTRPC } from "@/trpc/react";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { InputRow, SelectField } from "@/components/ui/fields";
import { useFieldController } from "@/components/ui/form";
import { inputClass, labelClass, mutedText, secondaryButton } from "@/components/ui/styles";
import type { Organization } from "@/lib/schemas/organizations";
import type { ROLE_SCOPES } from "@/lib/schemas/roles";
import type { User } from "@/lib/schemas/users";
import { roleChoicesOptions } from "./queries";

// Find a user or an organization by part of its name and pick it from the matches (the search is
// its own small form-in-a-form: Enter in the field searches rather than submitting the dialog);
// pick a role of a scope. Each edits a field of the surrounding form.

export interface Picked {
  id: string;
  label: string;
  detail: string | null;
}

interface SearchPickerProps {
  /** The form field that holds what is picked (a Picked, or null). */
  name: string;
  label: string;
  placeholder: string;
  /** The matches of a search text (empty: none asked yet). */
  useMatches: (query: string) => { isPending: boolean; isError: boolean; error: unknown; data: Picked[] | undefined };
}

function SearchPicker({ name, label, placeholder, useMatches }: SearchPickerProps) {
  const id = useId();
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const matches = useMatches(query);
  const { field, message: error } = useFieldController(name, label);
  const picked = field.value as Picked | null;
  const onPick = (value: Picked | null) => field.onChange(value);

  const search = () => setQuery(text.trim());
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter") {
      event.preventDefault();
      search();
    }
  };

  if (picked) {
    return (
      <div>
        <p className={labelClass}>{label}</p>
        <div className="mt-1 flex items-center justify-between gap-3 rounded-md border border-slate-300 px-3 py-2 text-sm dark:border-slate-700">
          <span>
            <strong className="font-semibold">{picked.label}</strong>
            {picked.detail && <span className={mutedText}> — {picked.detail}</span>}
          </span>
          <button type="button" onClick={() => onPick(null)} className={secondaryButton}>
            Change
          </button>
        </div>
      </div>
    );
  }

  return (
    <InputRow
      id={id}
      label={label}
      button={
        <button type="button" onClick={search} className={secondaryButton}>
          Find
        </button>
      }
      after={<Matches id={id} error={error} label={label} query={query} matches={matches} onPick={onPick} />}
    >
      <input
        id={id}
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder={placeholder}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(error && `${id}-error`)}
        className={inputClass}
      />
    </InputRow>
  );
}

/** The picker's error, and what its search found. */
function Matches({
  id,
  error,
  label,
  query,
  matches,
  onPick,
}: {
  id: string;
  error?: string;
  label: string;
  query: string;
  matches: ReturnType<SearchPickerProps["useMatches"]>;
  onPick: (picked: Picked) => void;
}) {
  return (
    <>
      <FieldError id={`${id}-error`} message={error} />
      {query !== "" && (
        <div className="mt-2 text-sm" aria-live="polite">
          {matches.isPending && <p className={mutedText}>Searching…</p>}
          {matches.isError && <p className="text-red-700 dark:text-red-400">{messageOf(matches.error)}</p>}
          {matches.data?.length === 0 && <p className={mutedText}>Nothing matches “{query}”.</p>}
          {matches.data && matches.data.length > 0 && (
            <ul
              aria-label={`Matches for ${label.toLowerCase()}`}
              className="max-h-56 divide-y divide-slate-200 overflow-y-auto rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
            >
              {matches.data.map((match) => (
                <li key={match.id}>
                  <button
                    type="button"
                    onClick={() => onPick(match)}
                    className="w-full px-3 py-2 text-left hover:bg-slate-50 dark:hover:bg-slate-800"
                    aria-label={`Pick ${match.label}`}
                  >
                    <span className="font-medium">{match.label}</span>
                    {match.detail && <span className={mutedText}> — {match.detail}</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}

type PickerProps = { name: string; label?: string };

/** A list query's items as matches: their name, and their display name when it says more. */
function matchesOf<T extends { id: string; display_name: string | null }>(
  found: { isPending: boolean; isError: boolean; error: unknown; data?: { data: T[] } },
  name: (item: T) => string,
): ReturnType<SearchPickerProps["useMatches"]> {
  return {
    ...found,
    data: found.data?.data.map((item) => ({
      id: item.id,
      label: name(item),
      detail: item.display_name !== name(item) ? item.display_name : null,
    })),
  };
}

function useUserMatches(query: string) {
  const trpc = useTRPC();
  return matchesOf<User>(
    useQuery(trpc.users.list.queryOptions({ q: query, limit: 20 }, { enabled: query !== "" })),
    (user) => user.username,
  );
}

function useOrganizationMatches(query: string) {
  const trpc = useTRPC();
  return matchesOf<Organization>(
    useQuery(trpc.organizations.list.queryOptions({ q: query, limit: 20 }, { enabled: query !== "" })),
    (org) => org.name,
  );
}

export const UserPicker = ({ label = "User", ...props }: PickerProps) => (
  <SearchPicker {...props} label={label} placeholder="Username, name or email" useMatches={useUserMatches} />
);

export const OrganizationPicker = ({ label = "Organization", ...props }: PickerProps) => (
  <SearchPicker
    {...props}
    label={label}
    placeholder="Name, display name or domain"
    useMatches={useOrganizationMatches}
  />
);

/** The roles of a scope to grant, less those `held`. */
export function RoleSelect({
  scope,
  label = "Role",
  held,
}: {
  scope: (typeof ROLE_SCOPES)[number];
  label?: string;
  held?: ReadonlySet<string>;
}) {
  const trpc = useTRPC();
  const roles = useQuery(roleChoicesOptions(trpc, scope));
  return (
    <SelectField
      name="role_id"
      label={label}
      subject="Role"
      options={[
        { value: "", label: roles.isPending ? "Loading roles…" : "Pick a role" },
        ...(roles.data?.data ?? [])
          .filter((role) => !held?.has(role.id))
          .map((role) => ({
            value: role.id,
            label: role.description ? `${role.name} — ${role.description}` : role.name,
          })),
      ]}
    />
  );
}
