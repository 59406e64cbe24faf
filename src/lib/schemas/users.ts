import { z } from "zod";

// User summaries: what pickers and lists show of a user (never credentials).

export const userSummarySchema = z.object({
  id: z.uuid(),
  username: z.string(),
  display_name: z.string().nullable(),
});
export type UserSummary = z.infer<typeof userSummarySchema>;

export const findUsersInput = z.strictObject({
  query: z.string().trim().min(1, "must not be empty").max(255),
  limit: z.number().int().min(1).max(50).default(20),
});
export type FindUsersInput = z.output<typeof findUsersInput>;
