import type { VaultFieldMeta, VaultProviderKind } from "../../../schema/tables/vault.ts";

/**
 * The port every password provider implements (issue [3 of 6]): the built-in `osprey` vault,
 * 1Password Connect and Bitwarden `bw serve`. Sync lists metadata only; values are revealed one
 * item at a time, when a run fills a field, and go no further than the browser.
 */

/** An item as a provider lists it: everything spec 2.2 shows, no value. */
export interface ProviderItem {
  vaultName: string;
  itemId: string;
  label: string;
  /** Registrable domains (lower-case, no scheme, no port) the item may be filled on. */
  domains: string[];
  fields: VaultFieldMeta[];
  hasTotp: boolean;
}

/** RFC 6238 parameters of an item's one-time codes. */
export interface TotpSpec {
  /** Base32 secret. */
  secret: string;
  algorithm: "SHA1" | "SHA256" | "SHA512";
  digits: number;
  period: number;
}

/** An item's secret values, by fieldId, and its TOTP seed: held only while a field is filled. */
export interface ItemSecret {
  fields: Record<string, string>;
  totp: TotpSpec | null;
}

/** What a provider needs of its connection (the token already decrypted, for this call only). */
export interface ProviderConnection {
  id: string;
  accountId: string;
  url: string | null;
  token: string | null;
}

export interface VaultProvider {
  readonly kind: VaultProviderKind;
  /** Every item the connection can see. Throws ProviderAuthError when the provider refuses the token. */
  list(connection: ProviderConnection): Promise<ProviderItem[]>;
  /** One item's values. Throws ProviderAuthError as list does, ProviderItemGoneError when it no longer exists. */
  reveal(connection: ProviderConnection, ref: { vaultName: string; itemId: string }): Promise<ItemSecret>;
}

/** The provider refused the connection's token (expired, revoked): spec 5.5, 401 UNAUTHORIZED naming the connection. */
export class ProviderAuthError extends Error {
  override name = "ProviderAuthError";
}

/** The provider could not be reached or answered something unusable (no secret in the message). */
export class ProviderUnavailableError extends Error {
  override name = "ProviderUnavailableError";
}

export class ProviderItemGoneError extends Error {
  override name = "ProviderItemGoneError";
}
