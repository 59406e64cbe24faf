import { currentSessionActor } from "@/server/session";
import { handleTRPCRequest } from "@/server/trpc/http";

const handler = (request: Request) => handleTRPCRequest(request, currentSessionActor);

export { handler as GET, handler as POST };
