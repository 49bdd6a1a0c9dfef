/**
 * A sandbox's network policy, as the fake applies and reports it.
 *
 * The fake's "internet" is the host's loopback ports it was started with (`egress`, such as the
 * mock upstream's 127.0.0.1:4010). A VM reaches one, at the same address inside, when its policy
 * lets that host through: `allow-all` (the API's default), or a domain list that names it
 * (`127.0.0.1`, or `localhost` for a `localhost:<port>` entry; `*` matches any). `deny-all`, and
 * a list without it, give the VM no way out. Subnet rules are kept and reported, not applied.
 */

type ApiPolicy = { mode: "allow-all" | "deny-all" } | { allow?: string[] | Record<string, unknown[]>; subnets?: { allow?: string[]; deny?: string[] } };

export interface EgressTarget {
  host: string;
  port: number;
}

function allowedDomains(policy: ApiPolicy | undefined): string[] | "all" {
  if (!policy || ("mode" in policy && policy.mode === "allow-all")) return "all";
  if ("mode" in policy) return [];
  const allow = policy.allow ?? [];
  return Array.isArray(allow) ? allow : Object.keys(allow);
}

/** The egress targets `policy` lets the VM reach. */
export function reachableTargets(policy: ApiPolicy | undefined, targets: readonly EgressTarget[]): EgressTarget[] {
  const domains = allowedDomains(policy);
  if (domains === "all") return [...targets];
  return targets.filter((target) => domains.includes(target.host) || domains.includes("*"));
}

/** The policy as the API answers it: a mode, or the legacy `custom` form the SDK maps back. */
export function policyAnswer(policy: ApiPolicy | undefined): Record<string, unknown> {
  if (!policy) return { mode: "allow-all" };
  if ("mode" in policy) return { mode: policy.mode };
  return {
    mode: "custom",
    allowedDomains: allowedDomains(policy),
    ...(policy.subnets?.allow ? { allowedCIDRs: policy.subnets.allow } : {}),
    ...(policy.subnets?.deny ? { deniedCIDRs: policy.subnets.deny } : {}),
  };
}

/** `127.0.0.1:4010` → {host, port}; throws on anything that is not a loopback host and a port. */
export function parseEgressTarget(entry: string): EgressTarget {
  const match = /^(127\.0\.0\.1|localhost):(\d{1,5})$/.exec(entry.trim());
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 65_535) throw new Error(`an egress target is 127.0.0.1:<port> or localhost:<port>, not ${entry}`);
  return { host: match[1]!, port: Number(match[2]) };
}
