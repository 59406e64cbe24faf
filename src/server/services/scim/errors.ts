import "server-only";

// A SCIM error (RFC 7644 §3.12): its HTTP status, and the `scimType` that tells a directory what to
// fix. The SCIM door answers it in SCIM's error schema; nothing else of the app throws it.

export type ScimType =
  | "invalidFilter"
  | "uniqueness"
  | "mutability"
  | "invalidValue"
  | "invalidSyntax"
  | "noTarget"
  | "tooMany"
  | "invalidPath"
  | "invalidVers";

export class ScimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: ScimType,
    /** Headers the answer carries (Retry-After of a 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ScimError";
  }
}

export const scimNotFound = (what: "User" | "Group") => new ScimError(404, `No such ${what}.`);
export const invalidValue = (detail: string) => new ScimError(400, detail, "invalidValue");
export const invalidFilter = (detail: string) => new ScimError(400, detail, "invalidFilter");
export const uniqueness = (detail: string) => new ScimError(409, detail, "uniqueness");
