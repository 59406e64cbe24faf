import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { afterAll, describe, expect, it } from "vitest";
import { TYPED_CLIENT, typedClientExample } from "@/app/api/docs/_components/typed-client";
import { systemActor } from "@/server/auth/actor";
import { openApiDocument } from "@/server/rest/openapi";
import { createApiKey } from "@/server/services/api-keys/service";
import { startApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createUserWith, seedRoles } from "@/test/fixtures";
import { readContext } from "@/server/db/context";

// What an integrator does with /api/openapi.json, against the production build: validate it,
// lint it, generate a client from it, and call the API with that client and a real key. A change
// that breaks generated clients fails here.

const exec = promisify(execFile);

const { client, url } = await testDatabase();
await seedRoles(client);
const app = await startApp(url);
const documentUrl = `${app.baseUrl}/api/openapi.json`;
const served = (await (await app.fetch("/api/openapi.json")).json()) as Record<string, unknown>;

// A key that reads every organization, and more organizations than one page holds.
const user = await createUserWith(client, ["svc:system:orgs:read"]);
const key = await createApiKey(readContext(systemActor("test")), user.id, {
  name: "typed client",
  scopes: ["svc:system:orgs:read"],
  expires_at: null,
});
const orgNames = Array.from({ length: 45 }, (_, i) => `typed-client-${String(i).padStart(2, "0")}`);
await client.organization.createMany({ data: orgNames.map((name) => ({ name })) });

const work = await mkdtemp(join(process.cwd(), "node_modules/.cache/typed-client-"));
afterAll(() => rm(work, { recursive: true, force: true }));

/** Runs the example as docs/api.md says, with tsx. */
const runExample = (apiKey: string) =>
  exec(process.execPath, ["node_modules/tsx/dist/cli.mjs", TYPED_CLIENT.exampleFile], {
    env: { ...process.env, SVC_URL: app.baseUrl, SVC_API_KEY: apiKey },
  });

describe("the served OpenAPI document, in integrators' tools", () => {
  it("is the document npm test's Spectral lint reads (scripts/lint-openapi.ts), as the build serves it", () => {
    expect(served).toStrictEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("passes @apidevtools/swagger-parser validation", async () => {
    const api = await SwaggerParser.validate(structuredClone(served) as never);
    expect(api.info.title).toBe("svc control plane API");
  });

  it("passes Redocly's recommended rules with no error, and no warning but the probes' lack of a 4xx", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(served), absoluteRef: documentUrl, config });
    const list = (severity: string) =>
      problems.filter((p) => p.severity === severity).map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}`);
    expect(list("error")).toEqual([]);
    // Liveness and readiness cannot fail with a 4xx; declaring one would be a response that never comes.
    expect(list("warn")).toEqual([
      "operation-4xx-response #/paths/~1api~1health/get/responses",
      "operation-4xx-response #/paths/~1api~1ready/get/responses",
    ]);
  });

  it("generates, with openapi-typescript, the types committed next to the example", async () => {
    const generated = COMMENT_HEADER + astToString(await openapiTS(new URL(documentUrl), { silent: true }));
    // A failure here means the API changed: regenerate with `vitest run <this file> -u` and commit.
    await expect(generated).toMatchFileSnapshot(resolve(TYPED_CLIENT.typesFile));
  });

  it("type-checks the example against those types, and refuses calls the API would refuse", async () => {
    const types = resolve(TYPED_CLIENT.typesFile).replace(/\.d\.ts$/, "");
    await writeFile(
      join(work, "misuse.ts"),
      [
        `import createClient from "openapi-fetch";`,
        `import type { paths } from ${JSON.stringify(types)};`,
        `const svc = createClient<paths>({ baseUrl: "http://localhost:3000" });`,
        `// @ts-expect-error: no such path`,
        `await svc.GET("/api/v1/no-such-path");`,
        `// @ts-expect-error: limit is a number`,
        `await svc.GET("/api/v1/organizations", { params: { query: { limit: "20" } } });`,
        `// @ts-expect-error: an organization needs a name`,
        `await svc.POST("/api/v1/organizations", { body: { display_name: "Acme" } });`,
        `const { data, error } = await svc.GET("/api/v1/organizations/{org_id}", { params: { path: { org_id: "x" } } });`,
        `// @ts-expect-error: an organization has no such field`,
        `console.log(data?.password);`,
        `// @ts-expect-error: a problem's code is one of the catalog's`,
        `if (error?.code === "no_such_code") console.log(error.detail);`,
        `if (error?.code === "not_found") console.log(error.detail, data?.tier);`,
      ].join("\n"),
    );
    await writeFile(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          types: ["node"],
        },
        files: [resolve(TYPED_CLIENT.exampleFile), resolve(TYPED_CLIENT.typesFile), join(work, "misuse.ts")],
      }),
    );
    // A run of tsc: on a 2-core machine busy with other test files it can take over a minute.
    const result = await exec(process.execPath, [
      "node_modules/typescript/bin/tsc",
      "-p",
      join(work, "tsconfig.json"),
    ]).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(result.stdout).toBe("");
  }, 180_000);

  it("runs the example against the app with a real key: who it is, then every page of organizations", async () => {
    const before = app.logs().length;
    const { stdout } = await runExample(key.raw_key);
    expect(stdout).toContain(`Signed in as ${user.username}`);
    const listed = stdout.split("\n").flatMap((line) => line.match(/^[0-9a-f-]{36} (\S+) free$/)?.[1] ?? []);
    expect(listed.sort()).toEqual(orgNames);
    const pages = app
      .logs()
      .slice(before)
      .split("\n")
      .filter((line) => line.includes('"path":"/api/v1/organizations"'));
    expect(pages).toHaveLength(3);
  });

  it("has the example report the problem's code when the key is refused", async () => {
    const failure = await runExample(`${key.raw_key.slice(0, -1)}x`).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain("invalid_api_key: ");
  });

  it("shows that same example in docs/api.md and on the API reference page", async () => {
    const example = typedClientExample();
    const guide = await readFile("docs/api.md", "utf8");
    expect(guide).toContain(`\`\`\`ts\n${example}\`\`\``);
    expect(guide).toContain(TYPED_CLIENT.generate);
    expect(guide).toContain(TYPED_CLIENT.install);
    const page = await (await app.fetch("/api/docs")).text();
    const text = page
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&quot;", '"')
      .replaceAll("&#x27;", "'")
      .replaceAll("&amp;", "&");
    expect(text).toContain(example.trimEnd());
    expect(text).toContain(TYPED_CLIENT.generate);
    expect(page).toContain('href="/api/openapi.json"');
  });
});
