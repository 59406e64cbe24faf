import { secondaryButton } from "@/components/ui/styles";
import { oauthSignInAction } from "../actions";

// "Sign in with <provider>" for each OAuth provider the deployment has switched on (oauth.ts).

export function OAuthSignIn({ providers }: { providers: { id: string; name: string }[] }) {
  if (providers.length === 0) return null;
  return (
    <div className="mt-6">
      <div className="flex items-center gap-3 text-xs text-slate-500 uppercase dark:text-slate-400" aria-hidden="true">
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
        or
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      </div>
      <ul className="mt-4 space-y-2">
        {providers.map((provider) => (
          <li key={provider.id}>
            <form action={oauthSignInAction}>
              <input type="hidden" name="provider" value={provider.id} />
              <button type="submit" className={`${secondaryButton} w-full`}>
                Sign in with {provider.name}
              </button>
            </form>
          </li>
        ))}
      </ul>
    </div>
  );
}
