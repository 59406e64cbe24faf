import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./src", import.meta.url)),
      // Tests run server modules on the server, where "server-only" is nothing.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["src/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["src/test/global-setup.ts"],
    // Every answer a test gets from the app is checked against its declared schema.
    setupFiles: ["src/test/checked-fetch.ts"],
    pool: "forks",
    // Two files at a time, where the default on two cores is one: much of a file's time is spent
    // waiting for PostgreSQL, Redis or an app process of its own, not on this process's CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // next-auth imports "next/server" without an extension, which only a bundler resolves.
    server: { deps: { inline: ["next-auth"] } },
  },
});
