import type http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll } from "vitest";

// A test's own HTTP server on 127.0.0.1, on a port the system picks, closed when the file is done.

export async function listenOnLoopback(server: http.Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  afterAll(close);
  return { url: `http://127.0.0.1:${port}`, close };
}
