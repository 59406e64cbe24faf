import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";

// The marker the process serving the embedded database writes (embedded.ts): its address, among
// other things. Read apart from embedded.ts, which loads PGlite, by code of the app that only asks
// whether it is on the embedded database.

/** The marker of the embedded database kept in `dataDir`. */
export const markerPath = (dataDir: string) => path.join(dataDir, "embedded.json");

/** Whether `url` is the address the embedded database of `dataDir` is served at now. */
export function isEmbeddedAddress(url: string, dataDir: string): boolean {
  try {
    return (JSON.parse(readFileSync(markerPath(dataDir), "utf8")) as { url?: unknown }).url === url;
  } catch {
    return false;
  }
}
