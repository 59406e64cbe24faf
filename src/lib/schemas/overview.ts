import { z } from "zod";
import { USAGE_OUTCOMES } from "./api-keys";
import { auditEventSchema } from "./audit";
import { id, moment } from "./common";

// The console's landing page: the platform at a glance.

export const overviewSchema = z.object({
  organizations_by_tier: z.array(z.object({ tier: z.string(), count: z.number().int() })),
  users: z.number().int(),
  active_keys: z.number().int(),
  keys_expiring_this_week: z.number().int(),
  requests_per_hour: z
    .array(z.object({ hour: moment, outcome: z.enum(USAGE_OUTCOMES), count: z.number().int() }))
    .describe("Requests made with API keys across the platform, per hour and outcome, over the last 7 days."),
  most_refused_keys: z
    .array(
      z.object({
        id,
        name: z.string(),
        key_prefix: z.string(),
        user_id: id,
        username: z.string(),
        refused: z.number().int(),
      }),
    )
    .describe("The keys refused most often (401, 403, 429) over the last 7 days."),
  latest_events: z.array(auditEventSchema).describe("The audit trail's latest events, newest first."),
});
export type Overview = z.input<typeof overviewSchema>;
