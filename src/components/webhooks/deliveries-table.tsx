"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { WebhookDelivery, WebhookEndpoint } from "@/lib/schemas/webhooks";
import { Badge } from "@/components/ui/badge";
import { HeadedSection } from "@/components/ui/page-header";
import { ListView, type NoticeState } from "@/components/ui/resource-section";
import { secondaryButton, mutedText } from "@/components/ui/styles";
import { RowActions, td } from "@/components/ui/table";
import { Code, WhenCell } from "@/components/ui/values";
import type { WebhookApi } from "./api";

// An endpoint's deliveries, newest first: what was sent, how it went, the last answer, and Retry.

const TONE = { delivered: "good", failed: "bad", pending: "neutral" } as const;

export function DeliveriesTable({
  api,
  endpoint,
  notice,
}: {
  api: WebhookApi;
  endpoint: WebhookEndpoint;
  notice: NoticeState;
}) {
  const options = api.deliveriesOptions(endpoint.id);
  const deliveries = useQuery({ ...options, refetchInterval: 2_000 });
  const queryClient = useQueryClient();
  return (
    <HeadedSection
      title={`Deliveries to ${endpoint.url}`}
      level={2}
      className="mt-8"
      description="Kept 30 days. Attempts: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later; then failed."
      actions={
        <button type="button" className={secondaryButton} onClick={() => void deliveries.refetch()}>
          Refresh
        </button>
      }
    >
      <ListView<WebhookDelivery>
        query={deliveries}
        caption="Deliveries"
        columns={[
          "Event",
          "Status",
          "Attempts",
          "Last answer",
          "Next attempt",
          "Created",
          { label: "Actions", hidden: true },
        ]}
        empty={{ title: "No deliveries yet", body: "Send a test event, or make a change this endpoint subscribes to." }}
        row={(delivery) => (
          <>
            <th scope="row" className={`${td} text-left font-medium`}>
              <Code>{delivery.event_type}</Code>
            </th>
            <td className={td}>
              <Badge tone={TONE[delivery.status]}>{delivery.status}</Badge>
            </td>
            <td className={td}>{delivery.attempts}</td>
            <td className={`${td} max-w-72 break-words`}>
              {delivery.last_status_code !== null ? <Code>{String(delivery.last_status_code)}</Code> : null}{" "}
              {delivery.last_error ??
                (delivery.last_response ? (
                  <span className={mutedText}>{delivery.last_response.slice(0, 200)}</span>
                ) : null)}
              {delivery.last_status_code === null && delivery.last_error === null && (
                <span className={mutedText}>None yet</span>
              )}
            </td>
            <WhenCell iso={delivery.next_attempt_at} none="—" />
            <WhenCell iso={delivery.created_at} />
            <RowActions
              actions={[
                {
                  label: "Retry",
                  ariaLabel: `Retry the ${delivery.event_type} delivery`,
                  onClick: () =>
                    void api
                      .retry(endpoint.id, delivery.id)
                      .then(() => {
                        notice.say(`The ${delivery.event_type} delivery is being retried.`);
                        return queryClient.invalidateQueries({ queryKey: options.queryKey });
                      })
                      .catch((error: Error) => notice.fail(error.message)),
                },
              ]}
            />
          </>
        )}
      />
    </HeadedSection>
  );
}
