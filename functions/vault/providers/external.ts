import type { VaultProviderKind } from "../../../schema/tables/vault.ts";
import { createBitwardenProvider } from "./bitwarden.ts";
import { createOnePasswordProvider } from "./onepassword.ts";
import type { VaultProvider } from "./types.ts";

/** The external password providers a composition root hands the vault: 1Password Connect and Bitwarden `bw serve`. */
export function externalVaultProviders(): Record<Exclude<VaultProviderKind, "osprey">, VaultProvider> {
  return { onepassword: createOnePasswordProvider(), bitwarden: createBitwardenProvider() };
}
