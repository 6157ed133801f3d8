import { z } from "zod";
import type { VaultFieldMeta } from "../../../schema/tables/vault.ts";
import {
  DEFAULT_MAX_ITEMS,
  getJson,
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
 * 1Password through a 1Password Connect server's REST API (Bearer token): GET /v1/vaults,
 * /v1/vaults/{vault}/items (summaries) and /v1/vaults/{vault}/items/{item} (the full item, with
 * its fields). The API does not paginate; a summary has no fields, so listing reads every item in
 * full (a few at a time) to learn its fields and drops the values at once.
 *
 * Vault names: an item id is `cred:<connection_id>:<vault_name>:<item_id>`, so a vault is named by
 * its name unless that name is empty, contains ":" or is shared by another vault the token sees;
 * then it is named by its 1Password vault id (26 lower-case letters and digits), which is unique
 * and colon-free. Reveal finds the vault again by that same rule.
 */

export interface OnePasswordOptions extends ProviderHttpOptions {
  /** Full items read at once while listing; default 8. */
  concurrency?: number;
}

const LABEL = "1Password";
/** Categories listed whatever their fields; any other item is listed when it has a CONCEALED field. */
const LOGIN_CATEGORIES = new Set(["LOGIN", "PASSWORD"]);

const VaultsSchema = z.array(z.object({ id: z.string().min(1), name: z.string().optional() }));
const SummariesSchema = z.array(
  z.object({
    id: z.string().min(1),
    trashed: z.boolean().optional(),
    state: z.string().optional(),
  }),
);
const FullItemSchema = z.object({
  id: z.string().min(1),
  title: z.string().optional(),
  category: z.string().optional(),
  urls: z.array(z.object({ href: z.string().optional() })).optional(),
  fields: z
    .array(
      z.object({
        id: z.string().optional(),
        type: z.string().optional(),
        purpose: z.string().optional(),
        label: z.string().optional(),
        value: z.string().optional(),
      }),
    )
    .optional(),
});
type FullItem = z.infer<typeof FullItemSchema>;
type Field = NonNullable<FullItem["fields"]>[number];

const isOtp = (f: Field) => f.type?.toUpperCase() === "OTP";

/** The name each vault goes by in item ids (see the file's comment). */
function vaultNames(vaults: z.infer<typeof VaultsSchema>): Map<string, string> {
  const uses = new Map<string, number>();
  for (const v of vaults) {
    const name = v.name?.trim() ?? "";
    uses.set(name, (uses.get(name) ?? 0) + 1);
  }
  const out = new Map<string, string>();
  for (const v of vaults) {
    const name = v.name?.trim() ?? "";
    out.set(v.id, name && !name.includes(":") && uses.get(name) === 1 ? name : v.id);
  }
  return out;
}

function toItem(vaultName: string, item: FullItem): ProviderItem | undefined {
  const all = item.fields ?? [];
  const fields: VaultFieldMeta[] = [];
  for (const f of all) {
    if (!f.id || isOtp(f)) continue;
    fields.push({
      fieldId: f.id,
      label: f.label?.trim() || f.purpose?.toLowerCase() || f.id,
      type: (f.type ?? "STRING").toUpperCase(),
    });
  }
  const category = item.category?.toUpperCase() ?? "";
  if (!LOGIN_CATEGORIES.has(category) && !fields.some((f) => f.type === "CONCEALED")) return undefined;
  return {
    vaultName,
    itemId: item.id,
    label: item.title?.trim() || item.id,
    domains: domainsOf((item.urls ?? []).flatMap((u) => (u.href ? [u.href] : []))),
    fields,
    // An OTP field whose seed we cannot read would promise a code the fill could not make.
    hasTotp: all.some((f) => isOtp(f) && totpOf(f.value) !== null),
  };
}

/** `fn` over `items`, at most `limit` at a time; the first failure stops the rest from starting. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function createOnePasswordProvider(opts: OnePasswordOptions = {}): VaultProvider {
  const maxItems = opts.maxItems ?? DEFAULT_MAX_ITEMS;
  const concurrency = Math.max(1, opts.concurrency ?? 8);

  const callFor = (connection: ProviderConnection): ProviderCall => {
    if (!connection.token) throw new ProviderAuthError(`${LABEL} connection ${connection.id}: no token is configured`);
    return providerCall(LABEL, connection, opts, { authorization: `Bearer ${connection.token}` });
  };

  async function vaults(call: ProviderCall): Promise<Map<string, string>> {
    const answer = await getJson(call, ["v1", "vaults"]);
    const parsed = VaultsSchema.safeParse(answer.body);
    if (answer.status !== 200 || !parsed.success)
      throw unexpected(call, `unexpected answer to the vault list (${answer.status})`);
    return vaultNames(parsed.data);
  }

  /** The full item, or undefined when it is gone (404). */
  async function fullItem(call: ProviderCall, vaultId: string, itemId: string): Promise<FullItem | undefined> {
    const answer = await getJson(call, ["v1", "vaults", vaultId, "items", itemId]);
    if (answer.status === 404) return undefined;
    const parsed = FullItemSchema.safeParse(answer.body);
    if (answer.status !== 200 || !parsed.success) throw unexpected(call, `unexpected answer for an item (${answer.status})`);
    return parsed.data;
  }

  return {
    kind: "onepassword",

    async list(connection) {
      const call = callFor(connection);
      const names = await vaults(call);
      const refs: { vaultId: string; itemId: string }[] = [];
      for (const vaultId of names.keys()) {
        const answer = await getJson(call, ["v1", "vaults", vaultId, "items"]);
        // The vault went away between the two calls: it simply has no items now.
        if (answer.status === 404) continue;
        const parsed = SummariesSchema.safeParse(answer.body);
        if (answer.status !== 200 || !parsed.success) {
          throw unexpected(call, `unexpected answer to an item list (${answer.status})`);
        }
        for (const s of parsed.data) {
          if (s.trashed || (s.state && s.state.toUpperCase() !== "ACTIVE")) continue;
          // An id with ":" could not be told apart inside cred:<connection>:<vault>:<item>.
          if (s.id.includes(":")) continue;
          refs.push({ vaultId, itemId: s.id });
        }
        if (refs.length > maxItems) {
          throw unexpected(call, `more than ${maxItems} items; give the Connect token access to fewer vaults`);
        }
      }
      const items = await mapLimit(refs, concurrency, async ({ vaultId, itemId }) => {
        const item = await fullItem(call, vaultId, itemId);
        return item && toItem(names.get(vaultId) ?? vaultId, item);
      });
      return items.filter((i): i is ProviderItem => i !== undefined);
    },

    async reveal(connection, ref): Promise<ItemSecret> {
      const call = callFor(connection);
      const names = await vaults(call);
      const vaultId = [...names].find(([id, name]) => name === ref.vaultName || id === ref.vaultName)?.[0];
      if (!vaultId)
        throw new ProviderItemGoneError(`${who(call)}: the item's vault is gone or was renamed; sync the vault again`);
      const item = await fullItem(call, vaultId, ref.itemId);
      if (!item) throw new ProviderItemGoneError(`${who(call)}: the item no longer exists; sync the vault again`);
      const fields: Record<string, string> = {};
      let totp: ItemSecret["totp"] = null;
      for (const f of item.fields ?? []) {
        if (isOtp(f)) {
          totp ??= totpOf(f.value);
        } else if (f.id && f.value !== undefined) fields[f.id] = f.value;
      }
      return { fields, totp };
    },
  };
}
