import "server-only";
/**
 * Finding an account's row by the provider account id, which is never stored as it is: the row's
 * key is an HMAC of it under the server's secret. The lookup tries the key under every configured
 * secret (newest first) and moves a row found under an older secret to the newest one, so rotating
 * LWC_SECRET keeps everyone's history. Row ids are remembered per instance (a row is never deleted).
 */
import { eq, inArray } from "drizzle-orm";
import type { HistoryDb } from "./database";
import { sealContext, type ContentSealer } from "./sealing";
import { historyAccounts } from "./schema";

const REMEMBERED_ACCOUNTS = 10_000;

interface AccountDirectory {
  /** The account's row id, or undefined when it has kept nothing yet. */
  find(db: HistoryDb, accountId: string): Promise<number | undefined>;
  /** The account's row id, made on its first write. */
  findOrCreate(db: HistoryDb, accountId: string): Promise<number>;
}

export function createAccountDirectory(sealer: ContentSealer, now: () => number): AccountDirectory {
  const remembered = new Map<string, number>();
  const remember = (accountId: string, rowId: number) => {
    remembered.delete(accountId);
    remembered.set(accountId, rowId);
    if (remembered.size > REMEMBERED_ACCOUNTS) remembered.delete(remembered.keys().next().value as string);
    return rowId;
  };

  async function find(db: HistoryDb, accountId: string): Promise<number | undefined> {
    const known = remembered.get(accountId);
    if (known !== undefined) return known;
    const keys = sealer.accountKeys(accountId);
    const rows = await db.select({ id: historyAccounts.id, key: historyAccounts.key }).from(historyAccounts).where(inArray(historyAccounts.key, keys));
    const row = rows.sort((a, b) => keys.indexOf(a.key) - keys.indexOf(b.key))[0];
    if (row === undefined) return undefined;
    if (row.key !== keys[0]) {
      await db
        .update(historyAccounts)
        .set({ key: keys[0]!, sealedAccount: sealer.seal(accountId, sealContext("account", 0)) })
        .where(eq(historyAccounts.id, row.id));
    }
    return remember(accountId, row.id);
  }

  return {
    find,
    async findOrCreate(db, accountId) {
      const found = await find(db, accountId);
      if (found !== undefined) return found;
      const [key] = sealer.accountKeys(accountId);
      const inserted = await db
        .insert(historyAccounts)
        .values({ key: key!, sealedAccount: sealer.seal(accountId, sealContext("account", 0)), createdAt: now() })
        .onConflictDoNothing({ target: historyAccounts.key })
        .returning({ id: historyAccounts.id });
      if (inserted[0]) return remember(accountId, inserted[0].id);
      // Another request made it meanwhile.
      const made = await find(db, accountId);
      if (made === undefined) throw new Error("the history account row could not be made");
      return made;
    },
  };
}
