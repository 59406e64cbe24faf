// @ts-check
// The security headers of every answer, which the app's server (scripts/server.mjs) sets: the static
// ones on all, the Content-Security-Policy and HSTS decided per request:
// a console page gets a fresh nonce for its scripts, and HSTS goes out when the app is served over
// HTTPS (AUTH_URL https).

/**
 * The policy of a page. With a `nonce` (console pages, rendered per request), scripts run only when
 * they carry it: Next.js reads the nonce from this policy and puts it on its own scripts. Without
 * one (pages rendered once at build time, such as the home page and the API reference, which hold
 * no user's data), Next.js's inline bootstrap scripts need 'unsafe-inline'. The dev server (React
 * Refresh, eval source maps) also needs 'unsafe-eval'; production never allows eval: the console's
 * plugin settings forms are checked by the server, and pick their schema's branches with a JSON
 * Schema interpreter that evaluates no code (src/components/plugins/branch-validator.ts).
 * @param {{ nonce?: string; dev: boolean }} options
 */
export function contentSecurityPolicy({ nonce, dev }) {
  const scripts = nonce ? `'nonce-${nonce}'` : "'unsafe-inline'";
  return [
    "default-src 'self'",
    `script-src 'self' ${scripts}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/** Two years, this host and its subdomains: browsers then never try plain HTTP. */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

export const STATIC_SECURITY_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];
