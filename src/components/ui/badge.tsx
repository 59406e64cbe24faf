import type { ReactNode } from "react";
import type { CENTRAL_POINT_STATUSES } from "@/lib/schemas/central-points";
import type { ORCHESTRATOR_STATUSES } from "@/lib/schemas/orchestrators";
import type { ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS } from "@/lib/schemas/organizations";

const TONES = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
  good: "bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-200",
  warn: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-200",
  bad: "bg-red-50 text-red-800 ring-red-600/20 dark:bg-red-950 dark:text-red-200",
  brand: "bg-brand-50 text-brand-700 ring-brand-600/20 dark:bg-brand-900 dark:text-brand-100",
  accent: "bg-violet-50 text-violet-800 ring-violet-600/20 dark:bg-violet-950 dark:text-violet-200",
} as const;
export type Tone = keyof typeof TONES;

/** A badge's classes, for an element other than a <span> (a list item, say). */
export const badgeClass = (tone: Tone = "neutral") =>
  `inline-flex rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONES[tone]}`;

export function Badge({
  tone = "neutral",
  title,
  className,
  children,
}: {
  tone?: Tone;
  title?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <span title={title} className={className ? `${badgeClass(tone)} ${className}` : badgeClass(tone)}>
      {children}
    </span>
  );
}

type Status =
  | (typeof ORGANIZATION_STATUSES)[number]
  | (typeof ORCHESTRATOR_STATUSES)[number]
  | (typeof CENTRAL_POINT_STATUSES)[number];

const TIER_TONE: Record<(typeof SUBSCRIPTION_TIERS)[number], Tone> = {
  free: "neutral",
  pro: "brand",
  enterprise: "accent",
};
const STATUS_TONE: Record<Status, Tone> = {
  active: "good",
  suspended: "warn",
  archived: "neutral",
  inactive: "neutral",
};

/** The tone of a known value, neutral for any other (a value newer than this console). */
const toneOf = <K extends string>(tones: Record<K, Tone>, value: string): Tone =>
  Object.hasOwn(tones, value) ? tones[value as K] : "neutral";

export const TierBadge = ({ tier }: { tier: string }) => <Badge tone={toneOf(TIER_TONE, tier)}>{tier}</Badge>;
export const StatusBadge = ({ status }: { status: string }) => (
  <Badge tone={toneOf(STATUS_TONE, status)}>{status}</Badge>
);

/** Marks a dangerous permission: it never reaches an API key. */
export function DangerousBadge() {
  return (
    <Badge tone="warn" title="Dangerous: never reaches an API key">
      Dangerous
    </Badge>
  );
}
