import { useId, type ReactNode } from "react";

/** The heading of a screen (level 1) or of a part of one (level 2), what it is for, and its actions. */
function PageHeader({
  id,
  title,
  level = 1,
  actions,
  children,
}: {
  id: string;
  title: ReactNode;
  level?: 1 | 2;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const Heading = level === 1 ? "h1" : "h2";
  return (
    <div className="flex flex-wrap items-start justify-between gap-4">
      <div className="max-w-2xl">
        <Heading id={id} className={level === 1 ? "text-2xl font-bold tracking-tight" : "text-lg font-semibold"}>
          {title}
        </Heading>
        {children && <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{children}</p>}
      </div>
      {actions}
    </div>
  );
}

/** A screen (level 1) or a part of one (level 2): a section named by its heading. */
export function HeadedSection({
  title,
  level = 1,
  description,
  actions,
  className,
  children,
}: {
  title: string;
  level?: 1 | 2;
  description?: ReactNode;
  actions?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section aria-labelledby={id} className={className}>
      <PageHeader id={id} title={title} level={level} actions={actions}>
        {description}
      </PageHeader>
      {children}
    </section>
  );
}
