"use client";

import { usePathname } from "next/navigation";
import { SECTIONS } from "@/components/console/sections";

// What a section shows at once while its page renders on the server: its heading (the same words
// and style as the page's own) and a spinner. The links to the sections prefetch this shell, so a
// move shows the new heading without waiting for the page's data. A page below a section (a user,
// a role) has a heading of its own, not known here: it shows the spinner only.
// See docs/decisions/015-console-answers-at-once.md.

const HEADINGS = new Map(
  [...SECTIONS, { href: "/console/account", label: "Your account" }].map((s) => [s.href, s.label]),
);

export default function Loading() {
  const heading = HEADINGS.get(usePathname());
  return (
    <>
      {heading && <h1 className="text-2xl font-bold tracking-tight">{heading}</h1>}
      <div role="status" className="flex items-center gap-3 py-12 text-sm text-slate-600 dark:text-slate-300">
        <span
          aria-hidden="true"
          className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-brand-600"
        />
        Loading…
      </div>
    </>
  );
}
