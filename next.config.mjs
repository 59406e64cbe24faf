// @ts-check

const isDev = process.env.NODE_ENV !== "production";

/**
 * Content-Security-Policy for an app that serves all of its own assets
 * (no external fonts, images, scripts or CDNs). Next's inline bootstrap
 * scripts and styles need 'unsafe-inline'; the dev server (React Refresh,
 * eval source maps) additionally needs 'unsafe-eval'. Production never
 * allows eval: the console's plugin settings forms validate in the browser
 * with a validator that interprets JSON Schema instead of compiling it
 * (src/components/plugins/no-eval-validator.ts).
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  {
    key: "Permissions-Policy",
    value: "camera=(), microphone=(), geolocation=()",
  },
];

/** @type {import("next").NextConfig} */
const nextConfig = {
  // A second build folder lets a developer build and test while another build is in use.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  poweredByHeader: false,
  compress: false,
  // The build type-checks the app; tests, e2e and bench are type-checked by `npm test` (tsc).
  typescript: { tsconfigPath: "tsconfig.build.json" },
  reactStrictMode: true,
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "pg",
    "@prisma/client",
    "@node-rs/argon2",
  ],
  async headers() {
    return [
      {
        source: "/:path*",
        headers: securityHeaders,
      },
    ];
  },
};

export default nextConfig;
