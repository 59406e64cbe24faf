// @ts-check

/** @type {import("next").NextConfig} */
const nextConfig = {
  // A second build folder lets a developer build and test while another build is in use.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  poweredByHeader: false,
  compress: false,
  // The build type-checks the app; tests, e2e and bench are type-checked by `npm test` (tsc), which
  // checks the app too. SVC_BUILD_TYPE_CHECK=0 leaves the build's own check out where it would only
  // hold up a start: the first `npm start`.
  typescript: {
    tsconfigPath: "tsconfig.build.json",
    ignoreBuildErrors: process.env.SVC_BUILD_TYPE_CHECK === "0",
  },
  reactStrictMode: true,
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "pg",
    "@prisma/client",
    "@node-rs/argon2",
    // Tracing (src/server/tracing): the SDK and its instrumentations patch modules as Node.js loads
    // them, so they, and the clients they instrument, are loaded by Node.js, not bundled.
    "@opentelemetry/api",
    "@opentelemetry/sdk-node",
    "@opentelemetry/instrumentation-ioredis",
    "@prisma/instrumentation",
    "ioredis",
  ],
};

export default nextConfig;
