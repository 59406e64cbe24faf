import { handleScim } from "@/server/scim/handler";

// The SCIM 2.0 service: a directory provisions an organization's people and groups here.
export const dynamic = "force-dynamic";

export const GET = handleScim;
export const POST = handleScim;
export const PUT = handleScim;
export const PATCH = handleScim;
export const DELETE = handleScim;
