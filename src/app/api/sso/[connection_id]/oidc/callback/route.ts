import { oidcCallback } from "@/server/session/sso-endpoints";

// The redirect URI of an OIDC connection: the IdP sends the browser back here with a code.
export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ connection_id: string }> }) {
  return oidcCallback(request, (await params).connection_id);
}
