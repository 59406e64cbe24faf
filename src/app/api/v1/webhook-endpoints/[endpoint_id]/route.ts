import { restHandlers } from "@/server/rest/handler";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE } = restHandlers("/api/v1/webhook-endpoints/{endpoint_id}");
