import "server-only";
import ipaddr from "ipaddr.js";

// Where an organization may point its LLM traffic: https only (http to a loopback host when the
// development flag allows it), to a public address or a public name. Addresses are read the way a
// client will read them: the WHATWG URL parser turns decimal, hex, octal and short IPv4 forms
// (2852039166, 0xa9fea9fe, 0251.0376.0251.0376, 127.1) into dotted ones, and ipaddr.js classifies
// them, IPv4-mapped IPv6 included. A name can still resolve to an internal address; the data plane
// checks the address it connects to.

const INTERNAL = "must not point to a private, loopback, link-local or otherwise internal address";

/** Names that never leave a private network: special-use names and the pseudo-TLDs networks use. */
const INTERNAL_NAMES = [
  "localhost",
  "local",
  "localdomain",
  "internal",
  "intranet",
  "private",
  "corp",
  "home",
  "lan",
  "home.arpa",
];

const isInternalName = (host: string) => INTERNAL_NAMES.some((name) => host === name || host.endsWith(`.${name}`));

/** Whether a literal address is one anyone on the internet could reach. */
export function isPublicAddress(host: string): boolean {
  const address = ipaddr.process(host);
  if (address.range() !== "unicast") return false;
  if (address.kind() === "ipv4") return true;
  // Only 2000::/3 is allocated for global unicast. That also leaves out ::/96, whose IPv4-compatible
  // addresses (::a9fe:a9fe) ipaddr.js calls unicast.
  return address.match(ipaddr.parseCIDR("2000::/3"));
}

/** The URL's host as compared: brackets of IPv6 and trailing dots (`localhost.`) removed. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "");

export const isLoopbackHost = (host: string) =>
  host === "localhost" ||
  host.endsWith(".localhost") ||
  (ipaddr.isValid(host) && ipaddr.process(host).range() === "loopback");

/** Why the URL is refused, or undefined when it is acceptable. */
export function baseUrlProblem(value: string, allowHttpLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  const host = hostOf(url);
  if (url.protocol === "http:" && allowHttpLoopback && isLoopbackHost(host)) return undefined;
  if (url.protocol !== "https:") return "must use https";
  if (ipaddr.isValid(host)) return isPublicAddress(host) ? undefined : INTERNAL;
  if (isInternalName(host)) return `${INTERNAL} (${host} is a name only a private network resolves)`;
  if (!host.includes(".")) return `${INTERNAL} (a single-label name resolves inside the network)`;
  return undefined;
}
