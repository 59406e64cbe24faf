import { readFileSync } from "node:fs";
import { join } from "node:path";

// The typed client that docs/api.md and the API reference show. The example is a file of the
// repository, which src/server/rest/openapi.http.test.ts type-checks and runs against the app.

export const TYPED_CLIENT = {
  exampleFile: "examples/typed-client/list-organizations.ts",
  typesFile: "examples/typed-client/schema.d.ts",
  generate: 'npx openapi-typescript "$SVC_URL/api/openapi.json" -o schema.d.ts',
  install: "npm install openapi-fetch",
  run: "SVC_URL=http://localhost:3000 SVC_API_KEY=cdk_… npx tsx list-organizations.ts",
} as const;

/** The example's source, as it is in the repository. */
export const typedClientExample = (): string =>
  // The page is rendered at build time, from the checkout: the file need not ship with the server.
  readFileSync(join(/* turbopackIgnore: true */ process.cwd(), TYPED_CLIENT.exampleFile), "utf8");
