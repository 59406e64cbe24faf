import { handlers } from "@/server/session";

export const { GET, POST } = handlers;
