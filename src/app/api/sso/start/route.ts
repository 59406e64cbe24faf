import { startSso } from "@/server/session/sso-endpoints";

// Where "Sign in with SSO" starts: ?email= or ?domain= finds the organization's connection.
export const dynamic = "force-dynamic";
export const GET = (request: Request) => startSso(request);
