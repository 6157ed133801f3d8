import { z } from "zod";
import { parseVaultKey, type VaultKey } from "../vault/crypto.ts";
import { emptyAsUndefined } from "./config-env.ts";

/**
 * The credential vault's keys (issue [3 of 6]): environment fields (part of config.ts's schema) and
 * their mapping into `Config`; reads no environment itself. Without OSPREY_VAULT_KEY a single
 * machine uses a key file in its data directory (containers/local/vault-key.ts); the cloud sets it.
 * A bad key never appears in the error (config.ts redacts every variable named *KEY*, and these
 * messages never quote one).
 */

const KEY_FORMAT = "32 bytes as base64 (44 characters, e.g. from `openssl rand -base64 32`) or 64 hex characters";

export const VaultEnvFields = {
  OSPREY_VAULT_KEY: z.preprocess(emptyAsUndefined, z.string().optional()).transform((v, ctx): VaultKey | null => {
    if (v === undefined) return null;
    const key = parseVaultKey(v);
    if (!key) {
      ctx.addIssue({ code: "custom", message: `must be ${KEY_FORMAT}` });
      return z.NEVER;
    }
    return key;
  }),
  OSPREY_VAULT_KEY_PREVIOUS: z.preprocess(emptyAsUndefined, z.string().default("")).transform((v, ctx): VaultKey[] => {
    const keys: VaultKey[] = [];
    const entries = v.split(",").map((s) => s.trim());
    for (const [i, entry] of entries.entries()) {
      if (entry === "") continue;
      const key = parseVaultKey(entry);
      if (!key) {
        ctx.addIssue({ code: "custom", message: `has an entry (number ${i + 1}) that is not ${KEY_FORMAT}` });
        return z.NEVER;
      }
      keys.push(key);
    }
    return keys;
  }),
};

type VaultEnv = { OSPREY_VAULT_KEY: VaultKey | null; OSPREY_VAULT_KEY_PREVIOUS: VaultKey[] };

export interface VaultConfig {
  /** The key new vault values are sealed with; null: the data directory's key file (one machine). */
  key: VaultKey | null;
  /** Keys values sealed before a rotation still open with, until `osprey vault rekey` has moved them. */
  previousKeys: VaultKey[];
}

export function vaultConfig(e: VaultEnv): { vault: VaultConfig } {
  return { vault: { key: e.OSPREY_VAULT_KEY, previousKeys: e.OSPREY_VAULT_KEY_PREVIOUS } };
}
