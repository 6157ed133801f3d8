import type { VaultItemRow, VaultProviderKind } from "../../schema/tables/vault.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { newId } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import { connectionTokenAad, type Keyring, VaultSealError } from "./crypto.ts";
import { formatItemId } from "./item-ref.ts";
import { ospreyVaultProvider } from "./providers/osprey.ts";
import { ProviderAuthError, ProviderUnavailableError, type VaultProvider } from "./providers/types.ts";
import { type SyncSummary, vaultRepo } from "./vault.repo.ts";

/**
 * The vault as the API serves it (spec 4.3): list the account's items, and sync them from every
 * connected provider. Values never pass through here: sync lists metadata only, and a provider's
 * token is opened for the one call that needs it.
 */

export interface VaultItemWire {
  itemId: string;
  connectionId: string;
  label: string;
  vaultName: string;
  domains: string[];
  fieldMetadata: { fieldId: string; label: string; type: string }[];
  hasTotp: boolean;
  enabled: boolean;
}

export interface VaultSyncWire {
  items: VaultItemWire[];
  sync_summary: SyncSummary;
  failed_connections: { connectionId: string; message: string }[];
}

export const vaultItemToWire = (row: VaultItemRow): VaultItemWire => ({
  itemId: formatItemId(row),
  connectionId: row.connectionId,
  label: row.label,
  vaultName: row.vaultName,
  domains: row.domains,
  fieldMetadata: row.fieldMetadata.map((f) => ({ fieldId: f.fieldId, label: f.label, type: f.type })),
  hasTotp: row.hasTotp,
  enabled: row.enabled,
});

export interface VaultServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  keyring: Keyring;
  /** The external providers (the built-in one is made here, over the same repo and keyring). */
  providers: Partial<Record<Exclude<VaultProviderKind, "osprey">, VaultProvider>>;
}

export function vaultService(deps: VaultServiceDeps) {
  const repo = vaultRepo(deps.db);
  const builtin = ospreyVaultProvider({ repo, keyring: deps.keyring });
  const providerOf = (kind: VaultProviderKind): VaultProvider | null =>
    kind === "osprey" ? builtin : (deps.providers[kind] ?? null);

  const list = async (auth: AuthContext): Promise<VaultItemWire[]> =>
    (await repo.listItems(auth.account.id)).map(vaultItemToWire);

  return {
    list,

    /**
     * Syncs every connection, one after another. A provider that refuses its token (5.5: an
     * expired vault connection) fails the request with 401 naming it, after the others synced; one
     * that cannot be reached keeps its items and is reported in failed_connections.
     */
    async sync(auth: AuthContext): Promise<VaultSyncWire> {
      const accountId = auth.account.id;
      const summary: SyncSummary = { added: 0, updated: 0, removed: 0 };
      const failed: { connectionId: string; message: string }[] = [];
      const refused: string[] = [];
      for (const conn of await repo.listConnections(accountId)) {
        const at = deps.clock.now();
        const provider = providerOf(conn.provider);
        const fail = async (message: string) => {
          failed.push({ connectionId: conn.id, message });
          await repo.recordSync(accountId, conn.id, at, message);
        };
        if (!provider) {
          await fail(`this server has no ${conn.provider} provider`);
          continue;
        }
        try {
          const token = conn.tokenCiphertext ? deps.keyring.open(conn.tokenCiphertext, connectionTokenAad(conn.id)) : null;
          const items = await provider.list({ id: conn.id, accountId, url: conn.url, token });
          const counted = await repo.syncItems(accountId, conn.id, items, { at, newRowId: () => newId("vi") });
          if (counted) {
            summary.added += counted.added;
            summary.updated += counted.updated;
            summary.removed += counted.removed;
          }
          await repo.recordSync(accountId, conn.id, at, null);
        } catch (err) {
          if (err instanceof ProviderAuthError) {
            refused.push(conn.id);
            await repo.recordSync(accountId, conn.id, at, err.message);
          } else if (err instanceof ProviderUnavailableError) {
            await fail(err.message);
          } else if (err instanceof VaultSealError) {
            // The token was sealed under a key this server no longer has (a rotation without rekey).
            await fail(
              "the connection's token cannot be opened with this server's vault key; run osprey vault rekey with the old key in OSPREY_VAULT_KEY_PREVIOUS, or connect it again",
            );
          } else {
            deps.logger.error("vault sync failed", { connection_id: conn.id, error: err });
            await fail("the sync failed on the server's side; try again");
          }
        }
      }
      if (refused.length > 0) {
        throw new AppError(
          "UNAUTHORIZED",
          `The password provider refused the token of vault connection ${refused.join(", ")} (expired or revoked); connect it again with osprey vault connect. Other connections were synced.`,
        );
      }
      return { items: await list(auth), sync_summary: summary, failed_connections: failed };
    },
  };
}

export type VaultService = ReturnType<typeof vaultService>;
