import "server-only";
import { patchBodyValidation, scimPatch, type ScimPatch, type ScimPatchOperation } from "scim-patch";
import { z } from "zod";
import { SCIM_MAX_OPERATIONS, SCIM_SCHEMAS } from "@/lib/scim";
import { ScimError } from "./errors";

// What directories send in a PATCH, made the standard's before the kept library applies it: Entra
// ID writes operation names capitalized ("Replace") and booleans as strings ("True"); Okta sends
// `{"op": "replace", "value": {"active": false}}` without a path, which the library takes as it is.

/** A boolean as a directory may send it: true/false, or the strings "True"/"False" in any case. */
export const scimBoolean = z.preprocess(
  (value) =>
    typeof value === "string"
      ? (({ true: true, false: false } as Record<string, boolean>)[value.toLowerCase()] ?? value)
      : value,
  z.boolean({ error: "must be true or false" }),
);

const operation = z.object({
  op: z.string().transform((op) => op.toLowerCase()),
  path: z.string().max(1024).optional(),
  value: z.unknown().optional(),
});

const patchBody = z.object({
  schemas: z.array(z.string()),
  Operations: z.array(operation).min(1).max(SCIM_MAX_OPERATIONS),
});

/** Names that reach an object's prototype rather than an attribute. */
const INTERNALS = /(^|[.[\]\s"])(__proto__|constructor|prototype)($|[.[\]\s"])/;

/**
 * The library walks paths and value objects by name: `__proto__`, `constructor` or `prototype`
 * there would reach Object.prototype of the whole process. No SCIM attribute has those names.
 */
function refuseObjectInternals(path: string | undefined, value: unknown): void {
  const named = (each: unknown): boolean =>
    typeof each === "object" &&
    each !== null &&
    Object.entries(each).some(([key, inner]) => INTERNALS.test(key) || named(inner));
  if ((path !== undefined && INTERNALS.test(path)) || named(value))
    throw new ScimError(400, "No attribute has that name.", "invalidPath");
}

/** The body's operations, checked against RFC 7644 §3.5.2; 400 `invalidSyntax` or `invalidValue` when they are not. */
function patchOperationsOf(body: unknown): ScimPatchOperation[] {
  const parsed = patchBody.safeParse(body);
  if (!parsed.success)
    throw new ScimError(
      400,
      `A PATCH body is {"schemas": ["${SCIM_SCHEMAS.patchOp}"], "Operations": [1 to ${SCIM_MAX_OPERATIONS} operations]}.`,
      "invalidSyntax",
    );
  for (const operation of parsed.data.Operations) refuseObjectInternals(operation.path, operation.value);
  const request = { schemas: parsed.data.schemas, Operations: parsed.data.Operations } as unknown as ScimPatch;
  try {
    patchBodyValidation(request);
  } catch (error) {
    throw new ScimError(400, (error as Error).message, "invalidSyntax");
  }
  return request.Operations;
}

/** The resource with the operations applied by the kept library; its refusals become SCIM's 400s. */
function applyPatch<T extends { schemas: string[]; meta: object }>(resource: T, operations: ScimPatchOperation[]): T {
  try {
    return scimPatch(resource as never, operations, { mutateDocument: false, treatMissingAsAdd: true }) as T;
  } catch (error) {
    const code = (error as { scimCode?: string }).scimCode;
    throw new ScimError(
      400,
      (error as Error).message,
      code === "noTarget" || code === "invalidPath" ? code : "invalidValue",
    );
  }
}

/** A PUT (the whole resource as the body) or a PATCH (operations on it). */
export interface ResourceChange {
  kind: "replace" | "patch";
  body: unknown;
}

/**
 * What a change makes of the resource as it stands: a PUT's body, or the resource with a PATCH's
 * operations applied (each first passed through `adapt`). The operations are checked at once,
 * before the resource is read.
 */
export function editOf(
  change: ResourceChange,
  adapt: (operation: ScimPatchOperation) => ScimPatchOperation[] = (operation) => [operation],
): <T extends { schemas: string[]; meta: object }>(resource: T) => unknown {
  if (change.kind === "replace") return () => change.body;
  const operations = patchOperationsOf(change.body).flatMap(adapt);
  return (resource) => applyPatch(resource, operations);
}
