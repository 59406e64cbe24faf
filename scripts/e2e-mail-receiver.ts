// The SMTP receiver of the Playwright run, on a fixed loopback port (see e2eMail in e2e-env.mjs),
// with its inbox readable over HTTP: a flow follows the link in an email the app sent.
import { createServer } from "node:http";
import { startMailReceiver } from "../src/test/mail-receiver";
import { e2eMail } from "./e2e-env.mjs";

const mail = e2eMail(Number(process.env.E2E_PORT ?? 3100));
const receiver = await startMailReceiver(mail.port);
const inbox = createServer((request, response) => {
  const to = new URL(request.url ?? "/", mail.inbox).searchParams.get("to") ?? "";
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify(receiver.to(to)));
});
await new Promise<void>((resolve) => inbox.listen(mail.port + 1, "127.0.0.1", resolve));
console.log(`Local SMTP receiver at ${receiver.url}, its inbox at ${mail.inbox}`);

const stop = () => process.exit(0);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
