import { describe, expect, it } from "vitest";
import { addressAllowed, parseNetworks } from "./networks";

// The network check of restricted keys, case by case (the HTTP tests show it on real requests).

const allowed = (cidrs: string[], address: string) => addressAllowed(parseNetworks(cidrs)!, address);

describe("allowed networks", () => {
  it("restricts nothing when there are none", () => {
    expect(parseNetworks([])).toBeUndefined();
  });

  it.each([
    [["0.0.0.0/0"], "255.255.255.255", true],
    [["192.0.2.0/31"], "192.0.2.1", true],
    [["192.0.2.0/31"], "192.0.2.2", false],
    [["192.0.2.9/24"], "192.0.2.200", true], // host bits in a CIDR are ignored
    [["128.0.0.0/1"], "200.1.1.1", true],
    [["128.0.0.0/1"], "127.255.255.255", false],
    [["::/0"], "2001:db8::1", true],
    [["2001:db8::/127"], "2001:db8::1", true],
    [["2001:db8::/127"], "2001:db8::2", false],
    [["192.0.2.0/24"], "::ffff:192.0.2.5", true],
    [["192.0.2.0/24"], "unknown", false],
    [["192.0.2.0/24"], "", false],
  ])("%j lets %s in: %s", (cidrs, address, expected) => {
    expect(allowed(cidrs, address)).toBe(expected);
  });

  it("answers a remembered address the same, and keeps at most 256 of them", () => {
    const networks = parseNetworks(["192.0.2.0/24"])!;
    for (let round = 0; round < 2; round++) {
      expect(addressAllowed(networks, "192.0.2.1")).toBe(true);
      expect(addressAllowed(networks, "198.51.100.1")).toBe(false);
    }
    for (let i = 0; i < 3_000; i++) addressAllowed(networks, `10.0.${i >> 8}.${i & 255}`);
    expect(networks.decided.size).toBeLessThanOrEqual(256);
    expect(addressAllowed(networks, "192.0.2.1")).toBe(true);
  });

  it("fails closed on an entry that does not parse", () => {
    expect(parseNetworks(["not a network"])).toMatchObject({ v4: [], v6: [] });
    expect(allowed(["not a network"], "192.0.2.1")).toBe(false);
    expect(allowed(["not a network", "192.0.2.0/24"], "192.0.2.1")).toBe(true);
  });
});
