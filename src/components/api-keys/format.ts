// Timestamps shown the same on the server and in the browser (no locale or time zone involved,
// so hydration matches): `2026-11-22 14:03 UTC`.

export const formatDate = (iso: string): string => iso.slice(0, 10);
export const formatTime = (iso: string): string => `${iso.slice(11, 16)} UTC`;

export function formatTimestamp(iso: string | null, none = "Never"): string {
  return iso ? `${formatDate(iso)} ${formatTime(iso)}` : none;
}
