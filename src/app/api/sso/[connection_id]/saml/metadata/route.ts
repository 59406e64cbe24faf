import { samlMetadata } from "@/server/session/sso-endpoints";

// A SAML connection's service provider metadata (entity id, ACS), for the IdP to read.
export const dynamic = "force-dynamic";

export async function GET(_request: Request, { params }: { params: Promise<{ connection_id: string }> }) {
  return samlMetadata((await params).connection_id);
}
