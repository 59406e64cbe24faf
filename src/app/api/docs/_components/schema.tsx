import { exampleOf, fieldRows, type JsonSchema } from "./model";
import { CodeBlock, Inline } from "./text";

// A schema shown three ways: a field table to read, a generated example to copy, and the raw
// JSON Schema (collapsed) for the exact rules.

export const tableClass = "mt-3 w-full border-collapse text-left text-sm";
export const thClass =
  "border-b border-slate-200 px-3 py-2 text-xs font-semibold uppercase tracking-wider text-slate-500 dark:border-slate-700 dark:text-slate-400";
export const tdClass = "border-b border-slate-100 px-3 py-2 align-top break-words dark:border-slate-800";

export function RequiredMark({ required }: { required: boolean }) {
  return required ? (
    <span className="text-xs font-semibold text-amber-700 dark:text-amber-300">required</span>
  ) : (
    <span className="text-xs text-slate-500 dark:text-slate-400">optional</span>
  );
}

export function FieldTable({ schema, caption }: { schema: JsonSchema; caption: string }) {
  const rows = fieldRows(schema);
  if (rows.length === 0) return null;
  return (
    <div className="relative overflow-x-auto">
      <table className={tableClass}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" className={thClass}>
              Field
            </th>
            <th scope="col" className={thClass}>
              Type
            </th>
            <th scope="col" className={thClass}>
              Required
            </th>
            <th scope="col" className={thClass}>
              Notes
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path}>
              <th scope="row" className={`${tdClass} font-normal`}>
                <code
                  className="font-mono text-[0.8125rem] text-slate-900 dark:text-slate-100"
                  style={{ paddingInlineStart: `${row.depth * 0.75}rem` }}
                >
                  {row.path}
                </code>
              </th>
              <td className={`${tdClass} font-mono text-[0.8125rem] text-slate-600 dark:text-slate-300`}>{row.type}</td>
              <td className={tdClass}>
                <RequiredMark required={row.required} />
              </td>
              <td className={`${tdClass} text-slate-600 dark:text-slate-300`}>
                <Inline text={row.description} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
      <details className="group mt-3 rounded-lg border border-slate-200 dark:border-slate-800">
        <summary className="cursor-pointer select-none px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 dark:text-slate-300 dark:hover:bg-slate-900">
          JSON Schema of the {name}
          {strict ? (
            <span className="ml-2 font-normal text-slate-500 dark:text-slate-400">(unknown fields are refused)</span>
          ) : null}
        </summary>
        <pre className="whitespace-pre-wrap border-t border-slate-200 p-3 font-mono text-xs leading-5 text-slate-700 wrap-anywhere dark:border-slate-800 dark:text-slate-300">
          <code>{JSON.stringify(schema, null, 2)}</code>
        </pre>
      </details>
    </>
  );
}
