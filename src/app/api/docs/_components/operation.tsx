import { accessText } from "@/server/rest/openapi";
import { curlCommand, errorAnchor, statusText, type Operation } from "./model";
import { DocTable, NameCell, SchemaView, TypeRequiredNotesCells, tdClass } from "./schema";
import { CodeBlock, Inline, MethodBadge, Paragraphs, codeClass } from "./text";

// One operation of the reference: what it does, who may call it, what it takes and answers.

const h4Class = "mt-6 text-sm font-semibold text-slate-900 dark:text-white";

export function OperationSection({ operation }: { operation: Operation }) {
  const headingId = `${operation.id}-heading`;
  const { success } = operation;
  return (
    <article
      id={operation.id}
      aria-labelledby={headingId}
      className="scroll-mt-6 rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h3 id={headingId} className="text-lg font-semibold tracking-tight">
        <a href={`#${operation.id}`} className="hover:underline">
          {operation.summary}
        </a>
      </h3>
      <p className="mt-2 flex flex-wrap items-center gap-2">
        <MethodBadge method={operation.method} />
        <code className="font-mono text-sm font-medium text-slate-800 wrap-anywhere dark:text-slate-200">
          {operation.path}
        </code>
      </p>

      <div className="mt-4 space-y-3 leading-7 text-slate-600 dark:text-slate-300">
        <Paragraphs text={operation.paragraphs} />
      </div>

      <dl className="mt-4 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium text-slate-900 dark:text-white">Access</dt>
        <dd className="text-slate-600 dark:text-slate-300">
          <Inline text={accessText(operation.access)} />
        </dd>
        {typeof operation.access === "object" ? (
          <>
            <dt className="font-medium text-slate-900 dark:text-white">Permission</dt>
            <dd>
              <code className={codeClass}>{operation.access.permission}</code>
            </dd>
          </>
        ) : null}
        <dt className="font-medium text-slate-900 dark:text-white">Success</dt>
        <dd className="text-slate-600 dark:text-slate-300">
          <span className="font-mono font-semibold text-emerald-700 dark:text-emerald-300">{success.status}</span>{" "}
          {statusText(success.status)}
          {success.secret ? (
            <>
              {" "}
              — holds a secret, shown this once: sent with <code className={codeClass}>Cache-Control: no-store</code>
            </>
          ) : null}
        </dd>
        <dt className="font-medium text-slate-900 dark:text-white">Operation id</dt>
        <dd>
          <code className={codeClass}>{operation.id}</code>
        </dd>
      </dl>

      {operation.parameters.length > 0 ? (
        <div>
          <h4 id={`${operation.id}-parameters`} className={h4Class}>
            Parameters
          </h4>
          <DocTable
            caption={`Parameters of ${operation.summary}`}
            columns={["Name", "In", "Type", "Required", "Description"]}
          >
            {operation.parameters.map((parameter) => (
              <tr key={`${parameter.in}:${parameter.name}`}>
                <NameCell name={parameter.name} />
                <td className={`${tdClass} text-slate-600 dark:text-slate-300`}>{parameter.in}</td>
                <TypeRequiredNotesCells
                  type={parameter.type}
                  required={parameter.required}
                  notes={parameter.description}
                />
              </tr>
            ))}
          </DocTable>
        </div>
      ) : null}

      {operation.requestBody ? (
        <div>
          <h4 id={`${operation.id}-request`} className={h4Class}>
            Request body{" "}
            <span className="font-normal text-slate-500 dark:text-slate-400">
              ({operation.requestBody.contentType})
            </span>
          </h4>
          <SchemaView
            schema={operation.requestBody.schema}
            name={`request body of ${operation.id}`}
            exampleLabel="Example request body"
            request
          />
        </div>
      ) : null}

      {Object.keys(success.schema).length > 0 ? (
        <div>
          <h4 id={`${operation.id}-response`} className={h4Class}>
            Response{" "}
            <span className="font-normal text-slate-500 dark:text-slate-400">
              ({success.status} {statusText(success.status)}, {success.contentType})
            </span>
          </h4>
          <SchemaView
            schema={success.schema}
            name={`${success.status} response of ${operation.id}`}
            exampleLabel="Example response"
          />
        </div>
      ) : null}

      {operation.errors.length > 0 ? (
        <div>
          <h4 id={`${operation.id}-errors`} className={h4Class}>
            Errors <span className="font-normal text-slate-500 dark:text-slate-400">(application/problem+json)</span>
          </h4>
          <ul className="mt-2 space-y-1 text-sm">
            {operation.errors.map((group) => (
              <li key={group.status} className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
                <span className="w-10 font-mono font-semibold text-red-700 dark:text-red-300">{group.status}</span>
                {group.codes.map((code) => (
                  <a
                    key={code}
                    href={`/api/docs#${errorAnchor(code)}`}
                    className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.8125rem] text-brand-700 hover:underline dark:bg-slate-800 dark:text-brand-300"
                  >
                    {code}
                  </a>
                ))}
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      <CodeBlock label="Example request" code={curlCommand(operation)} />
    </article>
  );
}
