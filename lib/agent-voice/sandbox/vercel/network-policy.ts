import "server-only";
/**
 * The network policy of an agent-voice sandbox: the VM reaches the provider's hosts and nothing
 * else (no other domain; the cloud metadata address denied even if a listed name resolved to it).
 */
import type { NetworkPolicy } from "@vercel/sandbox";

const METADATA_SUBNET = "169.254.169.254/32";

/** The hosts of `urls` (codexUpstreamUrls()), as the policy's allow list. */
export function providerNetworkPolicy(urls: readonly string[]): NetworkPolicy {
  const hosts = [...new Set(urls.map((url) => new URL(url).hostname.replace(/^\[(.*)\]$/, "$1")))];
  if (hosts.length === 0) throw new Error("the provider's network policy needs at least one URL");
  return { allow: hosts, subnets: { deny: [METADATA_SUBNET] } };
}
