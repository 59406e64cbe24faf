import { baseClient } from "@/server/db/client";

// Readiness: 200 while the database answers, 503 (with Retry-After) when it does not.
export const dynamic = "force-dynamic";

export async function GET() {
  try {
    await baseClient().$queryRaw`SELECT 1`;
    return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
  } catch {
    return Response.json(
      { status: "unavailable" },
      { status: 503, headers: { "Cache-Control": "no-store", "Retry-After": "5" } },
    );
  }
}
