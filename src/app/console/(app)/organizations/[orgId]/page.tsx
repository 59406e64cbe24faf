import { ProfileSection } from "@/components/tenancy/profile-section";
import type { OrgPageProps } from "./org-page";

export default async function OrganizationProfilePage({ params }: OrgPageProps) {
  // The layout has the organization in hand already.
  return <ProfileSection orgId={(await params).orgId} />;
}
