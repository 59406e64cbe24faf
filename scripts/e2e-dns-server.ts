// The DNS server of the Playwright run (see e2eDns in e2e-env.mjs): the app's domain verification
// asks it for TXT records (SVC_DNS_SERVERS), which the flows publish over HTTP at its control port
// (`PUT /txt/<name>`, the values as a JSON list). Names it does not hold answer NXDOMAIN.
import http from "node:http";
import { startDnsServer } from "../src/test/dns-records";
import { e2eDns } from "./e2e-env.mjs";

const dns = e2eDns(Number(process.env.E2E_PORT ?? 3100));
const server = await startDnsServer(dns.port);

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
      server.setTxt(decodeURIComponent(name), values);
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
