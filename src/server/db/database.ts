import "server-only";
import { env } from "@/server/env";
import { runningEmbedded, startEmbedded } from "./embedded";

export interface ResolvedDatabase {
  url: string;
  embedded: boolean;
  /** Stops the embedded database when this process started it; otherwise does nothing. */
  release(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded database, reusing the one the running app serves
 * or starting it in this process.
 */
export async function resolveDatabase(): Promise<ResolvedDatabase> {
  const { DATABASE_URL, SVC_DATA_DIR } = env();
  if (DATABASE_URL) return { url: DATABASE_URL, embedded: false, release: async () => {} };
  const running = await runningEmbedded(SVC_DATA_DIR);
  if (running) return { url: running, embedded: true, release: async () => {} };
  const started = await startEmbedded(SVC_DATA_DIR);
  return { url: started.url, embedded: true, release: () => started.stop() };
}
