import "server-only";
import { DomainError } from "@/server/errors";

/** The largest request body either door (REST, tRPC) reads: 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export const bodyTooLarge = () => new DomainError("payload_too_large", `The body is over ${BODY_LIMIT_BYTES} bytes.`);
