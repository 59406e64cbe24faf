"use client";

import { usePathname } from "next/navigation";
import { NavLinks } from "@/components/ui/nav-links";
import { SECTIONS } from "./sections";

export function ConsoleNav() {
  const pathname = usePathname();
  return (
    <NavLinks
      label="Console"
      links={SECTIONS}
      isCurrent={(href) => pathname === href || pathname.startsWith(`${href}/`)}
      listClassName="flex flex-wrap gap-1 md:flex-col md:flex-nowrap"
      linkClassName={(current) =>
        `block rounded-md px-3 py-2 text-sm whitespace-nowrap ${
          current
            ? "bg-brand-50 font-semibold text-brand-700 dark:bg-brand-900 dark:text-brand-100"
            : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
        }`
      }
    />
  );
}
