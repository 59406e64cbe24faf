// Runs once when a server process starts (Next.js instrumentation hook).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installFrontDoor } = await import("@/server/rest/front-door");
  installFrontDoor();
  if (!process.env.DATABASE_URL) return;
  const [{ schedulePartitionMaintenance }, { log }] = await Promise.all([
    import("@/server/db/partitions"),
    import("@/server/log"),
  ]);
  schedulePartitionMaintenance(process.env.DATABASE_URL, (error) =>
    log.warn("could not ensure message partitions", { error: error.message }),
  );
}
