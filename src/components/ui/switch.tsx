"use client";

// An on/off switch (role="switch"): its accessible name says what it turns on, aria-checked says
// whether it is on, and the word next to it says so to everyone else.

interface SwitchProps {
  checked: boolean;
  label: string;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  onText?: string;
  offText?: string;
}

export function Switch({
  checked,
  label,
  onChange,
  disabled = false,
  onText = "Enabled",
  offText = "Disabled",
}: SwitchProps) {
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        role="switch"
        aria-checked={checked}
        aria-label={label}
        disabled={disabled}
        onClick={() => onChange(!checked)}
        className={`relative inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors disabled:cursor-wait disabled:opacity-60 ${
          checked ? "bg-brand-600" : "bg-slate-300 dark:bg-slate-700"
        }`}
      >
        <span
          aria-hidden="true"
          className={`inline-block size-4 rounded-full bg-white shadow transition-transform ${checked ? "translate-x-4.5" : "translate-x-0.5"}`}
        />
      </button>
      <span aria-hidden="true" className="text-sm text-slate-700 dark:text-slate-300">
        {checked ? onText : offText}
      </span>
    </span>
  );
}
