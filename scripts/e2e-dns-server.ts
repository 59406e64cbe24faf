// The DNS server of the Playwright run (see e2eDns in e2e-env.mjs): the app's domain verification
// asks it for TXT records (SVC_DNS_SERVERS), which the flows publish over HTTP at its control port
// (`PUT /txt/<name>`, the values as a JSON list). Names it does not hold answer NXDOMAIN.
import http from "node:http";
import dns2 from "dns2";
import { e2eDns } from "./e2e-env.mjs";

const dns = e2eDns(Number(process.env.E2E_PORT ?? 3100));
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
      for (const data of values)
        // The typings ask for a parsed Resource; the encoder takes a plain record, as dns2's README shows.
        response.answers.push({
          name,
          type: Packet.TYPE.TXT,
          class: Packet.CLASS.IN,
          ttl: 1,
          data,
        } as unknown as (typeof response.answers)[number]);
    send(response);
  },
});
await server.listen({ udp: { port: dns.port, address: "127.0.0.1" } });

async function txtValues(request: http.IncomingMessage): Promise<string[]> {
  let body = "";
  for await (const chunk of request) body += chunk;
  const values: unknown = JSON.parse(body);
  if (!Array.isArray(values) || !values.every((value) => typeof value === "string"))
    throw new Error("The body must be a JSON list of strings.");
  return values;
}

const control = http.createServer((request, response) => {
  if (request.method === "GET" && request.url === "/") return response.writeHead(200).end("ok");
  const name = /^\/txt\/([^/]+)$/.exec(request.url ?? "")?.[1];
  if (request.method !== "PUT" || !name) return response.writeHead(404).end();
  txtValues(request).then(
    (values) => {
      records.set(decodeURIComponent(name).toLowerCase(), values);
      response.writeHead(204).end();
    },
    (error: unknown) => response.writeHead(400).end(String(error)),
  );
});
await new Promise<void>((resolve) => control.listen(Number(new URL(dns.control).port), "127.0.0.1", resolve));
console.log(`Local DNS server at 127.0.0.1:${dns.port} (UDP), its control at ${dns.control}`);

const stop = () => process.exit(0);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
