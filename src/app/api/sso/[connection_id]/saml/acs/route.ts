import { samlAcs } from "@/server/session/sso-endpoints";

// The assertion consumer service of a SAML connection: the IdP posts its response here.
export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ connection_id: string }> }) {
  return samlAcs(request, (await params).connection_id);
}
