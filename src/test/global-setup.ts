import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";
import { migrate } from "@/server/db/migrate";
import { createDatabase, dropDatabase, uniqueName } from "./postgres";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
    cliBundle: string;
  }
}

/**
 * Migrates one template database per run; test files clone it (see test/database.ts). Builds the
 * CLI once per run too (see test/cli.ts).
 */
export default async function setup(project: TestProject) {
  const template = uniqueName("svc_template");
  const [url, cliBundle] = await Promise.all([createDatabase(template), bundleCli()]);
  await migrate(url);
  project.provide("templateDatabase", template);
  project.provide("cliBundle", cliBundle);
  return async () => {
    await dropDatabase(template);
    await rm(path.dirname(cliBundle), { recursive: true, force: true });
  };
}

/**
 * src/cli/main.ts as one JavaScript file, its packages imported from node_modules as tsx would: the
 * tests start the CLI some hundred times, and tsx compiling it at each start cost twice the CPU.
 * The file sits under node_modules so that Node.js finds the packages it imports.
 */
async function bundleCli(): Promise<string> {
  const cache = path.resolve("node_modules/.cache");
  await mkdir(cache, { recursive: true });
  const outfile = path.join(await mkdtemp(path.join(cache, "svc-cli-")), "main.mjs");
  await build({
    entryPoints: ["src/cli/main.ts"],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}
