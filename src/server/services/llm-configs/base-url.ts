import "server-only";
import net from "node:net";

// Where an organization may point its LLM traffic: https only (http to a loopback host when the
// development flag allows it), and never to a literal private, loopback, link-local or otherwise
// internal address, which would let a tenant reach the platform's own network.

const BLOCKED_V4: [string, number][] = [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16],
  ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
];

const v4ToInt = (ip: string) => ip.split(".").reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;

function blockedV4(ip: string): boolean {
  const value = v4ToInt(ip);
  return BLOCKED_V4.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (value & mask) === (v4ToInt(base) & mask);
  });
}

function blockedV6(ip: string): boolean {
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1]) return blockedV4(mapped[1]);
  return lower === "::" || lower === "::1" || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith("ff");
}

const LOOPBACK_NAMES = new Set(["localhost", "localhost.localdomain"]);
const INTERNAL_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa"];

export const isLoopbackHost = (host: string) =>
  LOOPBACK_NAMES.has(host) || host.endsWith(".localhost") || (net.isIPv4(host) && host.startsWith("127.")) || host === "::1";

/** Why the URL is refused, or undefined when it is acceptable. */
export function baseUrlProblem(value: string, allowHttpLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (url.username || url.password) return "must not carry credentials";
  if (url.protocol === "http:" && allowHttpLoopback && isLoopbackHost(host)) return undefined;
  if (url.protocol !== "https:") return "must use https";
  if (net.isIPv4(host) ? blockedV4(host) : net.isIPv6(host) ? blockedV6(host) : LOOPBACK_NAMES.has(host) || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return "must not point to a private, loopback or link-local address";
  }
  return undefined;
}
