import { dehydrate, HydrationBoundary, type QueryClient } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { cache, type ReactNode } from "react";
import { currentSessionActor } from "@/server/session";
import { appRouter } from "@/server/trpc/root";
import { makeQueryClient } from "./query-client";

// Server components: the session's actor (read once per request), and the tRPC options proxy that
// prefetches queries into a per-request QueryClient, which HydrateClient hands to the browser.

export const sessionActor = cache(currentSessionActor);

export const getQueryClient = cache(makeQueryClient);

export const trpc = createTRPCOptionsProxy({
  ctx: async () => ({ actor: await sessionActor() }),
  router: appRouter,
  queryClient: getQueryClient,
});

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

type Prefetchable = Parameters<QueryClient["prefetchQuery"]>[0];

/**
 * A page's screen with the queries its first paint reads fetched on the server (a list's first
 * page for an infinite query) into the client it hydrates.
 */
export async function prefetched(screen: ReactNode, ...queries: object[]): Promise<ReactNode> {
  const queryClient = getQueryClient();
  await Promise.all(
    queries.map((options) =>
      "initialPageParam" in options
        ? queryClient.prefetchInfiniteQuery(options as Parameters<QueryClient["prefetchInfiniteQuery"]>[0])
        : queryClient.prefetchQuery(options as Prefetchable),
    ),
  );
  return <HydrateClient>{screen}</HydrateClient>;
}
