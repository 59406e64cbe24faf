import { roleChoicesOptions } from "@/components/identity/queries";
import { SsoSection, type SsoTestResult } from "@/components/tenancy/sso-section";
import { single, ssoRefusalOf } from "@/components/tenancy/sso-refusal";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

type SearchParams = Record<string, string | string[] | undefined>;

/** A "Test connection" round trip ends here: whom the IdP vouched for, or why it failed. */
function testResultOf(query: SearchParams): SsoTestResult {
  const refusal = ssoRefusalOf(query);
  if (refusal) return { ok: false, message: refusal };
  const connectionId = single(query.tested);
  if (!connectionId) return null;
  return { ok: true, connectionId, email: single(query.email) ?? "", subject: single(query.subject) ?? "" };
}

export default async function OrganizationSsoPage({
  params,
  searchParams,
}: OrgPageProps & { searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  return prefetched(
    <SsoSection orgId={orgId} testResult={testResultOf(await searchParams)} />,
    trpc.ssoConnections.list.queryOptions({ org_id: orgId }),
    roleChoicesOptions(trpc, "org"),
  );
}
