/**
 * The addresses of this machine, which are the only ones the mock's voice peer talks to.
 *
 * A browser without a loopback switch sends its ICE checks from its LAN-address sockets to the
 * peer's 127.0.0.1 port, and the peer answers to where a check came from. Every such packet stays
 * inside the host: a packet to 127.0.0.1 or to one of the host's own addresses is delivered
 * locally by the kernel and never leaves through a network interface.
 */
import os from "node:os";

type Interfaces = ReturnType<typeof os.networkInterfaces>;

/** Every address of every interface (both families), plus 127.0.0.1 and ::1, normalised. */
export function machineAddresses(interfaces: Interfaces = os.networkInterfaces()): Set<string> {
  const addresses = new Set(["127.0.0.1", "::1"]);
  for (const entries of Object.values(interfaces)) {
    for (const entry of entries ?? []) addresses.add(normaliseAddress(entry.address));
  }
  return addresses;
}

/**
 * One spelling per address: lower case, no IPv6 zone (`fe80::1%eth0`), and an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.2`, from a dual-stack socket) as plain IPv4.
 */
export function normaliseAddress(address: string): string {
  const withoutZone = address.toLowerCase().split("%")[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(withoutZone);
  return mapped ? mapped[1]! : withoutZone;
}

export function isMachineAddress(address: string, addresses: ReadonlySet<string>): boolean {
  return addresses.has(normaliseAddress(address));
}
