import "server-only";
import { ERROR_CODES, ERRORS, type ErrorCode, type ProblemExtension, type ProblemHeader } from "@/lib/errors";
import { MAX_CREDITS } from "@/lib/credits";
import { LENGTH } from "@/lib/schemas/common";
import { METHODS } from "@/server/operations/operation";
import { REQUEST_ID } from "./front-door";
import { AUTHENTICATION_ERRORS } from "./openapi-errors";
import type { JsonSchema } from "./openapi-schemas";
import { PROBLEM_MAX_ITEMS, PROBLEM_TEXT_LENGTH, problemType } from "./problem";

// The headers the API sends and the one problem schema every error response refers to.

export type HeaderName = ProblemHeader | "X-Request-Id" | "Location" | "Cache-Control" | "Credits-Remaining";

/** The longest wait a 429 or 503 asks for: a key's longest window, a day. */
const MAX_RETRY_AFTER_SECONDS = 86_400;
/** An IETF RateLimit field as the API sends it: one policy, named `key` or `address`, and two numbers. */
const rateLimitField = (parameters: string): JsonSchema => ({
  type: "string",
  maxLength: LENGTH.SHORT,
  pattern: `^"(key|address)";${parameters}$`,
});
const ALL_METHODS = [...METHODS, "HEAD", "OPTIONS"];

export const HEADERS: Record<HeaderName, { description: string; schema: JsonSchema }> = {
  "X-Request-Id": {
    description:
      "The request's id: the one you sent (up to 128 letters, digits, `.`, `_` or `-`), or a new one. Quote it when reporting a problem.",
    schema: { type: "string", maxLength: 128, pattern: REQUEST_ID.source },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer", format: "int32", minimum: 0, maximum: MAX_RETRY_AFTER_SECONDS },
  },
  "RateLimit-Policy": {
    description:
      'The limit the request counts against, as an IETF RateLimit-Policy field: an API key\'s rate limit, `"key";q=<requests>;w=<window seconds>`, or the operation\'s calls per client address, `"address";q=<requests>;w=<window seconds>`. Not sent with a console session.',
    schema: { ...rateLimitField("q=\\d+;w=\\d+"), examples: ['"key";q=1000;w=60'] },
  },
  RateLimit: {
    description:
      'Where that limit\'s window stands, as an IETF RateLimit field: `"key";r=<requests remaining>;t=<seconds until the window resets>` (or `"address";...`).',
    schema: { ...rateLimitField("r=\\d+;t=\\d+"), examples: ['"key";r=998;t=42'] },
  },
  "Credits-Remaining": {
    description:
      "The credits the API key has left after this request, on the answers of a key with credits (one without has no budget to report).",
    schema: { type: "integer", format: "int64", minimum: 0, maximum: MAX_CREDITS },
  },
  Allow: {
    description: "The methods the path takes, comma-separated.",
    schema: { type: "string", maxLength: ALL_METHODS.join(", ").length },
  },
  Location: {
    description: "The path of the new resource.",
    schema: { type: "string", format: "uri-reference", maxLength: LENGTH.VERY_LONG },
  },
  "Cache-Control": {
    description: "`no-store`: the response holds a secret.",
    schema: { type: "string", const: "no-store" },
  },
};

const boundedText = { type: "string", maxLength: PROBLEM_TEXT_LENGTH };

const EXTENSION_TEXT: Record<ProblemExtension, { text: string; schema: JsonSchema }> = {
  errors: {
    text: `Each bad field (the first ${PROBLEM_MAX_ITEMS}): its dotted \`path\` (query fields start with \`query.\`, path parameters with \`params.\`) and what is wrong with it.`,
    schema: {
      type: "array",
      maxItems: PROBLEM_MAX_ITEMS,
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: boundedText, message: boundedText },
        additionalProperties: false,
      },
    },
  },
  required_permission: {
    text: "The permission the caller lacks.",
    schema: { type: "string", maxLength: LENGTH.STANDARD },
  },
  scopes: {
    text: "The scopes at fault.",
    schema: { type: "array", maxItems: PROBLEM_MAX_ITEMS, items: { type: "string", maxLength: LENGTH.STANDARD } },
  },
  setting: {
    text: "The key policy setting the request would break (`api_keys.max_lifetime_days`, `api_keys.require_expiry`, `api_keys.max_per_user`).",
    schema: { type: "string", maxLength: LENGTH.STANDARD },
  },
  allowed: {
    text: "The methods the path takes.",
    schema: { type: "array", maxItems: ALL_METHODS.length, items: { type: "string", enum: ALL_METHODS } },
  },
};

/** The HTTP status of a problem: a 4xx or 5xx. */
export const problemStatus = (status?: number): JsonSchema => ({
  type: "integer",
  format: "int32",
  ...(status === undefined ? { minimum: 400, maximum: 599 } : { minimum: status, maximum: status, const: status }),
});

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
        maxLength: Math.max(...ERROR_CODES.map((code) => problemType(code).length)),
        description: "`/api/docs#error-<code>`: the code's entry in the API reference.",
      },
      title: {
        type: "string",
        maxLength: LENGTH.STANDARD,
        description: "The code's title; the same for every problem with this code.",
      },
      status: { ...problemStatus(), description: "The HTTP status." },
      detail: { ...boundedText, description: "What went wrong with this request, for people." },
      code: { type: "string", enum: ERROR_CODES, description: "What went wrong, for programs." },
      ...Object.fromEntries(extensions),
    },
  };
}

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

/** A shared error response's name: the 401 of every authenticated operation, or its codes. */
export const responseName = (codes: readonly ErrorCode[]) =>
  codes.join() === AUTHENTICATION_ERRORS.join() ? "Unauthenticated" : codes.map(pascal).join("Or");
