import { samlAcs } from "@/server/session/sso-endpoints";

// The assertion consumer service of a SAML connection: the IdP posts its response here.
export const dynamic = "force-dynamic";
export const POST = async (request: Request, { params }: { params: Promise<{ connection_id: string }> }) =>
  samlAcs(request, (await params).connection_id);
