import type { ReactNode } from "react";

// The document's prose is plain text with `code` spans and blank-line paragraphs: that much is
// rendered here, nothing more (no markdown library).

export const codeClass =
  "rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.875em] text-slate-800 dark:bg-slate-800 dark:text-slate-200";

/** Text with `code` spans. */
export function Inline({ text }: { text: string }): ReactNode {
  return text.split(/(`[^`]+`)/g).map((part, index) =>
    part.length > 2 && part.startsWith("`") && part.endsWith("`") ? (
      <code key={index} className={codeClass}>
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  );
}

/** Paragraphs split on blank lines, each with `code` spans. */
export function Paragraphs({ text, className }: { text: string | string[]; className?: string }) {
  const paragraphs = (Array.isArray(text) ? text : text.split(/\n\s*\n/)).map((p) => p.trim()).filter(Boolean);
  return paragraphs.map((paragraph, index) => (
    <p key={index} className={className}>
      <Inline text={paragraph} />
    </p>
  ));
}

export function CodeBlock({ code, label }: { code: ReactNode; label: string }) {
  return (
    <figure className="mt-3">
      <figcaption className="mb-1 text-xs font-medium uppercase tracking-wider text-slate-500 dark:text-slate-400">
        {label}
      </figcaption>
      <pre className="whitespace-pre-wrap rounded-lg bg-slate-900 p-4 font-mono text-sm leading-6 text-slate-100 wrap-anywhere dark:bg-slate-900/70 dark:ring-1 dark:ring-slate-800">
        <code>{code}</code>
      </pre>
    </figure>
  );
}

const METHOD_STYLES: Record<string, string> = {
  GET: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  POST: "bg-brand-100 text-brand-700 dark:bg-brand-900 dark:text-brand-100",
  PUT: "bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200",
  PATCH: "bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200",
  DELETE: "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200",
};

export function MethodBadge({ method, small = false }: { method: string; small?: boolean }) {
  return (
    <span
      className={`inline-block shrink-0 rounded font-mono font-semibold ${small ? "w-14 px-1 py-0.5 text-center text-[0.7rem]" : "px-2 py-0.5 text-xs"} ${METHOD_STYLES[method] ?? "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100"}`}
    >
      {method}
    </span>
  );
}
