"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { SECTIONS } from "./sections";

export function ConsoleNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Console">
      <ul className="flex gap-1 overflow-x-auto md:flex-col md:overflow-visible">
        {SECTIONS.map((section) => {
          const current = pathname === section.href || pathname.startsWith(`${section.href}/`);
          return (
            <li key={section.href}>
              <Link
                href={section.href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-md px-3 py-2 text-sm whitespace-nowrap ${
                  current
                    ? "bg-brand-50 font-semibold text-brand-700 dark:bg-brand-900 dark:text-brand-100"
                    : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
                }`}
              >
                {section.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
