import "server-only";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { baseUrlProblem, isLoopbackHost, isPublicAddress } from "@/server/services/llm-configs/base-url";

// One webhook attempt: the URL checked by the address rules again, its name resolved and every
// address it resolves to checked, then the request sent to the address that was checked (so a name
// that changes its answer between the check and the connection cannot lead inside). Redirects are
// not followed (node:http never does); 10 s for the whole attempt; the first 1 KiB of the answer kept.

const ATTEMPT_TIMEOUT_MS = 10_000;
const KEPT_ANSWER_BYTES = 1024;

export interface AttemptResult {
  /** The HTTP status, when an answer came. */
  status?: number;
  /** The first 1 KiB of the answer's body. */
  body?: string;
  /** Why no answer came, or why the address was refused. */
  error?: string;
}

/** The address to connect to, or why none may be used. */
async function checkedAddress(
  url: URL,
  allowHttpLoopback: boolean,
): Promise<{ address: string; family: 4 | 6 } | { error: string }> {
  const problem = baseUrlProblem(url.href, allowHttpLoopback);
  if (problem) return { error: `The URL ${problem}.` };
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "");
  const loopbackAllowed = allowHttpLoopback && url.protocol === "http:" && isLoopbackHost(host);
  let addresses: { address: string; family: number }[];
  try {
    addresses = ipaddr.isValid(host)
      ? [{ address: ipaddr.process(host).toString(), family: ipaddr.process(host).kind() === "ipv4" ? 4 : 6 }]
      : await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    return { error: `The name did not resolve: ${(error as NodeJS.ErrnoException).code ?? "error"}.` };
  }
  const allowed = (address: string) =>
    isPublicAddress(address) || (loopbackAllowed && ipaddr.process(address).range() === "loopback");
  const refused = addresses.find((a) => !allowed(a.address));
  if (refused || addresses.length === 0)
    return { error: "The URL resolves to a private, loopback, link-local or otherwise internal address." };
  const chosen = addresses[0]!;
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

/** POSTs `body` to `target` with `headers`; never throws. */
export async function postOnce(
  target: string,
  headers: Record<string, string>,
  body: string,
  allowHttpLoopback: boolean,
): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { error: "The URL is not valid." };
  }
  const checked = await checkedAddress(url, allowHttpLoopback);
  if ("error" in checked) return { error: checked.error };
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
  return new Promise<AttemptResult>((resolve) => {
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": "svc-webhooks/1",
        },
        lookup: pinned,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept >= KEPT_ANSWER_BYTES) return;
          chunks.push(chunk.subarray(0, KEPT_ANSWER_BYTES - kept));
          kept += Math.min(chunk.length, KEPT_ANSWER_BYTES - kept);
          if (kept >= KEPT_ANSWER_BYTES) response.destroy();
        });
        const done = () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode,
            body: Buffer.concat(chunks)
              .toString("utf8")
              .replace(/\uFFFD+$/, ""),
          });
        };
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)),
      ATTEMPT_TIMEOUT_MS,
    );
    request.on("error", (error) => {
      clearTimeout(timer);
      resolve({ error: `The request failed: ${error.message}`.slice(0, 500) });
    });
    request.end(body);
  });
}
