import "server-only";
import { overviewSchema } from "@/lib/schemas/overview";
import { overview } from "@/server/services/overview/service";
import { defineOperation } from "./operation";

// The console's landing page.

export const overviewOperations = {
  get: defineOperation({
    id: "getOverview",
    method: "GET",
    path: null,
    tag: "Operations",
    summary: "The platform at a glance",
    access: { permission: "svc:system:orgs:read", sysAdmin: true },
    response: overviewSchema,
    handler: ({ ...ctx }) => overview(ctx),
  }),
};
