import type { ReactNode } from "react";
import { ShowMore } from "./states";

// The console's tables: a framed, horizontally scrolling table with a header row, and under it the
// "Show more" of a paginated list.

const th = "px-3 py-2 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300";
export const td = "px-3 py-3 align-top text-sm";
const tableFrame =
  "relative overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900";
const tableClass = "min-w-full divide-y divide-slate-200 dark:divide-slate-800";
const tbodyClass = "divide-y divide-slate-200 dark:divide-slate-800";
const theadClass = "bg-slate-50 dark:bg-slate-950";
const rowAction =
  "rounded-md px-2 py-1 text-sm font-medium whitespace-nowrap text-brand-700 hover:bg-brand-50 dark:text-brand-300 dark:hover:bg-slate-800";
const dangerRowAction =
  "rounded-md px-2 py-1 text-sm font-medium whitespace-nowrap text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950";

/** A cell of a row. */
export function Cell({ className, children }: { className?: string; children: ReactNode }) {
  return <td className={className ? `${td} ${className}` : td}>{children}</td>;
}

/** A column heading; a hidden one (a row's actions) is named for screen readers only. */
export type Column = string | { label: string; hidden: true };

interface DataTableProps {
  columns: readonly Column[];
  /** The table's name for screen readers. */
  caption?: string;
  /** While the rows are being refetched. */
  busy?: boolean;
  /** The rows. */
  children: ReactNode;
  /** The "Show more" under a paginated table. */
  more?: { visible: boolean; loading: boolean; onClick: () => void; label: string };
}

export function DataTable({ columns, caption, busy, children, more }: DataTableProps) {
  return (
    <>
      <div className={tableFrame}>
        <table className={tableClass} aria-busy={busy}>
          {caption && <caption className="sr-only">{caption}</caption>}
          <thead className={theadClass}>
            <tr>
              {columns.map((column) =>
                typeof column === "string" ? (
                  <th key={column} scope="col" className={th}>
                    {column}
                  </th>
                ) : (
                  <th key={column.label} scope="col" className={th}>
                    <span className="sr-only">{column.label}</span>
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody className={tbodyClass}>{children}</tbody>
        </table>
      </div>
      {more && <ShowMore {...more} />}
    </>
  );
}

export type RowActionSpec = {
  label: string;
  /** What screen readers hear: the action and the row it acts on ("Delete acme"). */
  ariaLabel: string;
  danger?: boolean;
} & (
  | { onClick: () => void }
  /** A page to open in a new tab (a round trip through another site that should not take this page away). */
  | { newTabHref: string }
);

/** The last cell of a row: its actions as buttons, or links for those that open a new tab. */
export function RowActions({ actions }: { actions: readonly RowActionSpec[] }) {
  return (
    <td className={`${td} text-right whitespace-nowrap`}>
      {actions.map((action) => {
        const className = action.danger ? dangerRowAction : rowAction;
        return "newTabHref" in action ? (
          <a
            key={action.label}
            href={action.newTabHref}
            target="_blank"
            rel="noopener"
            className={`inline-block ${className}`}
            aria-label={action.ariaLabel}
          >
            {action.label}
          </a>
        ) : (
          <button
            key={action.label}
            type="button"
            onClick={action.onClick}
            className={className}
            aria-label={action.ariaLabel}
          >
            {action.label}
          </button>
        );
      })}
    </td>
  );
}
