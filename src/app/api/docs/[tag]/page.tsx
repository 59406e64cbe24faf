/* eslint-disable @next/next/no-html-link-for-pages -- the reference's pages are whole documents: no client router, no prefetching of every tag */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { tagGroups } from "../_components/model";
import { OperationSection } from "../_components/operation";
import { DocsShell, tagPath } from "../_components/shell";
import { Inline } from "../_components/text";
import { openApiDocument } from "@/server/rest/openapi";

// One tag of the API reference (/api/docs/organizations, …): each of its operations in full,
// rendered at build time like the reference's first page.

export const dynamic = "force-static";
export const dynamicParams = false;

const groupOf = (tag: string) => tagGroups(openApiDocument()).find((group) => tagPath(group) === `/api/docs/${tag}`);

export function generateStaticParams() {
  return tagGroups(openApiDocument()).map((group) => ({ tag: tagPath(group).split("/").pop() as string }));
}

export async function generateMetadata({ params }: { params: Promise<{ tag: string }> }): Promise<Metadata> {
  const group = groupOf((await params).tag);
  return { title: `${group?.name ?? "API"} — API reference — svc control plane`, description: group?.description };
}

export default async function ApiDocsTagPage({ params }: { params: Promise<{ tag: string }> }) {
  const groups = tagGroups(openApiDocument());
  const group = groupOf((await params).tag);
  if (!group) notFound();
  return (
    <DocsShell groups={groups} current={group}>
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-600 dark:text-brand-300">
        <a href="/api/docs" className="hover:underline">
          API reference
        </a>
      </p>
      <h1 id={group.slug} className="mt-2 text-4xl font-bold tracking-tight">
        {group.name}
      </h1>
      <p className="mt-4 max-w-3xl leading-7 text-slate-600 dark:text-slate-300">
        <Inline text={group.description} />
      </p>
      <div className="mt-8 space-y-8">
        {group.operations.map((operation) => (
          <OperationSection key={operation.id} operation={operation} />
        ))}
      </div>
    </DocsShell>
  );
}
