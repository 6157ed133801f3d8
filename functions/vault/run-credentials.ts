import type { VaultFieldMeta, VaultProviderKind } from "../../schema/tables/vault.ts";
import type { Db } from "../db/db.ts";
import { AppError, type ErrorDetail } from "../lib/app-error.ts";
import { connectionTokenAad, type Keyring } from "./crypto.ts";
import { formatItemId, parseItemId } from "./item-ref.ts";
import { ospreyVaultProvider } from "./providers/osprey.ts";
import type { ItemSecret, VaultProvider } from "./providers/types.ts";
import { type VaultItemRow, vaultRepo } from "./vault.repo.ts";

/**
 * Vault items in runs (spec 4.1 use_vault / credential_item_ids, issue [3 of 6]): admission checks
 * the ids a request names against the account's items; the worker lists what the run may use
 * (metadata only, for the model's prompt) and reveals one item's values at the moment a field is
 * filled. Every call names the run's account: an item of another account is never found.
 */

/** An item as a run sees it: what the model may be told (never a value). */
export interface RunCredentialItem {
  /** The spec 2.2 itemId (cred:<connection_id>:<vault_name>:<item_id>). */
  itemId: string;
  label: string;
  /** Host names the item may be filled on (a page's registrable domain must be one of theirs). */
  domains: string[];
  fields: VaultFieldMeta[];
  hasTotp: boolean;
}

/** Why an item's values could not be revealed; the message names the item, never a value. */
export class CredentialUnavailableError extends Error {
  override name = "CredentialUnavailableError";
}

export interface RunCredentials {
  /**
   * Admission: every entry of `ids` must be an enabled item of the account; otherwise 400
   * INVALID_INPUT with one detail per failing entry (path credential_item_ids.<i>). `undefined`
   * (all enabled items) always passes.
   */
  admit(accountId: string, ids: readonly string[] | undefined): Promise<void>;
  /** The items a run of the account may use: exactly `ids` (those still enabled), or every enabled item. */
  forRun(accountId: string, ids: readonly string[] | undefined): Promise<RunCredentialItem[]>;
  /** One item's values, read from its provider now. Throws CredentialUnavailableError (disabled, removed, refused, unreachable). */
  reveal(accountId: string, itemId: string): Promise<ItemSecret>;
}

export interface RunCredentialsDeps {
  db: Db;
  /** Opens connection tokens and built-in items. Without it, reveal fails (admission and listing still work). */
  keyring: Keyring | null;
  providers: Partial<Record<Exclude<VaultProviderKind, "osprey">, VaultProvider>>;
}

const toRunItem = (row: VaultItemRow): RunCredentialItem => ({
  itemId: formatItemId(row),
  label: row.label,
  domains: row.domains,
  fields: row.fieldMetadata,
  hasTotp: row.hasTotp,
});

export function runCredentials(deps: RunCredentialsDeps): RunCredentials {
  const repo = vaultRepo(deps.db);

  /** The enabled rows of `ids` (in their order), or of the whole account; a problem per failing entry. */
  async function resolve(accountId: string, ids: readonly string[] | undefined) {
    const rows = await repo.listItems(accountId);
    if (ids === undefined) return { rows: rows.filter((r) => r.enabled), problems: [] as ErrorDetail[] };
    const byId = new Map(rows.map((r) => [formatItemId(r), r]));
    const problems: ErrorDetail[] = [];
    const picked: VaultItemRow[] = [];
    const seen = new Set<string>();
    for (const [i, id] of ids.entries()) {
      const row = byId.get(id);
      const problem = !parseItemId(id)
        ? "is not a vault itemId (cred:<connection_id>:<vault_name>:<item_id>)"
        : !row
          ? "is not a vault item of this account (GET /v1/vault/items lists them; sync first if it is new)"
          : !row.enabled
            ? "is disabled (enable it with osprey vault enable)"
            : null;
      if (problem) problems.push({ code: "custom", path: ["credential_item_ids", i], message: `${id} ${problem}` });
      else if (row && !seen.has(id)) {
        seen.add(id);
        picked.push(row);
      }
    }
    return { rows: picked, problems };
  }

  const builtin = deps.keyring ? ospreyVaultProvider({ repo, keyring: deps.keyring }) : null;

  return {
    async admit(accountId, ids) {
      if (ids === undefined) return;
      const { problems } = await resolve(accountId, ids);
      if (problems.length === 0) return;
      const first = problems[0] as ErrorDetail;
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
      throw new AppError(
        "INVALID_INPUT",
        `Invalid credential_item_ids at body.credential_item_ids.${first.path[1]}: ${first.message}${more}`,
        { details: problems.map((d) => ({ ...d, location: "body" })) },
      );
    },

    async forRun(accountId, ids) {
      return (await resolve(accountId, ids)).rows.map(toRunItem);
    },

    async reveal(accountId, itemId) {
      const ref = parseItemId(itemId);
      const row = ref ? await repo.getItem(accountId, ref) : null;
      if (!ref || !row) throw new CredentialUnavailableError(`vault item ${itemId} no longer exists`);
      if (!row.enabled) throw new CredentialUnavailableError(`vault item ${itemId} was disabled`);
      if (!deps.keyring) {
        throw new CredentialUnavailableError("this worker has no vault key (OSPREY_VAULT_KEY), so it cannot open vault items");
      }
      const conn = await repo.getConnection(accountId, ref.connectionId);
      if (!conn) throw new CredentialUnavailableError(`vault item ${itemId} no longer exists`);
      const provider = conn.provider === "osprey" ? builtin : (deps.providers[conn.provider] ?? null);
      if (!provider) throw new CredentialUnavailableError(`this server has no ${conn.provider} provider`);
      try {
        const token = conn.tokenCiphertext ? deps.keyring.open(conn.tokenCiphertext, connectionTokenAad(conn.id)) : null;
        return await provider.reveal(
          { id: conn.id, accountId, url: conn.url, token },
          { vaultName: ref.vaultName, itemId: ref.itemId },
        );
      } catch (err) {
        // Provider errors carry no values (providers/types.ts); a seal error names no value either.
        const why = err instanceof Error ? err.message : String(err);
        throw new CredentialUnavailableError(`vault item ${itemId} could not be read: ${why}`, { cause: err });
      }
    },
  };
}
