import { openApiDocument } from "@/server/rest/openapi";

export const dynamic = "force-static";

export function GET() {
  return Response.json(openApiDocument());
}
