import "server-only";
import { env } from "@/server/env";
import { connectionSettings } from "./client";
import { pgDump } from "./dump";
import { embeddedDumps, runningEmbedded, startEmbedded } from "./embedded";
import { requestDump, type DumpOptions } from "./embedded-dump";
import { detectPooler } from "./pooler";

export interface ResolvedDatabase {
  url: string;
  /** A session connection for migrations and maintenance: DATABASE_DIRECT_URL, else `url`. */
  directUrl: string;
  embedded: boolean;
  /** A consistent plain-SQL dump: by the process holding the embedded database, else by pg_dump. */
  dump(options?: DumpOptions): Promise<string>;
  /** Stops the embedded database when this process started it; otherwise does nothing. */
  release(): Promise<void>;
}

/**
 * DATABASE_URL when set (learning whether it is a transaction pooler, and failing when it cannot be
 * reached); otherwise the embedded database, reusing the one the running app serves or starting it
 * in this process.
 */
export async function resolveDatabase(): Promise<ResolvedDatabase> {
  const { DATABASE_URL, DATABASE_DIRECT_URL, SVC_DATA_DIR } = env();
  const release = async () => {};
  if (DATABASE_URL) {
    await detectPooler(DATABASE_URL, connectionSettings());
    const directUrl = DATABASE_DIRECT_URL ?? DATABASE_URL;
    return { url: DATABASE_URL, directUrl, embedded: false, dump: (options) => pgDump(directUrl, options), release };
  }
  const running = await runningEmbedded(SVC_DATA_DIR);
  if (running) {
    const dumps = await embeddedDumps(SVC_DATA_DIR);
    const dump = async (options: DumpOptions = {}) => {
      if (!dumps)
        throw new Error("The app serving the embedded database is older than this command: restart it first.");
      return requestDump(dumps, options);
    };
    return { url: running, directUrl: running, embedded: true, dump, release };
  }
  const started = await startEmbedded(SVC_DATA_DIR);
  return {
    url: started.url,
    directUrl: started.url,
    embedded: true,
    dump: (options) => started.dump(options),
    release: () => started.stop(),
  };
}
