import { afterAll } from "vitest";
import { startDnsServer, type TestDns } from "./dns-records";

// The DNS server of domain verification tests (./dns-records.ts), closed after the file's tests.
// Start it before anything reads the environment.

export type { TestDns };

export async function startTestDns(): Promise<TestDns> {
  const dns = await startDnsServer();
  afterAll(() => dns.close());
  return dns;
}
