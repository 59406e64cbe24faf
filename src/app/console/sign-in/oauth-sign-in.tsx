import { secondaryButton } from "@/components/ui/styles";
import { oauthSignInAction } from "../actions";

// "Sign in with <provider>" for each OAuth provider the deployment has switched on (oauth.ts).

export function OAuthSignIn({ providers }: { providers: { id: string; name: string }[] }) {
  if (providers.length === 0) return null;
  return (
    <ul className="space-y-2">
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
  );
}
