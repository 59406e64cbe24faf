"use client";

import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { messageOf } from "@/trpc/react";
import { Dialog } from "./dialog";
import { FormAlert } from "./states";
import { dangerButton, secondaryButton } from "./styles";

interface ConfirmDialogProps<T> {
  /** What is about to be acted on; null keeps the dialog closed. */
  subject: T | null;
  title: (subject: T) => string;
  body: (subject: T) => ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  onClose: () => void;
  /** The action; its error (a refusal such as a 409) is shown in the dialog, which stays open. */
  run: (subject: T) => Promise<unknown>;
  onDone: (subject: T) => void;
}

/** The confirmation of a destructive action: says what happens, shows why it was refused. */
export function ConfirmDialog<T>(props: ConfirmDialogProps<T>) {
  const { subject, title, onClose } = props;
  return (
    <Dialog open={subject !== null} onClose={onClose} title={subject !== null ? title(subject) : "Confirm"} alert>
      {subject !== null && <Confirm {...props} subject={subject} />}
    </Dialog>
  );
}

function Confirm<T>({
  subject,
  body,
  confirmLabel,
  pendingLabel,
  onClose,
  run,
  onDone,
}: ConfirmDialogProps<T> & { subject: T }) {
  const action = useMutation({ mutationFn: () => run(subject), onSuccess: () => onDone(subject) });
  return (
    <div className="space-y-4">
      <div className="text-sm leading-6 text-slate-600 dark:text-slate-300">{body(subject)}</div>
      <FormAlert message={action.error ? messageOf(action.error) : undefined} />
      <div className="flex justify-end gap-3">
        <button type="button" onClick={onClose} className={secondaryButton} autoFocus>
          Cancel
        </button>
        <button type="button" disabled={action.isPending} onClick={() => action.mutate()} className={dangerButton}>
          {action.isPending ? pendingLabel : confirmLabel}
        </button>
      </div>
    </div>
  );
}
