import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

// A real SMTP receiver for email tests on 127.0.0.1: keeps every message it accepts (envelope and
// raw text), and refuses recipients the test names with a permanent 550. Its test closes it (it is
// used by vitest's files and Playwright's alike).

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface MailReceiver {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Recipients refused with 550 from now on. */
  refuse(address: string): void;
  /** The messages sent to `address`. */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

/** The first link in a received message's text whose path starts with `pathPrefix`. */
export function linkIn(mail: ReceivedMail, pathPrefix: string): string | undefined {
  // The raw message may fold long lines (quoted-printable soft breaks): unfold before searching.
  const text = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const escaped = pathPrefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.match(new RegExp(`https?://[^\\s"<>]*${escaped}[A-Za-z0-9]+`))?.[0];
}

/** Listens on `port` of 127.0.0.1 (default: one the system picks). */
export async function startMailReceiver(port = 0): Promise<MailReceiver> {
  const received: ReceivedMail[] = [];
  const refused = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address.toLowerCase())) {
        const error = new Error("mailbox unavailable") as Error & { responseCode: number };
        error.responseCode = 550;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    received,
    refuse: (address) => refused.add(address.toLowerCase()),
    to: (address) => received.filter((m) => m.to.includes(address.toLowerCase())),
    close,
  };
}
