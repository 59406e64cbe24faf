"use client";

import type { InfiniteData, UseInfiniteQueryResult, UseQueryResult } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ConfirmDialog } from "./confirm-dialog";
import { Dialog } from "./dialog";
import { FilterBar, NoMatch, type FilterState } from "./filter-bar";
import { HeadedSection } from "./page-header";
import { EmptyState, ErrorState, LoadingState, Notice } from "./states";
import { primaryButton } from "./styles";
import { DataTable, RowActions, type Column, type RowActionSpec } from "./table";

// The console's recurring screen part: a list (loading, failed, empty, a table a page at a time),
// a create/edit dialog, a confirmation before deleting, and the line that says what just happened.
// An empty list says one of two things: "nothing yet", with the screen's primary action when the
// viewer may take it; or, only while a filter or search is applied, that nothing matches, with
// "Clear filters".

/** A list query's rows and states, whether it reads one page or pages on "Show more". */
interface ListState<T> {
  items: T[];
  isPending: boolean;
  isError: boolean;
  error: unknown;
  isFetching: boolean;
  refetch: () => unknown;
  more?: { visible: boolean; loading: boolean; onClick: () => void };
}

type ListQuery<T> =
  UseQueryResult<{ data: T[] }, unknown> | UseInfiniteQueryResult<InfiniteData<{ data: T[] }, unknown>, unknown>;

function rowsOf<T>(query: ListQuery<T>): ListState<T> {
  const state = {
    isPending: query.isPending,
    isError: query.isError,
    error: query.error,
    isFetching: query.isFetching,
    refetch: () => query.refetch(),
  };
  if ("fetchNextPage" in query) {
    return {
      ...state,
      items: query.data?.pages.flatMap((page) => page.data) ?? [],
      more: {
        visible: query.hasNextPage,
        loading: query.isFetchingNextPage,
        onClick: () => void query.fetchNextPage(),
      },
    };
  }
  return { ...state, items: query.data?.data ?? [] };
}

/** The line a screen says what just happened in: a polite status, or an alert when it failed. */
export function useNotice() {
  const [notice, setNotice] = useState({ text: "", error: false });
  return {
    ...notice,
    say: (text: string) => setNotice({ text, error: false }),
    fail: (text: string) => setNotice({ text, error: true }),
  };
}
export type NoticeState = ReturnType<typeof useNotice>;

interface ListViewProps<T> {
  /** The list query: one page, or pages on "Show more". */
  query: ListQuery<T>;
  /** The table's name for screen readers. */
  caption: string;
  /** What the rows are, for "Loading …" and "The … could not be loaded." (default: the caption). */
  noun?: string;
  columns: readonly Column[];
  /** Default: the item's id. */
  rowKey?: (item: T) => string | number;
  row: (item: T) => ReactNode;
  /** The list without filters and nothing in it yet: what it will hold, and its primary action. */
  empty: { title: string; body?: ReactNode; action?: ReactNode };
  /** The list's filters (./filter-bar.tsx): while any is applied, an empty list says nothing matches. */
  filters?: FilterState;
  /** The label of "Show more" under a paginated list. */
  moreLabel?: string;
}

const idOf = (item: unknown) => (item as { id: string | number }).id;
/** "LLM configs" stays, "Models" reads "models" inside a sentence. */
const inSentence = (text: string) => (/^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text);

/** A list's table, or what stands for it while it loads, when it failed or is empty. */
export function ListView<T>({
  query,
  caption,
  noun = inSentence(caption),
  columns,
  rowKey = idOf,
  row,
  empty,
  filters,
  moreLabel = `Show more ${noun}`,
}: ListViewProps<T>) {
  const list = rowsOf(query);
  if (list.isPending) return <LoadingState label={`Loading ${noun}…`} />;
  if (list.isError && list.items.length === 0)
    return <ErrorState title={`The ${noun} could not be loaded.`} error={list.error} onRetry={list.refetch} />;
  if (list.items.length === 0 && filters?.active) return <NoMatch noun={noun} filters={filters} />;
  if (list.items.length === 0) return <EmptyState title={empty.title} body={empty.body} action={empty.action} />;
  return (
    <DataTable
      caption={caption}
      columns={columns}
      busy={list.isFetching}
      more={list.more && { ...list.more, label: moreLabel }}
    >
      {list.items.map((item) => (
        <tr key={rowKey(item)}>{row(item)}</tr>
      ))}
    </DataTable>
  );
}

/**
 * A screen that is one filtered list: its heading with the primary action (repeated in the empty
 * list), the filter bar (its search, then `filterFields`), and the list a page at a time.
 */
export function ListScreen<T>({
  title,
  description,
  action,
  placeholder,
  filters,
  filterFields,
  children,
  ...list
}: Omit<ListViewProps<T>, "caption" | "filters"> & {
  title: string;
  description: ReactNode;
  action: ReactNode;
  /** What the search matches. */
  placeholder: string;
  filters: FilterState & { searchText?: string; setSearchText: (text: string) => void };
  filterFields?: ReactNode;
  /** The screen's dialogs. */
  children?: ReactNode;
}) {
  return (
    <HeadedSection title={title} description={description} actions={action}>
      <FilterBar noun={inSentence(title)} filters={filters} placeholder={placeholder}>
        {filterFields}
      </FilterBar>

      <div className="mt-6">
        <ListView {...list} caption={title} filters={filters} empty={{ ...list.empty, action }} />
      </div>
      {children}
    </HeadedSection>
  );
}

/** What a create/edit form is handed: leave, or report what it did. */
export interface EditorControls {
  cancel: () => void;
  /** Says `message` on the screen and refreshes the list; the dialog closes unless `keepOpen`. */
  done: (message: string, options?: { keepOpen?: boolean }) => void;
}

interface ResourceSectionProps<T> extends Omit<ListViewProps<T>, "row" | "columns" | "caption"> {
  title: string;
  /** The table's name for screen readers (default: the title). */
  caption?: string;
  level?: 1 | 2;
  description?: ReactNode;
  className?: string;
  columns: readonly Column[];
  /** The cells of an item's row, its actions apart. */
  cells: (item: T) => ReactNode;
  /** How the row actions' accessible names name an item ("Delete acme"). */
  itemName: (item: T) => string;
  /** The row's actions; by default Edit (with an editor) and Delete (with `remove`). */
  actions?: (item: T, open: { edit: () => void; remove: () => void }) => RowActionSpec[];
  editLabel?: string;
  removeLabel?: string;
  /** The header's button that opens the editor on a new item, repeated in the empty list. */
  create?: { label: string };
  editor?: {
    /** Only creates: the rows have no Edit. */
    createOnly?: boolean;
    title: (item: T | null) => string;
    description?: (item: T | null) => ReactNode;
    form: (item: T | null, controls: EditorControls) => ReactNode;
  };
  remove?: {
    title: (item: T) => string;
    body: (item: T) => ReactNode;
    confirmLabel: string;
    pendingLabel?: string;
    run: (item: T) => Promise<unknown>;
    /** What the screen says once it is done. */
    notice: (item: T) => string;
  };
  /** Refetches what a change affects. */
  refresh: () => unknown;
  /** The screen's notice line (default: one of its own); a function hands the notices to the page instead. */
  notice?: NoticeState | ((text: string) => void);
  /** Other actions in the header, after the create button. */
  headerActions?: ReactNode;
  /** Shown between the header and the list: a warning, filters. */
  before?: ReactNode;
  /** More dialogs. */
  children?: ReactNode;
}

export function ResourceSection<T>(props: ResourceSectionProps<T>) {
  const {
    title,
    caption = title,
    level = 2,
    description,
    className,
    columns,
    cells,
    itemName,
    actions,
    editLabel = "Edit",
    removeLabel = "Delete",
    create,
    editor,
    remove,
    refresh,
    headerActions,
    before,
    children,
  } = props;
  const own = useNotice();
  const notice = props.notice ?? own;
  const say = typeof notice === "function" ? notice : notice.say;
  const [editing, setEditing] = useState<{ item: T | null } | null>(null);
  const [removing, setRemoving] = useState<T | null>(null);

  const createButton = create && editor && (
    <button type="button" onClick={() => setEditing({ item: null })} className={primaryButton}>
      {create.label}
    </button>
  );
  const rowActions = (item: T): RowActionSpec[] => {
    const open = { edit: () => setEditing({ item }), remove: () => setRemoving(item) };
    if (actions) return actions(item, open);
    return [
      ...(editor && !editor.createOnly
        ? [{ label: editLabel, ariaLabel: `${editLabel} ${itemName(item)}`, onClick: open.edit }]
        : []),
      ...(remove
        ? [{ label: removeLabel, ariaLabel: `${removeLabel} ${itemName(item)}`, onClick: open.remove, danger: true }]
        : []),
    ];
  };
  const withActions = Boolean(actions || (editor && !editor.createOnly) || remove);
  const controls: EditorControls = {
    cancel: () => setEditing(null),
    done: (message, options) => {
      if (!options?.keepOpen) setEditing(null);
      say(message);
      void refresh();
    },
  };

  return (
    <HeadedSection
      title={title}
      level={level}
      description={description}
      className={className}
      actions={
        (createButton || headerActions) && (
          <div className="flex flex-wrap gap-2">
            {createButton}
            {headerActions}
          </div>
        )
      }
    >
      {before}
      {typeof notice !== "function" && (
        <div className="mt-4">
          <Notice text={notice.text} error={notice.error} />
        </div>
      )}
      <div className="mt-2">
        <ListView
          {...props}
          caption={caption}
          empty={{ ...props.empty, action: props.empty.action ?? createButton }}
          columns={withActions ? [...columns, { label: "Actions", hidden: true }] : columns}
          row={(item) => (
            <>
              {cells(item)}
              {withActions && <RowActions actions={rowActions(item)} />}
            </>
          )}
        />
      </div>

      {editor && (
        <Dialog
          open={editing !== null}
          onClose={() => setEditing(null)}
          title={editor.title(editing?.item ?? null)}
          description={editor.description?.(editing?.item ?? null)}
        >
          {editing && editor.form(editing.item, controls)}
        </Dialog>
      )}
      {remove && (
        <ConfirmDialog
          subject={removing}
          title={remove.title}
          body={remove.body}
          confirmLabel={remove.confirmLabel}
          pendingLabel={remove.pendingLabel ?? "Deleting…"}
          onClose={() => setRemoving(null)}
          run={remove.run}
          onDone={(item) => {
            setRemoving(null);
            say(remove.notice(item));
            void refresh();
          }}
        />
      )}
      {children}
    </HeadedSection>
  );
}
