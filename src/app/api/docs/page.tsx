import type { Metadata } from "next";
import type { ReactNode } from "react";
import { errorAnchor, exampleOf, statusText, tagGroups, type JsonSchema } from "./_components/model";
import { DocsShell, tagPath } from "./_components/shell";
import { DocTable, NotesCell, RawSchema, tdClass } from "./_components/schema";
import { CodeBlock, Inline, MethodBadge, Paragraphs, codeClass } from "./_components/text";
import { TYPED_CLIENT, typedClientExample } from "./_components/typed-client";
import { ERROR_CODES, ERRORS } from "@/lib/errors";
import { DomainError } from "@/server/errors";
import { openApiDocument } from "@/server/rest/openapi";
import { problemBody } from "@/server/rest/problem";

// The API reference's first page, rendered at build time from the same OpenAPI document
// /api/openapi.json serves (no CDN, works offline): the guide, every operation by tag, each linking
// to its tag's page (/api/docs/<tag>) where it is described in full, and the error catalog.
// See docs/decisions/013-api-reference-by-tag.md.

export const dynamic = "force-static";

export const metadata: Metadata = {
  title: "API reference — svc control plane",
  description: "REST API reference of the svc control plane: authentication, pagination, errors and every operation.",
};

const sectionHeading = "scroll-mt-6 text-2xl font-bold tracking-tight";
const subHeading = "mt-8 scroll-mt-6 text-lg font-semibold";
const prose = "mt-3 leading-7 text-slate-600 dark:text-slate-300";
const linkClass = "font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-300";
/** Shown until the page's script puts the reader's own address in. */
const PLACEHOLDER_ORIGIN = "https://svc.example.com";

/** A top-level section of the page, labelled by its heading. */
function Section({
  id,
  title,
  className,
  children,
}: {
  id: string;
  title: string;
  className: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className={className}>
      <h2 id={id} className={sectionHeading}>
        {title}
      </h2>
      {children}
    </section>
  );
}

export default function ApiDocsPage() {
  const doc = openApiDocument();
  const groups = tagGroups(doc);
  const operations = groups.flatMap((g) => g.operations);
  const me = operations.find((o) => o.path === "/api/v1/me" && o.method === "GET");
  const createKey = operations.find((o) => o.id === "createApiKey");
  const codes = [...ERROR_CODES].sort((a, b) => ERRORS[a].status - ERRORS[b].status);
  const exampleProblem = problemBody(
    new DomainError("validation_failed", "The request is not valid.", {
      errors: [{ path: "scopes", message: "must list at least one scope" }],
    }),
  );
  const problemSchema = doc.components.schemas.Problem as JsonSchema;
  const clientExample = typedClientExample();

  // Links to an operation on this page (the reference's address before it was split) lead on to its tag's page.
  const operationPages = Object.fromEntries(groups.flatMap((g) => g.operations.map((o) => [o.id, tagPath(g)])));

  return (
    <DocsShell groups={groups}>
      <script
        type="application/json"
        id="operation-pages"
        dangerouslySetInnerHTML={{ __html: JSON.stringify(operationPages) }}
      />
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-600 dark:text-brand-300">
        API reference · version {doc.info.version}
      </p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight">{doc.info.title}</h1>
      <div className="mt-4 max-w-3xl space-y-3 text-lg leading-8 text-slate-600 dark:text-slate-300">
        <Paragraphs text={doc.info.description} />
      </div>
      <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">
        The machine-readable OpenAPI 3.1 document behind this page:{" "}
        <a href="/api/openapi.json" className={linkClass}>
          /api/openapi.json
        </a>
        .
      </p>

      <Section id="getting-started" title="Getting started" className="mt-12 max-w-3xl">
        <h3 id="authentication" className={subHeading}>
          Authentication
        </h3>
        <p className={prose}>
          Send an API key in the <code className={codeClass}>X-API-KEY</code> header:{" "}
          <code className={codeClass}>X-API-KEY: cdk_…</code>. Keys start with <code className={codeClass}>cdk_</code>,
          are created in the console
          {createKey ? (
            <>
              {" "}
              or with{" "}
              <a href={`${operationPages[createKey.id]}#${createKey.id}`} className={linkClass}>
                {createKey.method} {createKey.path}
              </a>
            </>
          ) : null}
          , and are shown once. Never put a key in <code className={codeClass}>Authorization: Bearer</code>: such a
          request is refused with{" "}
          <a href={`#${errorAnchor("unauthenticated")}`} className={linkClass}>
            unauthenticated
          </a>
          .
        </p>
        <p className={prose}>
          In a browser signed in to the console, the session cookie authenticates as well. A key acts with its scopes,
          minus the dangerous ones, intersected with what its owner holds at the time of the request.
        </p>

        <h3 id="requests" className={subHeading}>
          Requests and responses
        </h3>
        <ul className={`${prose} list-disc space-y-1 pl-5`}>
          <li>
            Bodies are JSON with <code className={codeClass}>snake_case</code> field names, sent as{" "}
            <code className={codeClass}>Content-Type: application/json</code>. Unknown fields are refused.
          </li>
          <li>
            Timestamps are ISO 8601 strings with an offset, e.g. <code className={codeClass}>2026-01-15T09:30:00Z</code>
            ; ids are UUIDs.
          </li>
          <li>
            Bodies over 1 MiB are refused with <code className={codeClass}>413</code>{" "}
            <a href={`#${errorAnchor("payload_too_large")}`} className={linkClass}>
              payload_too_large
            </a>
            .
          </li>
          <li>
            Responses that hold a secret (a new key&apos;s <code className={codeClass}>raw_key</code>) are sent with{" "}
            <code className={codeClass}>Cache-Control: no-store</code>.
          </li>
        </ul>

        <h3 id="pagination" className={subHeading}>
          Pagination
        </h3>
        <p className={prose}>
          List operations answer <code className={codeClass}>{`{"data": [...], "next_cursor": "..."}`}</code>. Ask for
          up to <code className={codeClass}>limit</code> items (1 to 100, default 50); while{" "}
          <code className={codeClass}>next_cursor</code> is not <code className={codeClass}>null</code>, pass it back as{" "}
          <code className={codeClass}>cursor</code> to get the next page. Cursors are opaque: do not build or edit them.
        </p>
        <CodeBlock
          label="Next page"
          code={`curl -sS "$SVC_URL/api/admin/users/api-keys?limit=20&cursor=$NEXT_CURSOR" \\\n  -H "X-API-KEY: $SVC_API_KEY"`}
        />

        <h3 id="errors-and-request-ids" className={subHeading}>
          Errors and request ids
        </h3>
        <p className={prose}>
          Every error is an RFC 9457 problem, <code className={codeClass}>application/problem+json</code>, with a
          stable, machine-readable <code className={codeClass}>code</code>: branch on the code, not on the{" "}
          <code className={codeClass}>detail</code> text. Its <code className={codeClass}>type</code> links to the
          code&apos;s entry in{" "}
          <a href="#errors" className={linkClass}>
            Errors
          </a>{" "}
          below.
        </p>
        <p className={prose}>
          Every response carries an <code className={codeClass}>X-Request-Id</code> header. Send your own (up to 128
          letters, digits, dots, underscores or hyphens) to have it echoed; otherwise the server assigns one. Quote it
          when reporting a problem.
        </p>

        <h3 id="first-request" className={subHeading}>
          Your first request
        </h3>
        <p className={prose}>
          Ask who you are:{" "}
          <a href={me ? `${operationPages[me.id]}#${me.id}` : "#operations"} className={linkClass}>
            GET /api/v1/me
          </a>{" "}
          answers with the key&apos;s user and the permissions it carries.
        </p>
        <div data-origin-example>
          <CodeBlock
            label="Request"
            code={
              <>
                export SVC_URL=
                {/* The address the reader is on, put in by public/api-docs.js (React leaves it be). */}
                <span data-origin suppressHydrationWarning>
                  {PLACEHOLDER_ORIGIN}
                </span>
                {[
                  "",
                  "export SVC_API_KEY=cdk_…   # your key",
                  "",
                  'curl -sS "$SVC_URL/api/v1/me" \\',
                  '  -H "X-API-KEY: $SVC_API_KEY"',
                ].join("\n")}
              </>
            }
          />
        </div>
        {me ? (
          <CodeBlock label="Response (200 OK)" code={JSON.stringify(exampleOf(me.success.schema), null, 2)} />
        ) : null}

        <h3 id="typed-client" className={subHeading}>
          A typed client
        </h3>
        <p className={prose}>
          Most integrations start from a client generated from{" "}
          <a href="/api/openapi.json" className={linkClass}>
            /api/openapi.json
          </a>
          . In TypeScript, three steps: generate the types with{" "}
          <a href="https://openapi-ts.dev/" className={linkClass}>
            openapi-typescript
          </a>
          , install <code className={codeClass}>openapi-fetch</code>, and call the API with paths, parameters and bodies
          the compiler checks. Error bodies are typed too: branch on <code className={codeClass}>error.code</code>.
        </p>
        <CodeBlock label="1. Generate the types" code={TYPED_CLIENT.generate} />
        <CodeBlock label="2. Install the client" code={TYPED_CLIENT.install} />
        <CodeBlock label={`3. Call the API (${TYPED_CLIENT.exampleFile.split("/").at(-1)})`} code={clientExample} />
        <CodeBlock label="Run it" code={TYPED_CLIENT.run} />
      </Section>

      <Section id="operations" title="Operations" className="mt-16">
        <p className={`${prose} max-w-3xl`}>
          By tag. Each tag&apos;s page describes its operations in full: who may call them, parameters, bodies, answers
          and errors.
        </p>
        {groups.map((group) => (
          <section key={group.slug} aria-labelledby={group.slug} className="mt-8 max-w-3xl">
            <h3 id={group.slug} className={subHeading}>
              <a href={tagPath(group)} className={linkClass}>
                {group.name}
              </a>
            </h3>
            <p className={prose}>
              <Inline text={group.description} />
            </p>
            <ul className="mt-3 space-y-1">
              {group.operations.map((operation) => (
                <li key={operation.id} className="flex items-start gap-2">
                  <MethodBadge method={operation.method} small />
                  <a href={`${tagPath(group)}#${operation.id}`} className="min-w-0 wrap-anywhere hover:underline">
                    <code className="font-mono text-sm">{operation.path}</code> — {operation.summary}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </Section>

      <Section id="errors" title="Errors" className="mt-16">
        <p className={`${prose} max-w-3xl`}>
          Every code an operation can answer with: its HTTP status and title, the members a problem with that code may
          carry besides <code className={codeClass}>type</code>, <code className={codeClass}>title</code>,{" "}
          <code className={codeClass}>status</code>, <code className={codeClass}>detail</code> and{" "}
          <code className={codeClass}>code</code>, and the headers it sets.
        </p>
        <div className="max-w-3xl">
          <CodeBlock
            label="Example problem"
            code={[
              `HTTP/1.1 ${exampleProblem.status} ${statusText(exampleProblem.status)}`,
              "Content-Type: application/problem+json",
              "X-Request-Id: 4b6f1a52-1c0e-4d7e-9a43-2f5d8c0b7e19",
              "",
              JSON.stringify(exampleProblem, null, 2),
            ].join("\n")}
          />
          <RawSchema schema={problemSchema}>JSON Schema of a problem</RawSchema>
        </div>

        <DocTable
          caption="Error codes with their HTTP status and title"
          columns={["Code", "Status", "Title", "Notes"]}
          className="mt-6"
        >
          {codes.map((code) => (
            <tr
              key={code}
              id={errorAnchor(code)}
              className="scroll-mt-6 target:bg-brand-50 dark:target:bg-brand-900/60"
            >
              <th scope="row" className={`${tdClass} font-normal`}>
                <a
                  href={`#${errorAnchor(code)}`}
                  className="font-mono text-[0.8125rem] text-slate-900 hover:underline dark:text-slate-100"
                >
                  {code}
                </a>
              </th>
              <td className={`${tdClass} whitespace-nowrap font-mono text-slate-600 dark:text-slate-300`}>
                {ERRORS[code].status} <span className="font-sans">{statusText(ERRORS[code].status)}</span>
              </td>
              <td className={tdClass}>{ERRORS[code].title}</td>
              <NotesCell>
                <Inline text={ERRORS[code].note} />
                {ERRORS[code].extensions.length > 0 ? (
                  <span className="mt-1 block">
                    Members: <Inline text={ERRORS[code].extensions.map((name) => `\`${name}\``).join(", ")} />
                  </span>
                ) : null}
                {ERRORS[code].headers.length > 0 ? (
                  <span className="mt-1 block">
                    Headers: <Inline text={ERRORS[code].headers.map((name) => `\`${name}\``).join(", ")} />
                  </span>
                ) : null}
              </NotesCell>
            </tr>
          ))}
        </DocTable>
      </Section>
    </DocsShell>
  );
}
