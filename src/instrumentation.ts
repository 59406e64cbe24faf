// Runs once when a server process starts (Next.js instrumentation hook).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installFrontDoor } = await import("@/server/rest/front-door");
  installFrontDoor();
  if (!process.env.DATABASE_URL || process.env.SVC_JOBS === "0") return;
  // The job queue: webhook deliveries and the scheduled jobs (message partitions, audit retention, …).
  const { startJobs } = await import("@/server/jobs/start");
  void startJobs();
}
