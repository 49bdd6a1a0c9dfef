/** SDP helpers for the mock's voice peer. */
import { isMachineAddress } from "./machine-addresses";

/**
 * Keep only the offer's udp candidates whose address is one of this machine's (`addresses`).
 * Any other candidate would let werift send to another host, and a `*.local` name would even
 * start a multicast DNS lookup on the LAN; a name is never an address of ours, so it goes too.
 */
export function machineCandidatesOnly(sdp: string, addresses: ReadonlySet<string>): string {
  const lines = sdp.split(/\r?\n/);
  const kept = lines.filter((line) => {
    if (!line.startsWith("a=candidate:")) return true;
    const parts = line.slice("a=candidate:".length).split(" ");
    const protocol = parts[2]?.toLowerCase();
    const address = parts[4];
    return protocol === "udp" && address !== undefined && isMachineAddress(address, addresses);
  });
  return kept.join("\r\n");
}

export function looksLikeSdp(text: string): boolean {
  return /^\s*v=0/.test(text);
}

/** The provider refuses an offer with no `m=` line: there is nothing to answer (werift would wait for ICE forever). */
export function hasMediaSection(sdp: string): boolean {
  return /^m=/m.test(sdp);
}
