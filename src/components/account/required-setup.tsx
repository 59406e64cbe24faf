"use client";

import { useRouter } from "next/navigation";
import { TwoFactorSection } from "./two-factor-section";

/** The setup the platform requires; once the recovery codes are saved, the whole console opens. */
export function RequiredTwoFactorSetup() {
  const router = useRouter();
  return <TwoFactorSection onSaved={() => router.replace("/console/overview")} />;
}
