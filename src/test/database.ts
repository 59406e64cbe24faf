import { afterAll, inject } from "vitest";
import { stopListening } from "@/server/auth/invalidation";
import { createBaseClient, type BaseClient } from "@/server/db/client";
import { createDatabase, dropDatabase, uniqueName } from "./postgres";

export interface TestDatabase {
  name: string;
  url: string;
  client: BaseClient;
}

/**
 * A fresh, migrated database of this test file's own on the real PostgreSQL server, dropped after
 * the file's tests. Call at the top level of a test file, before anything reads the environment:
 * it becomes the file's DATABASE_URL, so services called in-process use it too.
 */
export async function testDatabase(): Promise<TestDatabase> {
  const name = uniqueName("svc_test");
  const url = await createDatabase(name, inject("templateDatabase"));
  process.env.DATABASE_URL = url;
  const client = createBaseClient(url, { poolMax: 4 });
  afterAll(async () => {
    await stopListening();
    await client.$disconnect();
    await dropDatabase(name);
  });
  return { name, url, client };
}
