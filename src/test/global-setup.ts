import type { TestProject } from "vitest/node";
import { migrate } from "@/server/db/migrate";
import { createDatabase, dropDatabase, uniqueName } from "./postgres";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/** Migrates one template database per run; test files clone it (see test/database.ts). */
export default async function setup(project: TestProject) {
  const template = uniqueName("svc_template");
  const url = await createDatabase(template);
  await migrate(url);
  project.provide("templateDatabase", template);
  return async () => {
    await dropDatabase(template);
  };
}
