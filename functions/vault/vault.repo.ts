import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import {
  accounts,
  type NewVaultConnectionRow,
  type NewVaultItemRow,
  type VaultConnectionRow,
  type VaultItemRow,
  vaultConnections,
  vaultItems,
} from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import type { ItemRef } from "./item-ref.ts";
import type { ProviderItem } from "./providers/types.ts";

export type { VaultConnectionRow, VaultItemRow };

export interface SyncSummary {
  added: number;
  updated: number;
  removed: number;
}

/** A sealed value and the row it is bound to (for `osprey vault rekey`). */
export interface SealedValue {
  id: string;
  accountId: string;
  sealed: string;
}

const refWhere = (accountId: string, ref: ItemRef) =>
  and(
    eq(vaultItems.accountId, accountId),
    eq(vaultItems.connectionId, ref.connectionId),
    eq(vaultItems.vaultName, ref.vaultName),
    eq(vaultItems.itemId, ref.itemId),
  );

/** What sync compares: everything a provider lists. */
const listed = (i: Pick<VaultItemRow, "label" | "domains" | "fieldMetadata" | "hasTotp">) =>
  JSON.stringify([i.label, i.domains, i.fieldMetadata.map((f) => [f.fieldId, f.label, f.type]), i.hasTotp]);

/**
 * Vault connections and items. Every read and write names the owning account, except the two
 * operator-wide reads the CLI needs (`connectionOwner`, `sealedValues`), which say so.
 */
export function vaultRepo(db: Db) {
  return {
    async insertConnection(row: NewVaultConnectionRow): Promise<VaultConnectionRow> {
      const [created] = await db.insert(vaultConnections).values(row).returning();
      if (!created) throw new Error("vault connection insert returned no row");
      return created;
    },

    async listConnections(accountId: string): Promise<VaultConnectionRow[]> {
      return db
        .select()
        .from(vaultConnections)
        .where(eq(vaultConnections.accountId, accountId))
        .orderBy(asc(vaultConnections.createdAt), asc(vaultConnections.id));
    },

    async getConnection(accountId: string, id: string): Promise<VaultConnectionRow | null> {
      const [row] = await db
        .select()
        .from(vaultConnections)
        .where(and(eq(vaultConnections.accountId, accountId), eq(vaultConnections.id, id)));
      return row ?? null;
    },

    /** Deletes the connection and, by the foreign key's cascade, its items; false when the account has no such connection. */
    async deleteConnection(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(vaultConnections)
        .where(and(eq(vaultConnections.accountId, accountId), eq(vaultConnections.id, id)))
        .returning({ id: vaultConnections.id });
      return rows.length > 0;
    },

    /** Operator-wide: the account owning a connection, for the CLI, which names an item by its itemId alone. */
    async connectionOwner(id: string): Promise<string | null> {
      const [row] = await db
        .select({ accountId: vaultConnections.accountId })
        .from(vaultConnections)
        .where(eq(vaultConnections.id, id));
      return row?.accountId ?? null;
    },

    /**
     * The account's built-in (`osprey`) connection, made with `make()` the first time. The account
     * row is locked while looking, so two first `vault add`s at once make one connection.
     */
    async builtinConnection(
      accountId: string,
      make: () => Omit<NewVaultConnectionRow, "accountId" | "provider">,
    ): Promise<VaultConnectionRow> {
      return db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
        const [existing] = await tx
          .select()
          .from(vaultConnections)
          .where(and(eq(vaultConnections.accountId, accountId), eq(vaultConnections.provider, "osprey")))
          .orderBy(asc(vaultConnections.createdAt), asc(vaultConnections.id))
          .limit(1);
        if (existing) return existing;
        const [created] = await tx
          .insert(vaultConnections)
          .values({ ...make(), accountId, provider: "osprey" })
          .returning();
        if (!created) throw new Error("vault connection insert returned no row");
        return created;
      });
    },

    /** Notes a sync's end: when it ran and why it failed (a message with no secret in it), or null. */
    async recordSync(accountId: string, id: string, at: Date, error: string | null): Promise<void> {
      await db
        .update(vaultConnections)
        .set(error === null ? { lastSyncedAt: at, lastError: null, updatedAt: at } : { lastError: error, updatedAt: at })
        .where(and(eq(vaultConnections.accountId, accountId), eq(vaultConnections.id, id)));
    },

    /**
     * Makes the connection's items what the provider listed: new ones inserted (enabled), changed
     * metadata updated (their enabled flag kept), missing ones deleted. The connection row is locked
     * for the sync, so two syncs of one connection take turns. Null when the account has no such
     * connection.
     */
    async syncItems(
      accountId: string,
      connectionId: string,
      items: readonly ProviderItem[],
      opts: { at: Date; newRowId: () => string },
    ): Promise<SyncSummary | null> {
      return db.transaction(async (tx) => {
        const [conn] = await tx
          .select({ id: vaultConnections.id })
          .from(vaultConnections)
          .where(and(eq(vaultConnections.accountId, accountId), eq(vaultConnections.id, connectionId)))
          .for("update");
        if (!conn) return null;
        const existing = await tx
          .select()
          .from(vaultItems)
          .where(and(eq(vaultItems.accountId, accountId), eq(vaultItems.connectionId, connectionId)));
        const key = (vaultName: string, itemId: string) => JSON.stringify([vaultName, itemId]);
        const byRef = new Map(existing.map((r) => [key(r.vaultName, r.itemId), r]));
        const summary: SyncSummary = { added: 0, updated: 0, removed: 0 };
        const seen = new Set<string>();
        for (const item of items) {
          const k = key(item.vaultName, item.itemId);
          if (seen.has(k)) continue; // a provider listing an item twice: the first counts
          seen.add(k);
          const meta = {
            label: item.label,
            domains: item.domains,
            fieldMetadata: item.fields,
            hasTotp: item.hasTotp,
          };
          const row = byRef.get(k);
          if (!row) {
            await tx.insert(vaultItems).values({
              id: opts.newRowId(),
              accountId,
              connectionId,
              vaultName: item.vaultName,
              itemId: item.itemId,
              ...meta,
              createdAt: opts.at,
              updatedAt: opts.at,
            });
            summary.added++;
          } else if (listed(row) !== listed(meta)) {
            await tx
              .update(vaultItems)
              .set({ ...meta, updatedAt: opts.at })
              .where(and(eq(vaultItems.accountId, accountId), eq(vaultItems.id, row.id)));
            summary.updated++;
          }
        }
        const gone = existing.filter((r) => !seen.has(key(r.vaultName, r.itemId))).map((r) => r.id);
        if (gone.length > 0) {
          await tx.delete(vaultItems).where(and(eq(vaultItems.accountId, accountId), inArray(vaultItems.id, gone)));
          summary.removed = gone.length;
        }
        return summary;
      });
    },

    /**
     * The account's items (of one connection when given), by label (case-insensitively, then
     * byte-wise, the same on every database whatever its collation), then by itemId's parts.
     */
    async listItems(accountId: string, opts: { connectionId?: string } = {}): Promise<VaultItemRow[]> {
      return db
        .select()
        .from(vaultItems)
        .where(
          and(
            eq(vaultItems.accountId, accountId),
            opts.connectionId === undefined ? undefined : eq(vaultItems.connectionId, opts.connectionId),
          ),
        )
        .orderBy(
          sql`lower(${vaultItems.label}) collate "C"`,
          sql`${vaultItems.label} collate "C"`,
          sql`${vaultItems.connectionId} collate "C"`,
          sql`${vaultItems.vaultName} collate "C"`,
          sql`${vaultItems.itemId} collate "C"`,
        );
    },

    async getItem(accountId: string, ref: ItemRef): Promise<VaultItemRow | null> {
      const [row] = await db.select().from(vaultItems).where(refWhere(accountId, ref));
      return row ?? null;
    },

    /** A built-in item, its secret already sealed to `row.id`. */
    async insertItem(row: NewVaultItemRow): Promise<VaultItemRow> {
      const [created] = await db.insert(vaultItems).values(row).returning();
      if (!created) throw new Error("vault item insert returned no row");
      return created;
    },

    async setEnabled(accountId: string, ref: ItemRef, enabled: boolean, at: Date): Promise<VaultItemRow | null> {
      const [row] = await db.update(vaultItems).set({ enabled, updatedAt: at }).where(refWhere(accountId, ref)).returning();
      return row ?? null;
    },

    /** Deletes the item; false when the account has no such item. */
    async removeItem(accountId: string, ref: ItemRef): Promise<boolean> {
      const rows = await db.delete(vaultItems).where(refWhere(accountId, ref)).returning({ id: vaultItems.id });
      return rows.length > 0;
    },

    /** A built-in item's row id and sealed secret (null for an external provider's item); null when there is no such item. */
    async readSecret(accountId: string, ref: ItemRef): Promise<{ id: string; sealed: string | null } | null> {
      const [row] = await db
        .select({ id: vaultItems.id, sealed: vaultItems.secretCiphertext })
        .from(vaultItems)
        .where(refWhere(accountId, ref));
      return row ?? null;
    },

    /**
     * Replaces an item's sealed secret, only if it still is `expected` (a rekey racing an edit
     * leaves the edit alone). False when it was not replaced.
     */
    async replaceSecret(accountId: string, id: string, expected: string, sealed: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(vaultItems)
        .set({ secretCiphertext: sealed, updatedAt: at })
        .where(and(eq(vaultItems.accountId, accountId), eq(vaultItems.id, id), eq(vaultItems.secretCiphertext, expected)))
        .returning({ id: vaultItems.id });
      return rows.length > 0;
    },

    /** Replaces a connection's sealed token, only if it still is `expected`. */
    async replaceToken(accountId: string, id: string, expected: string, sealed: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(vaultConnections)
        .set({ tokenCiphertext: sealed, updatedAt: at })
        .where(
          and(
            eq(vaultConnections.accountId, accountId),
            eq(vaultConnections.id, id),
            eq(vaultConnections.tokenCiphertext, expected),
          ),
        )
        .returning({ id: vaultConnections.id });
      return rows.length > 0;
    },

    /** Operator-wide: every sealed value of every account, for `osprey vault rekey`. */
    async sealedValues(): Promise<{ items: SealedValue[]; connections: SealedValue[] }> {
      const items = await db
        .select({ id: vaultItems.id, accountId: vaultItems.accountId, sealed: vaultItems.secretCiphertext })
        .from(vaultItems)
        .where(isNotNull(vaultItems.secretCiphertext))
        .orderBy(asc(vaultItems.id));
      const connections = await db
        .select({ id: vaultConnections.id, accountId: vaultConnections.accountId, sealed: vaultConnections.tokenCiphertext })
        .from(vaultConnections)
        .where(isNotNull(vaultConnections.tokenCiphertext))
        .orderBy(asc(vaultConnections.id));
      const present = (rows: { id: string; accountId: string; sealed: string | null }[]): SealedValue[] =>
        rows.flatMap((r) => (r.sealed === null ? [] : [{ id: r.id, accountId: r.accountId, sealed: r.sealed }]));
      return { items: present(items), connections: present(connections) };
    },
  };
}

export type VaultRepo = ReturnType<typeof vaultRepo>;
