// Class names shared by the console's controls, so buttons and fields look the same everywhere.

const button =
  "inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-medium shadow-sm transition-colors disabled:cursor-not-allowed disabled:opacity-60";

export const primaryButton = `${button} bg-brand-600 text-white hover:bg-brand-700`;
export const secondaryButton = `${button} border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800`;
export const dangerButton = `${button} bg-red-600 text-white hover:bg-red-700`;
export const linkButton =
  "rounded font-medium text-brand-600 underline-offset-2 hover:underline disabled:opacity-60 dark:text-brand-300";

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-slate-400 aria-[invalid=true]:border-red-500 dark:border-slate-700 dark:bg-slate-900";
export const labelClass = "block text-sm font-medium";
export const hintClass = "mt-1 text-sm text-slate-500 dark:text-slate-400";
export const errorTextClass = "mt-1 text-sm font-medium text-red-700 dark:text-red-400";
export const textLink = "font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-300";
export const mutedText = "text-slate-500 dark:text-slate-400";
