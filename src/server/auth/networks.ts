import "server-only";
import ipaddr from "ipaddr.js";
import { LRUCache } from "lru-cache";

// The networks an API key may be used from (`allowed_cidrs`), parsed once per distinct list (keys
// sharing a list share it), with each client address's answer remembered beside them, since parsing
// an address costs far more than comparing it with 50 networks. An IPv4 client on an IPv6 socket
// (::ffff:203.0.113.7) counts as its IPv4 address. See docs/decisions/008-key-cache-and-invalidation.md.

// lru-cache allocates its slots up front: a few hundred per list, not the thousand a rare key needs.
const REMEMBERED_ADDRESSES = 256;
const PARSED_LISTS = 1_000;

export interface AllowedNetworks {
  /** IPv4 networks as [network, mask], both unsigned 32-bit integers. */
  v4: readonly (readonly [number, number])[];
  v6: readonly [ipaddr.IPv6, number][];
  /** Addresses already checked, and the answer. */
  decided: LRUCache<string, boolean>;
}

const v4Number = (address: ipaddr.IPv4): number => {
  const [a, b, c, d] = address.octets as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
};

const v4Mask = (bits: number): number => (bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0);

/**
 * Parses stored CIDRs; undefined for an empty list (any address). An entry that does not parse
 * (inputs are checked, so only a hand-edited row has one) allows nothing: the check fails closed.
 */
export function parseNetworks(cidrs: readonly string[]): AllowedNetworks | undefined {
  if (cidrs.length === 0) return undefined;
  const list = cidrs.join(",");
  let networks = parsedLists.get(list);
  if (!networks) parsedLists.set(list, (networks = parse(cidrs)));
  return networks;
}

const parsedLists = new LRUCache<string, AllowedNetworks>({ max: PARSED_LISTS });

function parse(cidrs: readonly string[]): AllowedNetworks {
  const v4: [number, number][] = [];
  const v6: [ipaddr.IPv6, number][] = [];
  for (const cidr of cidrs) {
    let address: ipaddr.IPv4 | ipaddr.IPv6;
    let bits: number;
    try {
      [address, bits] = ipaddr.parseCIDR(cidr);
    } catch {
      continue;
    }
    if (address.kind() === "ipv4") {
      const mask = v4Mask(bits);
      v4.push([(v4Number(address as ipaddr.IPv4) & mask) >>> 0, mask]);
    } else {
      v6.push([address as ipaddr.IPv6, bits]);
    }
  }
  return { v4, v6, decided: new LRUCache({ max: REMEMBERED_ADDRESSES }) };
}

/** Whether `address` (the client's, as the front door reports it) falls inside one of the networks. */
export function addressAllowed(networks: AllowedNetworks, address: string): boolean {
  let allowed = networks.decided.get(address);
  if (allowed === undefined) {
    allowed = inside(networks, address);
    networks.decided.set(address, allowed);
  }
  return allowed;
}

function inside(networks: AllowedNetworks, address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  if (parsed.kind() === "ipv4") {
    const value = v4Number(parsed as ipaddr.IPv4);
    return networks.v4.some(([network, mask]) => (value & mask) >>> 0 === network);
  }
  const v6 = parsed as ipaddr.IPv6;
  return networks.v6.some((range) => v6.match(range));
}

/** Whether `cidr` is an IPv4 or IPv6 CIDR ipaddr.js reads the way the check above will. */
export const isCidr = (cidr: string): boolean => ipaddr.isValidCIDR(cidr);
