import type { VaultFieldMeta } from "../../schema/tables/vault.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { newId } from "../lib/ids.ts";
import { connectionTokenAad, itemSecretAad, type Keyring, VaultSealError } from "./crypto.ts";
import { normaliseDomain } from "./domains.ts";
import { sealItemSecret } from "./providers/osprey.ts";
import type { TotpSpec } from "./providers/types.ts";
import { type SealedValue, type VaultItemRow, type VaultRepo, vaultRepo } from "./vault.repo.ts";

/**
 * The built-in vault's writes (the operator CLI makes them; the API only reads): adding an item,
 * and re-sealing every sealed value under the current key after a rotation.
 */

export const BUILTIN_CONNECTION_NAME = "Osprey vault";
/** The fieldId an item's one-time code is asked for by (its metadata lists it as type OTP). */
export const TOTP_FIELD_ID = "totp";

const VAULT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;
const FIELD_ID = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const MAX_LABEL = 200;
const MAX_DOMAINS = 100;
const MAX_VALUE = 4096;

/** Why a vault name cannot be used, or null. No colon: it sits inside `cred:` ids. */
export function vaultNameProblem(name: string): string | null {
  return VAULT_NAME.test(name)
    ? null
    : "must be 1 to 64 letters, digits, spaces, '_', '.' or '-', starting with a letter or digit";
}

export function fieldIdProblem(id: string): string | null {
  if (!FIELD_ID.test(id)) return "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter";
  if (id.toLowerCase() === TOTP_FIELD_ID) return `"${TOTP_FIELD_ID}" is the one-time code's field; give the seed with --totp`;
  return null;
}

export function labelProblem(label: string): string | null {
  const l = label.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a label is one line of text
  if (l === "" || l.length > MAX_LABEL || /[\u0000-\u001f\u007f]/.test(l))
    return `must be 1 to ${MAX_LABEL} characters on one line`;
  return null;
}

/** A field's type as the API lists it: a username is STRING, anything named like a password, secret or token CONCEALED. */
export function fieldType(fieldId: string): string {
  return /password|passwd|secret|token|^pin$/i.test(fieldId) ? "CONCEALED" : "STRING";
}

export interface NewBuiltinItem {
  vaultName: string;
  label: string;
  /** As typed; normalised here. */
  domains: string[];
  /** In the order given; fieldIds unique. */
  fields: { fieldId: string; value: string }[];
  totp: TotpSpec | null;
}

const invalid = (message: string) => new AppError("INVALID_INPUT", message);

function checkItem(input: NewBuiltinItem): { domains: string[]; fields: VaultFieldMeta[] } {
  const nameProblem = vaultNameProblem(input.vaultName);
  if (nameProblem) throw invalid(`vault name ${nameProblem}`);
  const labelIssue = labelProblem(input.label);
  if (labelIssue) throw invalid(`label ${labelIssue}`);
  const domains: string[] = [];
  for (const d of input.domains) {
    const n = normaliseDomain(d);
    if (!n) throw invalid(`"${d}" is not a domain`);
    if (!domains.includes(n)) domains.push(n);
  }
  if (domains.length === 0) throw invalid("an item needs at least one domain to be filled on");
  if (domains.length > MAX_DOMAINS) throw invalid(`an item has at most ${MAX_DOMAINS} domains`);
  if (input.fields.length === 0) throw invalid("an item needs at least one field");
  const seen = new Set<string>();
  const fields: VaultFieldMeta[] = [];
  for (const f of input.fields) {
    const problem = fieldIdProblem(f.fieldId);
    if (problem) throw invalid(`field id "${f.fieldId}" ${problem}`);
    if (seen.has(f.fieldId)) throw invalid(`field "${f.fieldId}" is given twice`);
    seen.add(f.fieldId);
    // The value is never quoted, only its field named.
    if (f.value === "" || f.value.length > MAX_VALUE) throw invalid(`field "${f.fieldId}" must be 1 to ${MAX_VALUE} characters`);
    fields.push({ fieldId: f.fieldId, label: f.fieldId, type: fieldType(f.fieldId) });
  }
  if (input.totp) fields.push({ fieldId: TOTP_FIELD_ID, label: "one-time code", type: "OTP" });
  return { domains, fields };
}

export function builtinVaultService(deps: { db: Db; clock: Clock; keyring: Keyring }) {
  const repo = vaultRepo(deps.db);
  return {
    /**
     * Adds an item to the account's built-in vault (making the vault's connection the first
     * time). The row id is chosen first so the secret can be sealed to it before the one insert.
     */
    async addItem(accountId: string, input: NewBuiltinItem): Promise<VaultItemRow> {
      const { domains, fields } = checkItem(input);
      const at = deps.clock.now();
      const connection = await repo.builtinConnection(accountId, () => ({
        id: newId("vc"),
        name: BUILTIN_CONNECTION_NAME,
        createdAt: at,
        updatedAt: at,
      }));
      const id = newId("vi");
      const secretCiphertext = sealItemSecret(deps.keyring, id, {
        fields: Object.fromEntries(input.fields.map((f) => [f.fieldId, f.value])),
        totp: input.totp,
      });
      return repo.insertItem({
        id,
        accountId,
        connectionId: connection.id,
        vaultName: input.vaultName,
        itemId: newId("it"),
        label: input.label.trim(),
        domains,
        fieldMetadata: fields,
        hasTotp: input.totp !== null,
        enabled: true,
        secretCiphertext,
        createdAt: at,
        updatedAt: at,
      });
    },
  };
}

export type BuiltinVaultService = ReturnType<typeof builtinVaultService>;

export interface RekeyCount {
  /** Re-sealed under the current key. */
  resealed: number;
  /** Already under the current key. */
  current: number;
  /** Rows whose value did not open with any configured key (left as they were), with why. */
  failed: { id: string; reason: string }[];
}

export interface RekeySummary {
  keyId: string;
  items: RekeyCount;
  connections: RekeyCount;
}

async function rekeyAll(
  values: SealedValue[],
  keyring: Keyring,
  aad: (id: string) => string,
  replace: (v: SealedValue, sealed: string) => Promise<boolean>,
): Promise<RekeyCount> {
  const count: RekeyCount = { resealed: 0, current: 0, failed: [] };
  for (const v of values) {
    if (keyring.keyIdOf(v.sealed) === keyring.currentKeyId) {
      count.current++;
      continue;
    }
    let plaintext: string;
    try {
      plaintext = keyring.open(v.sealed, aad(v.id));
    } catch (err) {
      if (!(err instanceof VaultSealError)) throw err;
      count.failed.push({ id: v.id, reason: err.message });
      continue;
    }
    // A row that changed since it was read was written under the current key by then.
    if (await replace(v, keyring.seal(plaintext, aad(v.id)))) count.resealed++;
    else count.current++;
  }
  return count;
}

/**
 * Re-seals every built-in item secret and every connection token under the keyring's current
 * key (after a rotation: new OSPREY_VAULT_KEY, the old one in OSPREY_VAULT_KEY_PREVIOUS). A value
 * no configured key opens is reported and left alone. Safe to run again; it only moves what is
 * not under the current key yet.
 */
export async function rekeyVault(deps: { db: Db; clock: Clock; keyring: Keyring }): Promise<RekeySummary> {
  const repo: VaultRepo = vaultRepo(deps.db);
  const { items, connections } = await repo.sealedValues();
  const at = deps.clock.now();
  return {
    keyId: deps.keyring.currentKeyId,
    items: await rekeyAll(items, deps.keyring, itemSecretAad, (v, sealed) =>
      repo.replaceSecret(v.accountId, v.id, v.sealed, sealed, at),
    ),
    connections: await rekeyAll(connections, deps.keyring, connectionTokenAad, (v, sealed) =>
      repo.replaceToken(v.accountId, v.id, v.sealed, sealed, at),
    ),
  };
}
