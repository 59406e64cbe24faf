import type { Metadata } from "next";
import { ComingLater } from "@/components/console/shell";
import { sectionAt } from "@/components/console/sections";

const section = sectionAt("/console/oauth-clients");

export const metadata: Metadata = { title: `${section.label} — svc console` };

export default function Page() {
  return <ComingLater label={section.label} summary={section.summary} />;
}
