import { findUsersInput } from "@/lib/schemas/users";
import { findUsers } from "@/server/services/users/directory";
import { consoleProcedure, createTRPCRouter } from "../init";

export const usersRouter = createTRPCRouter({
  /** Users matching a search, for pickers. */
  find: consoleProcedure("svc:system:users:read")
    .input(findUsersInput)
    .query(({ ctx, input }) => findUsers(ctx.actor, input)),
});
