import "server-only";
import type { IncomingMessage } from "node:http";
import { DomainError } from "@/server/errors";

/** The largest request body either door (REST, tRPC) reads: 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export const bodyTooLarge = () => new DomainError("payload_too_large", `The body is over ${BODY_LIMIT_BYTES} bytes.`);

/** A body read chunk by chunk: `next` gives undefined at its end; `cancel` drops the rest. */
interface BodyChunks {
  next: () => Promise<Uint8Array | undefined>;
  cancel: () => Promise<void> | void;
}

/** The request's JSON body (application/json or a `+json` type such as SCIM's), at most 1 MiB; undefined when empty. */
export function readJsonBody(request: Request): Promise<unknown> {
  const reader = request.body?.getReader();
  return readJson(
    request.headers.get("content-length"),
    request.headers.get("content-type"),
    reader && {
      next: () => reader.read().then(({ done, value }) => (done ? undefined : value)),
      cancel: () => reader.cancel(),
    },
  );
}

/** The same, read straight from Node.js' request, where the app's own server serves it. */
export function readIncomingJsonBody(request: IncomingMessage): Promise<unknown> {
  return readJson(
    request.headers["content-length"] ?? null,
    request.headers["content-type"] ?? null,
    incomingChunks(request),
  );
}

const EVENTS = ["readable", "end", "error", "close"] as const;

/**
 * Node.js' request read as the handler asks for it. Cancelled (a body over the limit), the rest is
 * read and dropped, so the connection stays usable for the client's next request.
 */
function incomingChunks(request: IncomingMessage): BodyChunks {
  return {
    next: () =>
      new Promise((resolve, reject) => {
        const next = () => {
          for (const event of EVENTS) request.off(event, next);
          if (request.readableEnded) return resolve(undefined);
          if (request.errored || request.destroyed) return reject(request.errored ?? new Error("aborted"));
          const chunk = request.read() as Buffer | null;
          if (chunk === null) return void EVENTS.forEach((event) => request.once(event, next));
          resolve(chunk);
        };
        next();
      }),
    cancel: () => void request.resume(),
  };
}

async function readJson(
  contentLength: string | null,
  contentType: string | null,
  chunks: BodyChunks | undefined,
): Promise<unknown> {
  if (Number(contentLength ?? "0") > BODY_LIMIT_BYTES) throw bodyTooLarge();
  if (!chunks) return undefined;
  const read: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A client that stops sending midway has sent no body worth answering with a 500.
    const chunk = await chunks.next().catch(() => {
      throw new DomainError("validation_failed", "The body could not be read to its end.", {
        errors: [{ path: "body", message: "was cut off" }],
      });
    });
    if (chunk === undefined) break;
    size += chunk.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await chunks.cancel();
      throw bodyTooLarge();
    }
    read.push(chunk);
  }
  const text = Buffer.concat(read).toString("utf8");
  if (text.trim() === "") return undefined;
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType ?? "")) {
    throw new DomainError("unsupported_media_type", "Send the body as application/json.");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError("validation_failed", "The body is not valid JSON.", {
      errors: [{ path: "body", message: "is not valid JSON" }],
    });
  }
}
