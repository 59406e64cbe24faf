import "server-only";
import { Resolver } from "node:dns/promises";
import { env, parseDnsServer } from "@/server/env";

// The TXT lookup behind domain verification: node's resolver, asking the system's DNS servers or
// SVC_DNS_SERVERS, bounded by SVC_DNS_TIMEOUT_MS so a verification never hangs.

export type TxtLookup =
  /** The name answered (perhaps with no TXT records). */
  | { outcome: "answered"; values: string[] }
  /** The name does not exist, or holds no TXT record. */
  | { outcome: "absent" }
  /** No answer could be had (timeout, server failure, refused): nothing is known. */
  | { outcome: "unknown"; reason: string };

const ABSENT = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);

function resolver(timeoutMs: number): Resolver {
  // One try per server, each allowed the whole budget: the overall deadline below bounds the sum.
  const r = new Resolver({ timeout: timeoutMs, tries: 1 });
  const servers = env().SVC_DNS_SERVERS;
  if (servers) r.setServers(servers.split(",").map((entry) => parseDnsServer(entry.trim())!));
  return r;
}

/** The TXT records at `name`, each one's strings joined (a long record is split in 255-byte strings). */
export async function lookupTxt(name: string): Promise<TxtLookup> {
  const timeoutMs = env().SVC_DNS_TIMEOUT_MS;
  const r = resolver(timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<TxtLookup>((resolve) => {
    timer = setTimeout(() => {
      r.cancel();
      resolve({ outcome: "unknown", reason: `no DNS answer within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  const lookup = r.resolveTxt(name).then(
    (records): TxtLookup => ({ outcome: "answered", values: records.map((chunks) => chunks.join("")) }),
    (error: NodeJS.ErrnoException): TxtLookup =>
      ABSENT.has(String(error.code))
        ? { outcome: "absent" }
        : { outcome: "unknown", reason: `DNS lookup failed (${String(error.code ?? "error")})` },
  );
  try {
    return await Promise.race([lookup, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
