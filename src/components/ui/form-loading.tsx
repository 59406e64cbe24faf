// What stands for a form loaded on demand (next/dynamic) until its script arrives: a screen's forms
// load with their validation when first shown, not with the page. A form on the page reserves its
// height (`className`, a min-height per breakpoint), so that what follows it does not move when the
// form arrives.

export function FormLoading({ className = "" }: { className?: string }) {
  return (
    <p role="status" className={`text-sm text-slate-600 dark:text-slate-300 ${className}`}>
      Loading the form…
    </p>
  );
}
