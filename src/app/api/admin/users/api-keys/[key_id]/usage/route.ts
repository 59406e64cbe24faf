import { restHandlers } from "@/server/rest/handler";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE } = restHandlers("/api/admin/users/api-keys/{key_id}/usage");
