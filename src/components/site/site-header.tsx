import Link from "next/link";

// The public pages' header: the service's mark, one secondary link, and the console sign-in.

export function SiteHeader({
  width,
  link,
  home = true,
}: {
  width: "max-w-5xl" | "max-w-7xl";
  link: { href: string; label: string };
  home?: boolean;
}) {
  const mark = (
    <>
      {/* eslint-disable-next-line @next/next/no-img-element -- tiny local SVG, no optimisation needed */}
      <img src="/favicon.svg" alt="" width={24} height={24} />
      svc
    </>
  );
  return (
    <header className="border-b border-slate-200 bg-white/80 dark:border-slate-800 dark:bg-slate-900/80">
      <div className={`mx-auto flex ${width} items-center justify-between px-6 py-4`}>
        {home ? (
          <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight">
            {mark}
          </Link>
        ) : (
          <span className="flex items-center gap-2 font-semibold tracking-tight">{mark}</span>
        )}
        <nav aria-label="Primary">
          <ul className="flex items-center gap-4 text-sm">
            <li>
              <a
                href={link.href}
                className="text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
              >
                {link.label}
              </a>
            </li>
            <li>
              <Link
                href="/console/sign-in"
                className="rounded-md bg-brand-600 px-3 py-1.5 font-medium text-white hover:bg-brand-700"
              >
                Sign in to the console
              </Link>
            </li>
          </ul>
        </nav>
      </div>
    </header>
  );
}
