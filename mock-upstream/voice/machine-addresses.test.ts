import type os from "node:os";
import { describe, expect, it } from "vitest";
import { isMachineAddress, machineAddresses, normaliseAddress } from "./machine-addresses";
import { machineCandidatesOnly } from "./sdp";

type Interfaces = ReturnType<typeof os.networkInterfaces>;

const entry = (address: string, family: "IPv4" | "IPv6", internal = false) =>
  ({ address, family, internal, netmask: "", mac: "00:00:00:00:00:00", cidr: null, ...(family === "IPv6" ? { scopeid: 0 } : {}) }) as never;

const INTERFACES: Interfaces = {
  lo: [entry("127.0.0.1", "IPv4", true), entry("::1", "IPv6", true)],
  eth0: [entry("192.0.2.2", "IPv4"), entry("fd00::2", "IPv6"), entry("FE80::FC:FF:FE00:1", "IPv6")],
};

describe("machineAddresses", () => {
  const addresses = machineAddresses(INTERFACES);

  it("holds loopback and every interface address of both families", () => {
    expect([...addresses].sort()).toEqual(["127.0.0.1", "192.0.2.2", "::1", "fd00::2", "fe80::fc:ff:fe00:1"]);
  });

  it("always holds loopback, even with no interfaces listed", () => {
    expect([...machineAddresses({})].sort()).toEqual(["127.0.0.1", "::1"]);
  });

  it("accepts the machine's own addresses in any spelling and refuses every other host", () => {
    for (const own of ["127.0.0.1", "192.0.2.2", "::ffff:192.0.2.2", "FD00::2", "fe80::fc:ff:fe00:1%eth0", "::1"]) {
      expect(isMachineAddress(own, addresses), own).toBe(true);
    }
    for (const other of ["192.0.2.3", "127.0.0.2", "10.0.0.1", "8.8.8.8", "fd00::3", "::ffff:10.0.0.1", "host.local", ""]) {
      expect(isMachineAddress(other, addresses), other).toBe(false);
    }
  });

  it("normalises zones, case and IPv4-mapped IPv6", () => {
    expect(normaliseAddress("FE80::1%eth0")).toBe("fe80::1");
    expect(normaliseAddress("::FFFF:192.0.2.2")).toBe("192.0.2.2");
    expect(normaliseAddress("192.0.2.2")).toBe("192.0.2.2");
  });
});

describe("machineCandidatesOnly", () => {
  const candidate = (address: string, protocol = "udp", port = 50000) =>
    `a=candidate:1 1 ${protocol} 2122260223 ${address} ${port} typ host generation 0`;
  const offer = [
    "v=0",
    "m=audio 9 UDP/TLS/RTP/SAVPF 0",
    candidate("192.0.2.2"),
    candidate("fd00::2"),
    candidate("127.0.0.1"),
    candidate("192.0.2.2", "tcp", 9),
    candidate("0b1c2d3e-aaaa-bbbb-cccc-111122223333.local"),
    candidate("203.0.113.7"),
    "a=end-of-candidates",
    "",
  ].join("\r\n");

  it("keeps udp candidates on this machine's addresses and drops tcp, mDNS names and other hosts", () => {
    const kept = machineCandidatesOnly(offer, machineAddresses(INTERFACES)).split("\r\n");
    expect(kept.filter((line) => line.startsWith("a=candidate:"))).toEqual([candidate("192.0.2.2"), candidate("fd00::2"), candidate("127.0.0.1")]);
    expect(kept).toContain("a=end-of-candidates");
    expect(kept[0]).toBe("v=0");
  });

  it("with only loopback known, keeps only loopback", () => {
    const kept = machineCandidatesOnly(offer, machineAddresses({}));
    expect(kept.split("\r\n").filter((line) => line.startsWith("a=candidate:"))).toEqual([candidate("127.0.0.1")]);
  });
});
