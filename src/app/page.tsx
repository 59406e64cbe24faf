import Link from "next/link";
import { SiteHeader } from "@/components/site/site-header";

const features = [
  {
    title: "Data model",
    body: "Organizations, users, roles and permissions, orchestrator instances, LLM configuration, plugins, conversations and API keys — one consistent, tenant-scoped model.",
  },
  {
    title: "sys_admin console",
    body: "Platform administrators provision tenant organizations, manage their members and roles, and configure and monitor each orchestrator instance.",
  },
  {
    title: "REST API",
    body: "Integrations call a versioned REST API authenticated with API keys, scoped to the organization that issued them.",
  },
] as const;

export default function HomePage() {
  return (
    <div className="flex min-h-screen flex-col">
      <SiteHeader width="max-w-5xl" link={{ href: "/api/docs", label: "API reference" }} home={false} />

      <main className="mx-auto w-full max-w-5xl flex-1 px-6 py-16">
        <section aria-labelledby="intro-heading" className="max-w-3xl">
          <p className="text-sm font-semibold uppercase tracking-wider text-brand-600 dark:text-brand-300">
            Control plane
          </p>
          <h1 id="intro-heading" className="mt-2 text-4xl font-bold tracking-tight sm:text-5xl">
            svc control plane
          </h1>
          <p className="mt-6 text-lg leading-8 text-slate-600 dark:text-slate-300">
            svc is a multi-tenant platform that hosts AI assistant apps —{" "}
            <strong className="font-semibold text-slate-900 dark:text-white">orchestrator instances</strong> — for
            tenant organizations. This is its control plane: the data model, the sys_admin console, and the REST API
            that integrations call with API keys.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link
              href="/console/sign-in"
              className="rounded-lg bg-brand-600 px-5 py-2.5 font-medium text-white shadow-sm hover:bg-brand-700"
            >
              Sign in to the console
            </Link>
            {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- the reference is whole static pages, loaded as documents */}
            <a
              href="/api/docs"
              className="rounded-lg border border-slate-300 bg-white px-5 py-2.5 font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
            >
              API reference
            </a>
          </div>
        </section>

        <section aria-labelledby="features-heading" className="mt-16">
          <h2 id="features-heading" className="sr-only">
            What the control plane provides
          </h2>
          <ul className="grid gap-6 sm:grid-cols-3">
            {features.map((feature) => (
              <li
                key={feature.title}
                className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900"
              >
                <h3 className="font-semibold">{feature.title}</h3>
                <p className="mt-2 text-sm leading-6 text-slate-600 dark:text-slate-300">{feature.body}</p>
              </li>
            ))}
          </ul>
        </section>
      </main>

      <footer className="border-t border-slate-200 py-6 text-center text-sm text-slate-500 dark:border-slate-800 dark:text-slate-400">
        svc — multi-tenant orchestrator hosting
      </footer>
    </div>
  );
}
