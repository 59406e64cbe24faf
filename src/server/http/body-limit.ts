import "server-only";
import { DomainError } from "@/server/errors";

/** The largest request body either door (REST, tRPC) reads: 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export const bodyTooLarge = () => new DomainError("payload_too_large", `The body is over ${BODY_LIMIT_BYTES} bytes.`);

/** The request's JSON body (application/json or a `+json` type such as SCIM's), at most 1 MiB; undefined when empty. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > BODY_LIMIT_BYTES) throw bodyTooLarge();
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A client that stops sending midway has sent no body worth answering with a 500.
    const { done, value } = await reader.read().catch(() => {
      throw new DomainError("validation_failed", "The body could not be read to its end.", {
        errors: [{ path: "body", message: "was cut off" }],
      });
    });
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await reader.cancel();
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
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
