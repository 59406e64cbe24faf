"use client";

import { useId, useState, type ReactNode } from "react";
import { EmptyState } from "./states";
import { inputClass, labelClass, secondaryButton } from "./styles";
import { useDebounced } from "./use-debounced";

// The one filter bar of the console's lists: under the screen's heading, a search that filters as
// the user types (once typing pauses) and, beside it, the list's other filters. What is applied
// tells the list whether to say "nothing yet" or "nothing matches" (./resource-section.tsx).

type FilterValue = string | boolean | undefined;

const trimmed = (value: FilterValue) => (typeof value === "string" ? value.trim() : value);

/**
 * What a list is filtered by, as the bar shows it and as the list is read with it. The typed filters
 * (`typed`: the search `q`, unless told otherwise) apply trimmed once typing pauses, or at once when
 * emptied; the others (choices, checkboxes) at once.
 */
// Constrained by unknown, not FilterValue, so that `{ include_deleted: false }` types a boolean, not false.
export function useListFilters<F extends Record<string, unknown>>(none: F, typed: readonly string[] = ["q"]) {
  const [values, setValues] = useState(none);
  const typedKeys = typed.filter((key) => key in none);
  // Serialized, so that the pause is waited for only when what was typed changes.
  const paused = JSON.parse(
    useDebounced(
      JSON.stringify(Object.fromEntries(typedKeys.map((key) => [key, trimmed(values[key] as FilterValue)]))),
    ),
  ) as Partial<F>;
  const applied: F = { ...values };
  for (const key of typedKeys as (keyof F)[]) {
    const now = trimmed(values[key] as FilterValue) as F[keyof F];
    applied[key] = now ? ((paused[key] ?? none[key]) as F[keyof F]) : now;
  }
  const active = Object.keys({ ...none, ...applied }).some((key) => applied[key] !== none[key]);
  const search = typeof applied.q === "string" && applied.q !== "" ? applied.q : undefined;
  const set = <K extends keyof F>(key: K, value: F[K]) => setValues((current) => ({ ...current, [key]: value }));
  return {
    /** The filters as the bar shows them (typed ones as typed). */
    values,
    /** The filters the list is read with. */
    applied,
    active,
    /** The applied search, which the no-match state quotes. */
    search,
    /** The search as typed; undefined when the list has no search. */
    searchText: typeof values.q === "string" ? values.q : undefined,
    setSearchText: (text: string) => setValues((current) => ({ ...current, q: text })),
    set,
    /** One filter's value and its change, for a choice (Segmented) that sets it. */
    choice: <K extends keyof F>(key: K) => ({ value: values[key], onChange: (value: F[K]) => set(key, value) }),
    clear: () => setValues(none),
  };
}

export type ListFilters<F extends Record<string, unknown>> = ReturnType<typeof useListFilters<F>>;

/** What a list needs of its filters to say that nothing matches, and to offer clearing them. */
export interface FilterState {
  active: boolean;
  search?: string;
  clear: () => void;
}

/**
 * The landmark "Filter <noun>": the search box "Search <noun>" (when the filters have a `q`),
 * then the other filters (`children`: Segmented, SelectField, CheckboxField).
 */
export function FilterBar({
  noun,
  filters,
  placeholder,
  children,
}: {
  /** What the list holds, in a sentence: "users", "API keys". */
  noun: string;
  filters: { searchText?: string; setSearchText: (text: string) => void };
  /** What the search matches: "Username, name or email". */
  placeholder?: string;
  children?: ReactNode;
}) {
  const id = useId();
  return (
    <div role="search" aria-label={`Filter ${noun}`} className="mt-4 flex flex-wrap items-end gap-x-6 gap-y-4">
      {filters.searchText !== undefined && (
        <div className="w-full max-w-sm">
          <label htmlFor={id} className={labelClass}>
            Search {noun}
          </label>
          <input
            id={id}
            type="search"
            value={filters.searchText}
            onChange={(event) => filters.setSearchText(event.target.value)}
            placeholder={placeholder}
            autoComplete="off"
            className={`${inputClass} mt-1`}
          />
        </div>
      )}
      {children}
    </div>
  );
}

/** The empty list of an applied filter or search: says so, and offers to clear them. */
export function NoMatch({ noun, filters }: { noun: string; filters: FilterState }) {
  return (
    <EmptyState
      title={filters.search ? `No ${noun} match “${filters.search}”.` : `No ${noun} match these filters.`}
      body="Change the search or the filters, or clear them to see the whole list."
      action={
        <button type="button" onClick={filters.clear} className={secondaryButton}>
          Clear filters
        </button>
      }
    />
  );
}
