import dns2 from "dns2";

// A real DNS server on 127.0.0.1 (UDP) for domain verification: it answers TXT questions from a
// table its owner fills, NXDOMAIN for names not in it, and becomes the app's resolver through
// SVC_DNS_SERVERS.

export interface TestDns {
  /** host:port, as SVC_DNS_SERVERS takes it. */
  address: string;
  /** Publishes TXT values at a name (replacing what was there); no values: the name answers with none. */
  setTxt(name: string, values: string[]): void;
  /** Removes the name: it answers NXDOMAIN. */
  remove(name: string): void;
  close(): Promise<void>;
}

/** The server on `port` (0: any free one); the Playwright run starts one too (scripts/e2e-dns-server.ts). */
export async function startDnsServer(port = 0): Promise<TestDns> {
  const records = new Map<string, string[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = question?.name ?? "";
      const values = records.get(name.toLowerCase());
      if (!values) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (question?.type === Packet.TYPE.TXT)
        for (const value of values)
          // The typings ask for a parsed Resource; the encoder takes a plain record, as dns2's README shows.
          response.answers.push({
            name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 1,
            data: value,
          } as unknown as (typeof response.answers)[number]);
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port, address: "127.0.0.1" } });
  const address = `127.0.0.1:${addresses.udp!.port}`;
  const dns: TestDns = {
    address,
    setTxt: (name, values) => void records.set(name.toLowerCase(), values),
    remove: (name) => void records.delete(name.toLowerCase()),
    close: async () => void (await server.close()),
  };
  return dns;
}
