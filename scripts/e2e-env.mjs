// What the Playwright run's server (scripts/e2e-server.mjs) and its setup (e2e/auth.setup.ts) share:
// the database of the run, and the first sys_admin the server seeds.

/** The PostgreSQL server tests may create databases on, and the e2e run's own database there. */
export function e2eDatabase() {
  const server = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = process.env.E2E_DATABASE ?? "svc_e2e";
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { server, name, url: url.toString() };
}

export const E2E_ADMIN = {
  username: process.env.E2E_ADMIN_USERNAME ?? "e2e-admin",
  password: process.env.E2E_ADMIN_PASSWORD ?? "e2e-admin-password-1",
};
