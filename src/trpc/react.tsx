"use client";

import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { FieldError } from "@/lib/errors";
import type { ErrorData } from "@/server/trpc/init";
import type { AppRouter } from "@/server/trpc/root";
import { makeQueryClient } from "./query-client";

const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
export { useTRPC, useTRPCClient };

/** Options of a query whose input may not fit in a URL (a whole schema): it is sent alone, as a POST. */
export const sentAsPost = { trpc: { context: { sentAsPost: true } } };

let browserQueryClient: QueryClient | undefined;

/** A new client per server render; one for the life of the page in the browser. */
function getQueryClient(): QueryClient {
  if (typeof window === "undefined") return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.context.sentAsPost === true,
          true: httpLink({ url: "/api/trpc", transformer: superjson, methodOverride: "POST" }),
          false: httpBatchLink({ url: "/api/trpc", transformer: superjson }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** What the server said about a failed call, if it answered at all. */
const errorData = (error: unknown): Partial<ErrorData> | undefined =>
  error instanceof TRPCClientError ? (error.data as Partial<ErrorData> | undefined) : undefined;

/** The field errors a failed call carries. */
export const fieldErrorsOf = (error: unknown): FieldError[] => errorData(error)?.errors ?? [];

/** A sentence for an error the user should read. */
export function messageOf(error: unknown): string {
  if (errorData(error) && error instanceof Error) return error.message;
  return "The console could not reach the server. Check your connection and try again.";
}
