import { and, eq } from "drizzle-orm";
import { vaultConnections } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

/**
 * What `osprey vault disconnect` needs beyond vault.repo.ts (kept apart while that file was being
 * written beside it; it belongs there).
 */
export function vaultConnectionRepo(db: Db) {
  return {
    /** Deletes the connection and, by the foreign key's cascade, its items; false when the account has no such connection. */
    async deleteConnection(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(vaultConnections)
        .where(and(eq(vaultConnections.accountId, accountId), eq(vaultConnections.id, id)))
        .returning({ id: vaultConnections.id });
      return rows.length > 0;
    },
  };
}
