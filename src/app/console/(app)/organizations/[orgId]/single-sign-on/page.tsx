import { isSsoErrorCode, SSO_ERRORS } from "@/lib/sso";
import { SsoSection, type SsoTestResult } from "@/components/tenancy/sso-section";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

type SearchParams = Record<string, string | string[] | undefined>;
const single = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

/** A "Test connection" round trip ends here, saying whom the IdP vouched for or why it failed. */
function testResultOf(query: SearchParams): SsoTestResult {
  const code = single(query.sso_error);
  if (code && isSsoErrorCode(code)) {
    const id = single(query.error_id);
    return { ok: false, message: `${SSO_ERRORS[code]}${id ? ` Error id: ${id}.` : ""}` };
  }
  if (single(query.tested)) return { ok: true, email: single(query.email) ?? "", subject: single(query.subject) ?? "" };
  return null;
}

export default async function OrganizationSsoPage({
  params,
  searchParams,
}: OrgPageProps & { searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  return prefetched(
    <SsoSection orgId={orgId} result={testResultOf(await searchParams)} />,
    trpc.ssoConnections.list.queryOptions({ org_id: orgId }),
  );
}
