import createClient from "openapi-fetch";
import type { paths } from "./schema";

const svc = createClient<paths>({
  baseUrl: process.env.SVC_URL,
  headers: { "X-API-KEY": process.env.SVC_API_KEY },
});

const me = await svc.GET("/api/v1/me");
if (me.error) throw new Error(`${me.error.code}: ${me.error.detail}`);
console.log(`Signed in as ${me.data.user.username}`);

// Every organization the key may read, a page at a time.
let cursor: string | undefined;
do {
  const { data, error } = await svc.GET("/api/v1/organizations", { params: { query: { limit: 20, cursor } } });
  if (error) throw new Error(`${error.code}: ${error.detail}`);
  for (const org of data.data) console.log(org.id, org.name, org.tier);
  cursor = data.next_cursor ?? undefined;
} while (cursor);
