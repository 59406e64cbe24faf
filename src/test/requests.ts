import { z } from "zod";
import { exampleOf, tagGroups, type Operation } from "@/app/api/docs/_components/model";
import { openApiDocument } from "@/server/rest/openapi";
import type { RestOperation } from "@/server/rest/registry";

// Requests an operation accepts, for tests generated from the route registry: built from the API
// reference's view of each operation (its parameters and body, with the examples its zod schemas
// carry in `.meta({ examples })`).

/** Each operation as the API reference shows it, by id: schemas dereferenced, with examples. */
const REFERENCE: ReadonlyMap<string, Operation> = new Map(
  tagGroups(openApiDocument()).flatMap((group) => group.operations.map((operation) => [operation.id, operation])),
);

export function referenceOf(route: RestOperation): Operation {
  const operation = REFERENCE.get(route.id);
  if (!operation) throw new Error(`The API reference has no ${route.id}`);
  return operation;
}

/**
 * A body the route accepts: the API reference's example, its fields that `ids` names (`role_id`)
 * set to the values given. Throws for a route none can be built for, so that a new route is never
 * tried with a body it refuses before it gets anywhere.
 */
export function exampleBody(route: RestOperation, ids: Readonly<Record<string, string>> = {}): unknown {
  if (!route.body) return undefined;
  const schema = referenceOf(route).requestBody?.schema;
  const example = schema ? exampleOf(schema) : undefined;
  const body =
    typeof example === "object" && example !== null && !Array.isArray(example)
      ? Object.fromEntries(Object.entries(example).map(([field, value]) => [field, ids[field] ?? value]))
      : example;
  const parsed = route.body.safeParse(body);
  if (!parsed.success)
    throw new Error(
      `${route.method} ${route.path}: its declared body schema gives no example it accepts (${JSON.stringify(body)}: ${z.prettifyError(parsed.error)}); give it one with .meta({ examples })`,
    );
  return body;
}
