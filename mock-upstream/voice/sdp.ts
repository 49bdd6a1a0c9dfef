/** SDP helpers for the mock's voice peer. */

/**
 * Keep only the offer's udp candidates on 127.0.0.1. Any other candidate would make werift reach
 * out beyond loopback (a `*.local` name even starts a multicast DNS lookup on the LAN).
 */
export function loopbackOnly(sdp: string): string {
  const lines = sdp.split(/\r?\n/);
  const kept = lines.filter((line) => {
    if (!line.startsWith("a=candidate:")) return true;
    const parts = line.slice("a=candidate:".length).split(" ");
    const protocol = parts[2]?.toLowerCase();
    const address = parts[4];
    return protocol === "udp" && address === "127.0.0.1";
  });
  return kept.join("\r\n");
}

export function looksLikeSdp(text: string): boolean {
  return /^\s*v=0/.test(text);
}
