/* eslint-disable @next/next/no-html-link-for-pages -- the reference's pages are whole documents: no client router, no prefetching of every tag */
import type { ReactNode } from "react";
import { SiteHeader } from "@/components/site/site-header";
import { docsPathOfTag } from "@/server/rest/docs-paths";
import type { TagGroup } from "./model";
import { MethodBadge } from "./text";

// The frame of every page of the API reference: the header, a table of contents of the whole
// reference (the guide, each tag's page, the errors, and the operations: every one on the first page,
// the tag's own on a tag's page, which keeps each page small as the API grows), the page's content,
// and the script that keeps the table of contents on the part being read (public/api-docs.js).

/** Where a tag's operations are described in full. */
export const tagPath = (group: Pick<TagGroup, "name">) => docsPathOfTag(group.name);

const GUIDE = [
  { id: "authentication", title: "Authentication" },
  { id: "requests", title: "Requests and responses" },
  { id: "pagination", title: "Pagination" },
  { id: "errors-and-request-ids", title: "Errors and request ids" },
  { id: "first-request", title: "Your first request" },
  { id: "typed-client", title: "A typed client" },
] as const;

const tocLink =
  "block rounded px-2 py-1 text-slate-600 hover:bg-slate-100 hover:text-slate-900 aria-[current=location]:bg-brand-50 aria-[current=location]:text-brand-700 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white dark:aria-[current=location]:bg-brand-900/60 dark:aria-[current=location]:text-white";
const tocHeading = `${tocLink} font-semibold text-slate-900 dark:text-white`;

/** `current`: the tag page's group, whose operations alone are listed; none: every group's. */
function Contents({ groups, current }: { groups: TagGroup[]; current?: TagGroup }) {
  return (
    <nav
      aria-label="Table of contents"
      data-toc
      className="mb-10 text-sm lg:sticky lg:top-0 lg:mb-0 lg:max-h-screen lg:self-start lg:overflow-y-auto lg:py-4"
    >
      <p className="px-2 text-xs font-semibold uppercase tracking-wider text-slate-500 dark:text-slate-400">Contents</p>
      <ul className="mt-2 space-y-4">
        <li>
          <a href="/api/docs#getting-started" className={tocHeading}>
            Getting started
          </a>
          <ul className="mt-1">
            {GUIDE.map((item) => (
              <li key={item.id}>
                <a href={`/api/docs#${item.id}`} className={tocLink}>
                  {item.title}
                </a>
              </li>
            ))}
          </ul>
        </li>
        {groups.map((group) => (
          <li key={group.slug}>
            <a href={tagPath(group)} className={tocHeading}>
              {group.name}
            </a>
            {(current === undefined || current.slug === group.slug) && (
              <ul className="mt-1">
                {group.operations.map((operation) => (
                  <li key={operation.id}>
                    <a href={`${tagPath(group)}#${operation.id}`} className={`${tocLink} flex items-start gap-2`}>
                      <MethodBadge method={operation.method} small />
                      <span className="min-w-0 wrap-anywhere">{operation.summary}</span>
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
        <li>
          <a href="/api/docs#errors" className={tocHeading}>
            Errors
          </a>
        </li>
      </ul>
    </nav>
  );
}

export function DocsShell({
  groups,
  current,
  children,
}: {
  groups: TagGroup[];
  current?: TagGroup;
  children: ReactNode;
}) {
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-10 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:shadow dark:focus:bg-slate-900"
      >
        Skip to content
      </a>
      <SiteHeader width="max-w-7xl" link={{ href: "/api/openapi.json", label: "OpenAPI JSON" }} />

      <div className="mx-auto w-full max-w-7xl flex-1 px-6 py-10 lg:grid lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-10">
        <Contents groups={groups} current={current} />
        <main id="content" className="min-w-0">
          {children}
        </main>
      </div>

      <footer className="border-t border-slate-200 py-6 text-center text-sm text-slate-500 dark:border-slate-800 dark:text-slate-400">
        svc — multi-tenant orchestrator hosting ·{" "}
        <a href="/api/openapi.json" className="hover:underline">
          OpenAPI document
        </a>
      </footer>
      {/* Plain script of our own (no framework): the reference works without it. */}
      <script src="/api-docs.js" defer />
    </div>
  );
}
