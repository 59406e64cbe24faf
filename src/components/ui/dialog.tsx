"use client";

import { useDeferredValue, useEffect, useId, useRef, useState, type ReactNode } from "react";

// A modal dialog on the native <dialog> element: the browser traps focus inside it, closes it on
// Escape and hands focus back to the control that opened it. Its content is mounted only while it
// is open, so every opening starts from a clean state. A dialog that must not be dismissed (a secret
// shown once) ignores Escape and light dismissal: it closes only through its own button.

interface DialogProps {
  open: boolean;
  /** Called whenever the dialog closes, including by Escape. */
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  /** role="alertdialog" for confirmations that interrupt. */
  alert?: boolean;
  /** False: Escape does not close it; only the caller's own button (setting `open` false) does. */
  dismissible?: boolean;
}

export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  alert = false,
  dismissible = true,
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      role={alert ? "alertdialog" : undefined}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        if (!dismissible) event.preventDefault();
      }}
      onClose={() => {
        // The browser may close a modal on a repeated Escape without a cancellable event: reopen it.
        if (!dismissible && open) ref.current?.showModal();
        else onClose();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-2xl rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/60 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      {open && (
        <div className="p-6">
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          {description && (
            <div id={descriptionId} className="mt-1 text-sm text-slate-600 dark:text-slate-300">
              {description}
            </div>
          )}
          <div className="mt-4">{children}</div>
        </div>
      )}
    </dialog>
  );
}

/**
 * True from the first time `open` is: a dialog loaded on demand (next/dynamic) is rendered from its
 * first opening on, and stays mounted so that closing it hands focus back as any other dialog does.
 */
export function useOpenedOnce(open: boolean): boolean {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened || open;
}

/**
 * The heavy part of a dialog's form (a list of every permission, a settings preview), rendered just
 * after the frame that shows the dialog and its first fields: the click is answered at once, and
 * this part follows without holding that frame back. Until then it keeps its place with `className`
 * (a min-height), so that what comes after it does not jump.
 */
export function AfterFirstFrame({ children, className }: { children: ReactNode; className?: string }) {
  // React renders the first pass with `false` and the second, with `true`, as a background update.
  const ready = useDeferredValue(true, false);
  return ready ? children : <div aria-hidden className={className} />;
}
