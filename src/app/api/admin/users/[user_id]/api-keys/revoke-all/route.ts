import { restHandlers } from "@/server/rest/handler";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE } = restHandlers("/api/admin/users/{user_id}/api-keys/revoke-all");
