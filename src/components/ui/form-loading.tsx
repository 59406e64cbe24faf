// What stands for a form loaded on demand (next/dynamic) until its script arrives: a screen's forms
// load with their validation when first shown, not with the page.

export function FormLoading() {
  return (
    <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
      Loading the form…
    </p>
  );
}
