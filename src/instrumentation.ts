// Runs once when a server process starts (Next.js instrumentation hook).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Tracing first, so that the database's and Redis's clients load instrumented; nothing of it loads
  // when it is off.
  const { tracingWanted } = await import("@/server/tracing/spans");
  if (tracingWanted(process.env)) (await import("@/server/tracing/start")).startTracing();
  const [{ installFrontDoor }, { serveIncoming }] = await Promise.all([
    import("@/server/rest/front-door"),
    import("@/server/rest/handler"),
  ]);
  installFrontDoor(serveIncoming);
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const [{ detectPooler }, { connectionSettings }, { listenForInvalidations }] = await Promise.all([
    import("@/server/db/pooler"),
    import("@/server/db/client"),
    import("@/server/auth/invalidation"),
  ]);
  // Before serving: whether DATABASE_URL is a transaction pooler (then no startup timeouts, no
  // named statements, no LISTEN through it), and the route invalidations arrive by. A database that
  // does not answer yet is met again by the first request.
  await detectPooler(url, connectionSettings()).catch(() => false);
  listenForInvalidations();
  if (process.env.SVC_JOBS === "0") return;
  // The job queue: webhook deliveries and the scheduled jobs (message partitions, audit retention, …).
  const { startJobs } = await import("@/server/jobs/start");
  void startJobs();
}
