import { z } from "zod";
import { itemSecretAad, type Keyring } from "../crypto.ts";
import { formatItemId } from "../item-ref.ts";
import type { VaultItemRow, VaultRepo } from "../vault.repo.ts";
import {
  type ItemSecret,
  type ProviderConnection,
  type ProviderItem,
  ProviderItemGoneError,
  type TotpSpec,
  type VaultProvider,
} from "./types.ts";

/**
 * The built-in vault (`osprey`): items live in vault_items, their values and TOTP seed sealed
 * together in `secret_ciphertext` (functions/vault/crypto.ts), bound to the item's row. The CLI
 * writes them (`osprey vault add`); this provider lists their metadata and opens one at fill time.
 */

const TotpSchema = z.object({
  secret: z.string().regex(/^[A-Z2-7]+$/),
  algorithm: z.enum(["SHA1", "SHA256", "SHA512"]),
  digits: z.number().int().min(6).max(8),
  period: z.number().int().positive(),
});

/** What a sealed secret holds, versioned so a later shape can still read an older one. */
const StoredSecret = z.object({
  v: z.literal(1),
  fields: z.record(z.string(), z.string()),
  totp: TotpSchema.nullable(),
});

/** Seals an item's values and TOTP seed to its row. */
export function sealItemSecret(keyring: Keyring, rowId: string, secret: ItemSecret): string {
  const stored: z.infer<typeof StoredSecret> = { v: 1, fields: secret.fields, totp: secret.totp };
  return keyring.seal(JSON.stringify(stored), itemSecretAad(rowId));
}

/** Opens an item's sealed secret; throws VaultSealError (wrong key, altered, another row's) or a plain Error when it opens to something else. */
export function openItemSecret(keyring: Keyring, rowId: string, sealed: string): ItemSecret {
  const notASecret = () => new Error(`the sealed secret of vault item ${rowId} is not an item secret`);
  const text = keyring.open(sealed, itemSecretAad(rowId));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text.
    throw notASecret();
  }
  const parsed = StoredSecret.safeParse(json);
  // The issues would quote the values: say only that the shape is wrong.
  if (!parsed.success) throw notASecret();
  const totp: TotpSpec | null = parsed.data.totp;
  return { fields: parsed.data.fields, totp };
}

export const toProviderItem = (row: VaultItemRow): ProviderItem => ({
  vaultName: row.vaultName,
  itemId: row.itemId,
  label: row.label,
  domains: row.domains,
  fields: row.fieldMetadata,
  hasTotp: row.hasTotp,
});

export function ospreyVaultProvider(deps: { repo: VaultRepo; keyring: Keyring }): VaultProvider {
  return {
    kind: "osprey",

    async list(connection: ProviderConnection): Promise<ProviderItem[]> {
      const rows = await deps.repo.listItems(connection.accountId, { connectionId: connection.id });
      return rows.map(toProviderItem);
    },

    async reveal(connection: ProviderConnection, ref: { vaultName: string; itemId: string }): Promise<ItemSecret> {
      const full = { connectionId: connection.id, ...ref };
      const row = await deps.repo.readSecret(connection.accountId, full);
      if (!row?.sealed) throw new ProviderItemGoneError(`vault item ${formatItemId(full)} no longer exists`);
      return openItemSecret(deps.keyring, row.id, row.sealed);
    },
  };
}
