export default function Loading() {
  return (
    <div role="status" className="flex items-center gap-3 py-12 text-sm text-slate-600 dark:text-slate-300">
      <span
        aria-hidden="true"
        className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-brand-600"
      />
      Loading…
    </div>
  );
}
