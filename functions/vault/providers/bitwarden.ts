import { z } from "zod";
import type { VaultFieldMeta } from "../../../schema/tables/vault.ts";
import {
  DEFAULT_MAX_ITEMS,
  getJson,
  type JsonAnswer,
  type ProviderCall,
  type ProviderHttpOptions,
  providerCall,
  unexpected,
  who,
} from "./http.ts";
import { domainsOf, totpOf } from "./item-parts.ts";
import {
  type ItemSecret,
  ProviderAuthError,
  type ProviderConnection,
  type ProviderItem,
  ProviderItemGoneError,
  type VaultProvider,
} from "./types.ts";

/**
 * Bitwarden through the CLI's `bw serve` (its Vault Management API): GET /list/object/items,
 * /list/object/folders and /object/item/{id}. Every answer is `{success, data}` or, with status
 * 400, `{success: false, message}`; a locked vault or a CLI that is not logged in answers that way
 * too and is ProviderAuthError, as is a 401/403 from a proxy in front of it. `bw serve` takes no
 * token of its own; one, when configured, goes out as `Authorization: Bearer` (for such a proxy).
 *
 * Only login items (type 1) are listed. The list carries every item's values: they are read for
 * the field metadata and dropped at once. Vault name: the item's folder name, or "Bitwarden" for an
 * item in no folder; a folder whose name is empty, contains ":" or is shared by another folder goes
 * by its folder id instead (an item id is cred:<connection_id>:<vault_name>:<item_id>). Reveal needs
 * only the item id (unique across folders), so moving an item to another folder does not lose it.
 *
 * Field ids: "username", "password", and "custom:<n>" for the n-th custom field (text → STRING,
 * hidden → CONCEALED; boolean and linked fields hold no fillable value and are left out).
 */

const LABEL = "Bitwarden";
export const BITWARDEN_NO_FOLDER = "Bitwarden";
const LOGIN_TYPE = 1;
const CUSTOM_TYPES: Record<number, string> = { 0: "STRING", 1: "CONCEALED" };

const nullableString = z.string().nullish();
const ItemSchema = z.object({
  id: z.string().min(1),
  type: z.number(),
  name: nullableString,
  folderId: nullableString,
  deletedDate: nullableString,
  login: z
    .object({
      username: nullableString,
      password: nullableString,
      totp: nullableString,
      uris: z.array(z.object({ uri: nullableString, match: z.number().nullish() })).nullish(),
    })
    .nullish(),
  fields: z.array(z.object({ name: nullableString, value: nullableString, type: z.number() })).nullish(),
});
type Item = z.infer<typeof ItemSchema>;
const FolderSchema = z.object({ id: nullableString, name: nullableString });

/** URI match types that make `uri` something other than a URL: 4 regular expression, 5 never. */
const NOT_A_URL_MATCH = new Set([4, 5]);

/** The `data` of a `{success: true}` answer; a refusal is thrown as the port's error, "Not found." as gone. */
function envelope(call: ProviderCall, answer: JsonAnswer, what: string): unknown {
  const body = answer.body as { success?: unknown; data?: unknown; message?: unknown } | undefined;
  if (answer.status === 200 && body?.success === true) return body.data;
  const message = typeof body?.message === "string" ? body.message : "";
  if (body?.success === false) {
    if (/locked|not logged in/i.test(message)) {
      throw new ProviderAuthError(`${who(call)}: the vault is locked or logged out (unlock it in the CLI that runs bw serve)`);
    }
    if (/not found/i.test(message))
      throw new ProviderItemGoneError(`${who(call)}: the item no longer exists; sync the vault again`);
  }
  // The message of any other refusal is left out: bw quotes request input in some of them.
  throw unexpected(call, `unexpected answer to ${what} (${answer.status})`);
}

function listData(call: ProviderCall, answer: JsonAnswer, what: string): unknown[] {
  const data = envelope(call, answer, what) as { object?: unknown; data?: unknown } | undefined;
  if (!Array.isArray(data?.data)) throw unexpected(call, `unexpected answer to ${what} (not a list)`);
  return data.data;
}

/** The login's custom fields we offer, with their field ids, in order. */
function customFields(item: Item): { fieldId: string; label: string; type: string; value: string | null | undefined }[] {
  return (item.fields ?? []).flatMap((f, i) => {
    const type = CUSTOM_TYPES[f.type];
    return type ? [{ fieldId: `custom:${i}`, label: f.name?.trim() || `custom:${i}`, type, value: f.value }] : [];
  });
}

function toItem(item: Item, vaultName: string): ProviderItem | undefined {
  const login = item.login;
  if (item.type !== LOGIN_TYPE || !login || item.deletedDate || item.id.includes(":")) return undefined;
  const fields: VaultFieldMeta[] = [];
  if (typeof login.username === "string") fields.push({ fieldId: "username", label: "username", type: "STRING" });
  if (typeof login.password === "string") fields.push({ fieldId: "password", label: "password", type: "CONCEALED" });
  for (const { fieldId, label, type } of customFields(item)) fields.push({ fieldId, label, type });
  const uris = (login.uris ?? []).flatMap((u) => (u.uri && !NOT_A_URL_MATCH.has(u.match ?? -1) ? [u.uri] : []));
  return {
    vaultName,
    itemId: item.id,
    label: item.name?.trim() || item.id,
    domains: domainsOf(uris),
    fields,
    // A Steam code or a malformed seed is no TOTP we can generate.
    hasTotp: totpOf(login.totp) !== null,
  };
}

/** Folder id → the vault name its items go by (see the file's comment). */
function folderNames(folders: unknown[]): Map<string, string> {
  const parsed = folders.flatMap((f) => {
    const r = FolderSchema.safeParse(f);
    // The list holds a "No Folder" entry whose id is null.
    return r.success && r.data.id ? [{ id: r.data.id, name: r.data.name?.trim() ?? "" }] : [];
  });
  const uses = new Map<string, number>();
  for (const f of parsed) uses.set(f.name, (uses.get(f.name) ?? 0) + 1);
  return new Map(parsed.map((f) => [f.id, f.name && !f.name.includes(":") && uses.get(f.name) === 1 ? f.name : f.id]));
}

export function createBitwardenProvider(opts: ProviderHttpOptions = {}): VaultProvider {
  const maxItems = opts.maxItems ?? DEFAULT_MAX_ITEMS;
  const callFor = (connection: ProviderConnection): ProviderCall =>
    providerCall(LABEL, connection, opts, connection.token ? { authorization: `Bearer ${connection.token}` } : {});

  return {
    kind: "bitwarden",

    async list(connection) {
      const call = callFor(connection);
      const folders = folderNames(listData(call, await getJson(call, ["list", "object", "folders"]), "the folder list"));
      const raw = listData(call, await getJson(call, ["list", "object", "items"]), "the item list");
      if (raw.length > maxItems) throw unexpected(call, `more than ${maxItems} items`);
      const items: ProviderItem[] = [];
      for (const entry of raw) {
        const parsed = ItemSchema.safeParse(entry);
        // Cards, identities, notes and SSH keys have shapes of their own: only a login must parse.
        if (!parsed.success) {
          if ((entry as { type?: unknown } | null)?.type === LOGIN_TYPE)
            throw unexpected(call, "unexpected shape of a login item");
          continue;
        }
        const folderId = parsed.data.folderId;
        const vaultName = folderId ? (folders.get(folderId) ?? folderId) : BITWARDEN_NO_FOLDER;
        const item = toItem(parsed.data, vaultName);
        if (item) items.push(item);
      }
      return items;
    },

    async reveal(connection, ref): Promise<ItemSecret> {
      const call = callFor(connection);
      const parsed = ItemSchema.safeParse(envelope(call, await getJson(call, ["object", "item", ref.itemId]), "an item"));
      if (!parsed.success) throw unexpected(call, "unexpected shape of a login item");
      const item = parsed.data;
      if (item.type !== LOGIN_TYPE || !item.login || item.deletedDate) {
        throw new ProviderItemGoneError(`${who(call)}: the item is no longer a login; sync the vault again`);
      }
      const fields: Record<string, string> = {};
      if (typeof item.login.username === "string") fields.username = item.login.username;
      if (typeof item.login.password === "string") fields.password = item.login.password;
      for (const f of customFields(item)) if (typeof f.value === "string") fields[f.fieldId] = f.value;
      return { fields, totp: totpOf(item.login.totp) };
    },
  };
}
