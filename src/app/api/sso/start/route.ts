import { startSso } from "@/server/session/sso-endpoints";

// Where "Sign in with SSO" starts: ?email= or ?domain= finds the organization's connection.
export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return startSso(request);
}
