"use client";

import type { FormEvent } from "react";
import { SSO_START_PATH } from "@/lib/sso";
import { inputClass, labelClass, secondaryButton } from "@/components/ui/styles";

// "Sign in with SSO": a person of an organization with its own identity provider gives their work
// email (or the domain), and /api/sso/start sends them to that provider. The browser goes there as
// a navigation, not as the form's submission: the CSP's form-action 'self' would stop a form
// whose redirect leaves the site.

function startSso(event: FormEvent<HTMLFormElement>) {
  event.preventDefault();
  const email = new FormData(event.currentTarget).get("email");
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- an API route, which answers a redirect off the site
  window.location.assign(`${SSO_START_PATH}?${new URLSearchParams({ email: String(email ?? "").trim() })}`);
}

export function SsoSignIn() {
  return (
    <section
      aria-labelledby="sso-heading"
      className="mt-6 border-t border-slate-200 pt-6 text-sm dark:border-slate-800"
    >
      <h2 id="sso-heading" className="font-medium">
        Sign in with SSO
      </h2>
      <form onSubmit={startSso} className="mt-3 space-y-3">
        <div>
          <label htmlFor="sso-email" className={labelClass}>
            Work email or domain
          </label>
          <input
            id="sso-email"
            name="email"
            required
            autoComplete="email"
            placeholder="you@example.com"
            className={`${inputClass} mt-1`}
          />
        </div>
        <button type="submit" className={`${secondaryButton} w-full`}>
          Continue with SSO
        </button>
      </form>
    </section>
  );
}
