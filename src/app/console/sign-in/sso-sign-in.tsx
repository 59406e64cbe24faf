"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { SSO_START_PATH } from "@/lib/sso";
import { inputClass, labelClass, primaryButton, secondaryButton } from "@/components/ui/styles";

// "Sign in with SSO": a person of an organization with its own identity provider gives their work
// email (or the domain), and /api/sso/start sends them to that provider. The browser goes there as
// a navigation, not as the form's submission: the CSP's form-action 'self' would stop a form
// whose redirect leaves the site.

function startSso(event: FormEvent<HTMLFormElement>) {
  event.preventDefault();
  const email = String(new FormData(event.currentTarget).get("email") ?? "").trim();
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- an API route, which answers a redirect off the site
  window.location.assign(`${SSO_START_PATH}?${new URLSearchParams({ email })}`);
}

/** `open`: shown unfolded, as when a refused SSO sign-in comes back to be tried again. */
export function SsoSignIn({ open: openAtFirst }: { open: boolean }) {
  const [open, setOpen] = useState(openAtFirst);
  const formId = useId();
  const emailId = useId();
  const email = useRef<HTMLInputElement>(null);

  function toggle() {
    // The field is shown before it takes the focus.
    flushSync(() => setOpen(!open));
    if (!open) email.current?.focus();
  }

  return (
    <div className="mt-2 text-sm">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={formId}
        onClick={toggle}
        className={`${secondaryButton} w-full`}
      >
        Sign in with SSO
      </button>
      <form id={formId} hidden={!open} onSubmit={startSso} aria-label="Sign in with SSO" className="mt-4 space-y-3">
        <div>
          <label htmlFor={emailId} className={labelClass}>
            Work email or domain
          </label>
          <input
            ref={email}
            id={emailId}
            name="email"
            required
            inputMode="email"
            autoComplete="email"
            placeholder="you@example.com"
            className={`${inputClass} mt-1`}
          />
        </div>
        <button type="submit" className={`${primaryButton} w-full`}>
          Continue
        </button>
      </form>
    </div>
  );
}
