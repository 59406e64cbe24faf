import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { env } from "@/server/env";

export type BaseClient = PrismaClient;

/** A Prisma client over node-postgres for one connection string (real or embedded PostgreSQL). */
export function createBaseClient(url: string, poolMax = env().DATABASE_POOL_MAX): BaseClient {
  const adapter = new PrismaPg({ connectionString: url, max: poolMax });
  return new PrismaClient({ adapter });
}

const globalForPrisma = globalThis as unknown as { svcBaseClient?: BaseClient };

/** The process-wide client for DATABASE_URL, kept across hot reloads in development. */
export function baseClient(): BaseClient {
  if (globalForPrisma.svcBaseClient) return globalForPrisma.svcBaseClient;
  const url = env().DATABASE_URL;
  if (!url) {
    throw new Error(
      "DATABASE_URL is not set: start the app with `npm start` (it brings up the embedded database) or set it.",
    );
  }
  globalForPrisma.svcBaseClient = createBaseClient(url);
  return globalForPrisma.svcBaseClient;
}
