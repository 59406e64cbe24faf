import { signOutAction } from "@/app/console/actions";
import { secondaryButton } from "@/components/ui/styles";

export function SignOutButton() {
  return (
    <form action={signOutAction}>
      <button type="submit" className={secondaryButton}>
        Sign out
      </button>
    </form>
  );
}
