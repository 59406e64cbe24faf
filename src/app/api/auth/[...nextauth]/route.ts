import { handlers } from "@/server/auth/session";

export const { GET, POST } = handlers;
