import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { RoleScreen } from "@/components/identity/role-editor";
import { roleOptions } from "@/components/identity/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Role — svc console" };

export default async function RolePage({ params }: { params: Promise<{ role_id: string }> }) {
  const { role_id: roleId } = await params;
  if (!z.uuid().safeParse(roleId).success) notFound();
  return prefetched(<RoleScreen roleId={roleId} />, roleOptions(trpc, roleId));
}
