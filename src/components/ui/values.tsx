import type { ReactNode } from "react";
import { formatDate, formatTime } from "@/components/api-keys/format";
import { mutedText } from "./styles";
import { Cell } from "./table";

// Values as the console shows them: timestamps, identifiers and JSON.

/** A timestamp as its date, with the time (UTC) under it. */
function When({ iso, none = "Never" }: { iso: string | null; none?: string }) {
  if (!iso) return <span className={mutedText}>{none}</span>;
  return (
    <time dateTime={iso} className="whitespace-nowrap">
      {formatDate(iso)}
      <span className={`block text-xs ${mutedText}`}>{formatTime(iso)}</span>
    </time>
  );
}

/** A table cell holding a timestamp. */
export function WhenCell({ iso, none }: { iso: string | null; none?: string }) {
  return (
    <Cell>
      <When iso={iso} none={none} />
    </Cell>
  );
}

export function Code({ children }: { children: ReactNode }) {
  return (
    <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs wrap-anywhere dark:bg-slate-800">
      {children}
    </code>
  );
}

/** Identifiers as code, one under the other (`inline`: side by side); `None` when there are none. */
export function CodeList({ items, inline = false }: { items: readonly string[]; inline?: boolean }) {
  if (items.length === 0) return <span className={mutedText}>None</span>;
  return (
    <ul className={inline ? "flex flex-wrap gap-1" : "flex flex-col gap-1"}>
      {items.map((item) => (
        <li key={item}>
          <Code>{item}</Code>
        </li>
      ))}
    </ul>
  );
}

/** A JSON value as JSON (so "true" the string and true the boolean look different). */
export function JsonValue({ value }: { value: unknown }) {
  const text = JSON.stringify(value, null, typeof value === "object" && value !== null ? 2 : undefined);
  const long = text.length > 60 || text.includes("\n");
  return long ? (
    <pre className="max-h-40 max-w-md overflow-auto rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-950">
      {text}
    </pre>
  ) : (
    <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs wrap-anywhere dark:bg-slate-800">{text}</code>
  );
}
