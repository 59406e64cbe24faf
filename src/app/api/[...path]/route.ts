import { restHandlers } from "@/server/rest/handler";

// Every REST operation, found by path and method in the front door's index (src/server/rest).
// Next.js prefers the routes and pages beside this one: the API reference, tRPC and Auth.js.

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE } = restHandlers;
