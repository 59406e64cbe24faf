import "server-only";

// Where the API reference (src/app/api/docs) puts things: front-door.ts, which answers unknown /api
// paths before Next.js, lets exactly these through; the OpenAPI document and the reference name them.

/** A name as a URL's segment or an anchor: lower case, runs of anything else as one hyphen. */
export const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** Where the API reference (src/app/api/docs) describes a tag's operations in full. */
export const docsPathOfTag = (tag: string): string => `/api/docs/${slugify(tag)}`;
