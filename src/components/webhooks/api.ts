"use client";

import { useTRPC, useTRPCClient } from "@/trpc/react";
import type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "@/lib/schemas/webhooks";

// The console's webhook calls for one owner: an organization's endpoints (orgId) or the
// platform's (no orgId). The two sets of procedures take the same input but for org_id.

type Page<T> = { data: T[]; next_cursor: string | null };
type Accepted = { delivery_id: string; message_id: string };

export function useWebhookApi(orgId: string | undefined) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const org = orgId === undefined ? {} : { org_id: orgId };
  const procedures = orgId === undefined ? client.webhooks : client.orgWebhooks;
  const routers = orgId === undefined ? trpc.webhooks : trpc.orgWebhooks;
  const call = procedures as unknown as Record<string, { mutate(input: object): Promise<unknown> }>;
  return {
    listOptions: () =>
      (routers.list as unknown as { queryOptions(input: object): object }).queryOptions({ ...org }) as {
        queryKey: readonly unknown[];
        queryFn: () => Promise<Page<WebhookEndpoint>>;
      },
    deliveriesOptions: (endpointId: string) =>
      (routers.deliveries as unknown as { queryOptions(input: object): object }).queryOptions({
        ...org,
        endpoint_id: endpointId,
      }) as { queryKey: readonly unknown[]; queryFn: () => Promise<Page<WebhookDelivery>> },
    pathFilter: () => (routers as unknown as { pathFilter(): object }).pathFilter(),
    create: (input: CreateWebhookEndpointInput) =>
      call.create!.mutate({ ...org, ...input }) as Promise<WebhookEndpointWithSecret>,
    update: (endpointId: string, input: UpdateWebhookEndpointInput) =>
      call.update!.mutate({ ...org, endpoint_id: endpointId, ...input }) as Promise<WebhookEndpoint>,
    remove: (endpointId: string) => call.delete!.mutate({ ...org, endpoint_id: endpointId }),
    rotate: (endpointId: string) =>
      call.rotateSecret!.mutate({ ...org, endpoint_id: endpointId }) as Promise<WebhookEndpointWithSecret>,
    test: (endpointId: string) => call.test!.mutate({ ...org, endpoint_id: endpointId }) as Promise<Accepted>,
    retry: (endpointId: string, deliveryId: string) =>
      call.retry!.mutate({ ...org, endpoint_id: endpointId, delivery_id: deliveryId }) as Promise<Accepted>,
  };
}

export type WebhookApi = ReturnType<typeof useWebhookApi>;
