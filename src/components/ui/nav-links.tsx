import Link from "next/link";

// A navigation landmark of links, the current one marked (aria-current) for everyone to see.

export function NavLinks({
  label,
  links,
  isCurrent,
  listClassName,
  linkClassName,
}: {
  label: string;
  links: readonly { href: string; label: string }[];
  isCurrent: (href: string) => boolean;
  listClassName: string;
  linkClassName: (current: boolean) => string;
}) {
  return (
    <nav aria-label={label}>
      <ul className={listClassName}>
        {links.map((link) => {
          const current = isCurrent(link.href);
          return (
            <li key={link.href}>
              <Link href={link.href} aria-current={current ? "page" : undefined} className={linkClassName(current)}>
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
