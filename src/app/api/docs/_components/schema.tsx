import type { ReactNode } from "react";
import { exampleOf, fieldRows, type JsonSchema } from "./model";
import { CodeBlock, Inline } from "./text";

// A schema shown three ways: a field table to read, a generated example to copy, and the raw
// JSON Schema (collapsed) for the exact rules; and the table parts the reference's other tables
// (parameters, error codes) are made of.

const tableClass = "mt-3 w-full border-collapse text-left text-sm";
const thClass =
  "border-b border-slate-200 px-3 py-2 text-xs font-semibold uppercase tracking-wider text-slate-500 dark:border-slate-700 dark:text-slate-400";
export const tdClass = "border-b border-slate-100 px-3 py-2 align-top break-words dark:border-slate-800";

function RequiredMark({ required }: { required: boolean }) {
  return required ? (
    <span className="text-xs font-semibold text-amber-700 dark:text-amber-300">required</span>
  ) : (
    <span className="text-xs text-slate-500 dark:text-slate-400">optional</span>
  );
}

/** A reference table: its caption for screen readers, its column headings, then its rows. */
export function DocTable({
  caption,
  columns,
  className,
  children,
}: {
  caption: ReactNode;
  columns: readonly string[];
  /** Added to the scrolling wrapper's classes (spacing). */
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className ? `relative ${className} overflow-x-auto` : "relative overflow-x-auto"}>
      <table className={tableClass}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={thClass}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A row's first cell: a field's or a parameter's name, indented by its depth in the schema. */
export function NameCell({ name, depth }: { name: string; depth?: number }) {
  return (
    <th scope="row" className={`${tdClass} font-normal`}>
      <code
        className="font-mono text-[0.8125rem] text-slate-900 dark:text-slate-100"
        style={depth === undefined ? undefined : { paddingInlineStart: `${depth * 0.75}rem` }}
      >
        {name}
      </code>
    </th>
  );
}

export function NotesCell({ children }: { children: ReactNode }) {
  return <td className={`${tdClass} text-slate-600 dark:text-slate-300`}>{children}</td>;
}

/** The type, required and notes cells that a field and a parameter both have. */
export function TypeRequiredNotesCells({ type, required, notes }: { type: string; required: boolean; notes: string }) {
  return (
    <>
      <td className={`${tdClass} font-mono text-[0.8125rem] text-slate-600 dark:text-slate-300`}>{type}</td>
      <td className={tdClass}>
        <RequiredMark required={required} />
      </td>
      <NotesCell>
        <Inline text={notes} />
      </NotesCell>
    </>
  );
}

/** A JSON Schema in full, collapsed under its summary. */
export function RawSchema({ schema, children }: { schema: unknown; children: ReactNode }) {
  return (
    <details className="group mt-3 rounded-lg border border-slate-200 dark:border-slate-800">
      <summary className="cursor-pointer select-none px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 dark:text-slate-300 dark:hover:bg-slate-900">
        {children}
      </summary>
      <pre className="whitespace-pre-wrap border-t border-slate-200 p-3 font-mono text-xs leading-5 text-slate-700 wrap-anywhere dark:border-slate-800 dark:text-slate-300">
        <code>{JSON.stringify(schema, null, 2)}</code>
      </pre>
    </details>
  );
}

function FieldTable({ schema, caption }: { schema: JsonSchema; caption: string }) {
  const rows = fieldRows(schema);
  if (rows.length === 0) return null;
  return (
    <DocTable caption={caption} columns={["Field", "Type", "Required", "Notes"]}>
      {rows.map((row) => (
        <tr key={row.path}>
          <NameCell name={row.path} depth={row.depth} />
          <TypeRequiredNotesCells type={row.type} required={row.required} notes={row.description} />
        </tr>
      ))}
    </DocTable>
  );
}

/** Field table, example and raw schema of a request or response body. */
export function SchemaView({
  schema,
  name,
  exampleLabel,
  request = false,
}: {
  schema: JsonSchema;
  /** What the body is, for accessible names: "Request body of createApiKey". */
  name: string;
  exampleLabel: string;
  /** A request body: say when unknown fields are refused. */
  request?: boolean;
}) {
  const strict = request && schema.additionalProperties === false;
  return (
    <>
      <FieldTable schema={schema} caption={`Fields of the ${name}`} />
      <CodeBlock label={exampleLabel} code={JSON.stringify(exampleOf(schema), null, 2)} />
      <RawSchema schema={schema}>
        JSON Schema of the {name}
        {strict ? (
          <span className="ml-2 font-normal text-slate-500 dark:text-slate-400">(unknown fields are refused)</span>
        ) : null}
      </RawSchema>
    </>
  );
}
