import { handleScim } from "@/server/scim/handler";

// The SCIM 2.0 service: a directory provisions an organization's people and groups here.
export const dynamic = "force-dynamic";

export { handleScim as DELETE, handleScim as GET, handleScim as PATCH, handleScim as POST, handleScim as PUT };
