import "server-only";
import { ERROR_CODES, ERRORS, type ErrorCode, type ProblemExtension, type ProblemHeader } from "@/lib/errors";
import { AUTHENTICATION_ERRORS } from "./openapi-errors";
import type { JsonSchema } from "./openapi-schemas";

// The headers the API sends and the one problem schema every error response refers to.

export type HeaderName = ProblemHeader | "X-Request-Id" | "Location" | "Cache-Control";

export const HEADERS: Record<HeaderName, { description: string; schema: JsonSchema }> = {
  "X-Request-Id": {
    description:
      "The request's id: the one you sent (up to 128 letters, digits, `.`, `_` or `-`), or a new one. Quote it when reporting a problem.",
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 0 } },
  "RateLimit-Policy": {
    description:
      'Sent when an API key authenticated the request: the key\'s rate limit, as an IETF RateLimit-Policy field, `"key";q=<requests>;w=<window seconds>`.',
    schema: { type: "string", examples: ['"key";q=1000;w=60'] },
  },
  RateLimit: {
    description:
      'Sent when an API key authenticated the request: where the key\'s window stands, as an IETF RateLimit field, `"key";r=<requests remaining>;t=<seconds until the window resets>`.',
    schema: { type: "string", examples: ['"key";r=998;t=42'] },
  },
  Allow: { description: "The methods the path takes, comma-separated.", schema: { type: "string" } },
  Location: { description: "The path of the new resource.", schema: { type: "string", format: "uri-reference" } },
  "Cache-Control": {
    description: "`no-store`: the response holds a secret.",
    schema: { type: "string", const: "no-store" },
  },
};

const EXTENSION_TEXT: Record<ProblemExtension, { text: string; schema: JsonSchema }> = {
  errors: {
    text: "Each bad field: its dotted `path` (query fields start with `query.`, path parameters with `params.`) and what is wrong with it.",
    schema: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
        additionalProperties: false,
      },
    },
  },
  required_permission: { text: "The permission the caller lacks.", schema: { type: "string" } },
  scopes: { text: "The scopes at fault.", schema: { type: "array", items: { type: "string" } } },
  allowed: { text: "The methods the path takes.", schema: { type: "array", items: { type: "string" } } },
};

const codeList = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\``).join(", ");

/** RFC 9457 problem details, with the members the error catalog lets each code carry. */
export function problemSchema(): JsonSchema {
  const extensions = Object.entries(EXTENSION_TEXT).map(([name, { text, schema }]) => {
    const carriers = ERROR_CODES.filter((code) => (ERRORS[code].extensions as readonly string[]).includes(name));
    return [name, { ...schema, description: `${text} Sent with ${codeList(carriers)}.` }];
  });
  return {
    type: "object",
    description:
      "An error, as RFC 9457 problem details (`application/problem+json`). Branch on `code`, not on `detail`.",
    required: ["type", "title", "status", "detail", "code"],
    properties: {
      type: {
        type: "string",
        format: "uri-reference",
        description: "`/api/docs#error-<code>`: the code's entry in the API reference.",
      },
      title: { type: "string", description: "The code's title; the same for every problem with this code." },
      status: { type: "integer", description: "The HTTP status." },
      detail: { type: "string", description: "What went wrong with this request, for people." },
      code: { type: "string", enum: ERROR_CODES, description: "What went wrong, for programs." },
      ...Object.fromEntries(extensions),
    },
  };
}

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

/** A shared error response's name: the 401 of every authenticated operation, or its codes. */
export const responseName = (codes: readonly ErrorCode[]) =>
  codes.join() === AUTHENTICATION_ERRORS.join() ? "Unauthenticated" : codes.map(pascal).join("Or");
