import { createHash } from "node:crypto";
import { DEFAULT_ACCOUNT, type MockAccount } from "./types";

/**
 * Fill an approval's account from the default. Another email without an explicit accountId/userId
 * gets its own stable ids (derived from the email), so two people signing in are two accounts.
 */
export function resolveAccount(partial: Partial<MockAccount> = {}): MockAccount {
  const email = partial.email?.trim() || DEFAULT_ACCOUNT.email;
  const isDefaultPerson = email.toLowerCase() === DEFAULT_ACCOUNT.email;
  const suffix = createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 12);
  return {
    email,
    plan: partial.plan?.trim() || DEFAULT_ACCOUNT.plan,
    accountId: partial.accountId?.trim() || (isDefaultPerson ? DEFAULT_ACCOUNT.accountId : `acct_${suffix}`),
    userId: partial.userId?.trim() || (isDefaultPerson ? DEFAULT_ACCOUNT.userId : `user_${suffix}`),
  };
}
