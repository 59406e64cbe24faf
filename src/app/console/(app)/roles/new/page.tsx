import type { Metadata } from "next";
import { NewRoleScreen } from "@/components/identity/role-editor";

export const metadata: Metadata = { title: "Create role — svc console" };

export default function NewRolePage() {
  return <NewRoleScreen />;
}
