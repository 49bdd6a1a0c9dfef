import { randomUUID } from "node:crypto";
import type { MockAccount } from "./mock-control";

/**
 * A fresh account for one test. The mock scopes faults and records requests by accountId, so
 * giving each test its own account keeps parallel tests from seeing each other's faults.
 */
export function uniqueAccount(label: string, plan = "plus"): MockAccount {
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 24) || "test";
  const nonce = randomUUID().slice(0, 8);
  return {
    accountId: `acct_e2e_${slug.replace(/-/g, "_")}_${nonce}`,
    email: `${slug}-${nonce}@e2e.example.com`,
    plan,
    userId: `user_e2e_${nonce}`,
  };
}
