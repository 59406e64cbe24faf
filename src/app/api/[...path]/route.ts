import { restHandlers } from "@/server/rest/handler";

// Every REST operation, found by path and method in the endpoint index of src/server/rest/front-door.ts.
// Next.js prefers the routes and pages beside this one: the API reference, tRPC and Auth.js.

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE } = restHandlers;
