// Generates the Prisma client without the native schema engine, which cannot be downloaded
// everywhere: `prisma generate` only needs the engine's path to exist, not to run it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("prisma/schema.prisma")) process.exit(0);
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = "1";
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
