import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Db } from "../../../functions/db/db.ts";
import type { Clock } from "../../../functions/lib/clock.ts";
import { rekeyProfiles } from "../../../functions/profiles/profile-rekey.ts";
import type { Services } from "../../../functions/services/index.ts";
import {
  builtinVaultService,
  fieldIdProblem,
  labelProblem,
  rekeyVault,
  vaultNameProblem,
} from "../../../functions/vault/builtin-vault.service.ts";
import type { Keyring } from "../../../functions/vault/crypto.ts";
import { normaliseDomain } from "../../../functions/vault/domains.ts";
import { formatItemId, type ItemRef, parseItemId } from "../../../functions/vault/item-ref.ts";
import type { TotpSpec } from "../../../functions/vault/providers/types.ts";
import { parseTotp, TotpFormatError } from "../../../functions/vault/totp.ts";
import { type VaultItemRow, vaultRepo } from "../../../functions/vault/vault.repo.ts";
import { splitList, table, UsageError } from "../format.ts";
import { VAULT_CONNECT_COMMANDS, vaultConnectCommand } from "./vault-connect.ts";

/**
 * `osprey vault ...`: the built-in vault's items (add, remove) and every item's enabled flag,
 * listing, and re-sealing after a key rotation; the external providers' connections are
 * vault-connect.ts's. A secret is never printed; given as `-` it is read
 * from standard input (one line each, in the order given), so it stays out of shell history.
 */

type Out = (line: string) => void;

export interface VaultCommandDeps {
  db: Db;
  services: Services;
  clock: Clock;
  /** Built on first need, so only the commands that seal make the key file. */
  keyring(): Keyring;
}

export interface VaultIo {
  out: Out;
  err: Out;
  /** Where values given as `-` are read from. */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
}

export async function vaultCommand(deps: VaultCommandDeps, args: string[], io: VaultIo): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === "add") return add(deps, rest, io);
  if (sub === "list") return list(deps, rest, io.out);
  if (sub === "remove") return remove(deps, rest, io.out);
  if (sub === "enable" || sub === "disable") return setEnabled(deps, rest, io.out, sub === "enable");
  if (sub === "rekey") return rekey(deps, rest, io.out);
  // The external providers' connections: connect, connections, disconnect.
  if ((VAULT_CONNECT_COMMANDS as readonly (string | undefined)[]).includes(sub)) return vaultConnectCommand(deps, args, io);
  throw new UsageError(sub ? `unknown vault command "${sub}"` : "vault needs a command");
}

/** A value that is `-`, to be read from standard input, and what it is for. */
interface Pending {
  what: string;
  set(value: string): void;
}

async function readLines(io: VaultIo, pending: Pending[]): Promise<void> {
  if (pending.length === 0) return;
  if (io.input.isTTY) io.err(`Reading ${pending.map((p) => p.what).join(", ")} from standard input, one line each:`);
  const rl = createInterface({ input: io.input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  let i = 0;
  try {
    for await (const line of rl) {
      const p = pending[i];
      if (!p) break;
      if (line === "") throw new UsageError(`the line read from standard input for ${p.what} is empty`);
      p.set(line);
      if (++i === pending.length) break;
    }
  } finally {
    rl.close();
  }
  const missing = pending[i];
  if (missing) throw new UsageError(`standard input ended before the value for ${missing.what}`);
}

async function add(deps: VaultCommandDeps, args: string[], io: VaultIo): Promise<void> {
  const { values, positionals, tokens } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    tokens: true,
    options: {
      vault: { type: "string" },
      label: { type: "string" },
      domains: { type: "string", multiple: true },
      field: { type: "string", multiple: true },
      totp: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  // The extra words are not echoed: one may be a value typed without its `--field id=`.
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError("vault add takes exactly one account id");
  const accountId = positionals[0];
  if (values.vault === undefined) throw new UsageError("vault add needs --vault <name>");
  const nameProblem = vaultNameProblem(values.vault);
  if (nameProblem) throw new UsageError(`--vault ${nameProblem}`);
  if (values.label === undefined) throw new UsageError("vault add needs --label <label>");
  const labelIssue = labelProblem(values.label);
  if (labelIssue) throw new UsageError(`--label ${labelIssue}`);
  const domains = parseDomains(values.domains ?? []);

  const fields: { fieldId: string; value: string }[] = [];
  let totpText: string | null = null;
  const pending: Pending[] = [];
  // Walk the options in the order typed, so the `-` values are read in that order.
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    if (t.name === "field") {
      const raw = t.value ?? "";
      const eq = raw.indexOf("=");
      if (eq <= 0) throw new UsageError("--field takes <id>=<value> (a value - is read from standard input)");
      const fieldId = raw.slice(0, eq);
      const problem = fieldIdProblem(fieldId);
      if (problem) throw new UsageError(`--field id "${fieldId}" ${problem}`);
      if (fields.some((f) => f.fieldId === fieldId)) throw new UsageError(`--field ${fieldId} is given twice`);
      const field = { fieldId, value: raw.slice(eq + 1) };
      if (field.value === "") throw new UsageError(`--field ${fieldId} has an empty value`);
      fields.push(field);
      if (field.value === "-")
        pending.push({
          what: `--field ${fieldId}`,
          set: (v) => {
            field.value = v;
          },
        });
    } else if (t.name === "totp") {
      totpText = t.value ?? "";
      if (totpText === "-")
        pending.push({
          what: "--totp",
          set: (v) => {
            totpText = v;
          },
        });
    }
  }
  if (fields.length === 0) throw new UsageError("vault add needs at least one --field <id>=<value>, e.g. --field password=-");
  await readLines(io, pending);
  let totp: TotpSpec | null = null;
  if (totpText !== null) {
    try {
      totp = parseTotp(totpText);
    } catch (err) {
      if (err instanceof TotpFormatError) throw new UsageError(`--totp: ${err.message}`);
      throw err;
    }
  }

  await deps.services.accounts.get(accountId);
  const row = await builtinVaultService({ db: deps.db, clock: deps.clock, keyring: deps.keyring() }).addItem(accountId, {
    vaultName: values.vault,
    label: values.label,
    domains,
    fields,
    totp,
  });
  if (values.json) io.out(JSON.stringify(itemJson(row)));
  else io.out(itemIdOf(row));
}

function parseDomains(raw: string[]): string[] {
  const entries = splitList(raw);
  if (entries.length === 0) throw new UsageError("vault add needs --domains a.com[,b.com...] (the sites the item fills on)");
  const out: string[] = [];
  for (const entry of entries) {
    const domain = normaliseDomain(entry);
    if (!domain) throw new UsageError(`--domains: "${entry}" is not a domain (e.g. example.com)`);
    if (!out.includes(domain)) out.push(domain);
  }
  return out;
}

const itemIdOf = (row: VaultItemRow) => formatItemId(row);

/** An item as the CLI shows it: spec 2.2's fields plus its account and whether runs may use it; never a value. */
const itemJson = (row: VaultItemRow) => ({
  itemId: itemIdOf(row),
  accountId: row.accountId,
  connectionId: row.connectionId,
  label: row.label,
  vaultName: row.vaultName,
  domains: row.domains,
  fieldMetadata: row.fieldMetadata,
  hasTotp: row.hasTotp,
  enabled: row.enabled,
});

async function list(deps: VaultCommandDeps, args: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false } },
  });
  if (positionals.length > 1) throw new UsageError("vault list takes at most one account id");
  const repo = vaultRepo(deps.db);
  const accountIds = positionals[0]
    ? [(await deps.services.accounts.get(positionals[0])).id]
    : (await deps.services.accounts.list()).map((a) => a.id);
  const rows: VaultItemRow[] = [];
  for (const id of accountIds) rows.push(...(await repo.listItems(id)));
  if (values.json) return out(JSON.stringify(rows.map(itemJson)));
  if (rows.length === 0) return out("No vault items.");
  out(
    table(
      ["ITEM ID", "ACCOUNT", "LABEL", "VAULT", "DOMAINS", "FIELDS", "TOTP", "STATE"],
      rows.map((r) => [
        itemIdOf(r),
        r.accountId,
        r.label,
        r.vaultName,
        r.domains.join(","),
        r.fieldMetadata.map((f) => f.fieldId).join(","),
        r.hasTotp ? "yes" : "no",
        r.enabled ? "enabled" : "disabled",
      ]),
    ),
  );
}

/** The one itemId argument, and the account owning it. */
async function target(deps: VaultCommandDeps, args: string[], command: string): Promise<{ accountId: string; ref: ItemRef }> {
  const { positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: {} });
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`vault ${command} takes exactly one itemId`);
  const ref = parseItemId(positionals[0]);
  if (!ref) throw new UsageError(`"${positionals[0]}" is not an itemId (cred:<connection_id>:<vault_name>:<item_id>)`);
  const accountId = await vaultRepo(deps.db).connectionOwner(ref.connectionId);
  if (!accountId) throw new UsageError(`no vault item ${positionals[0]}`);
  return { accountId, ref };
}

async function remove(deps: VaultCommandDeps, args: string[], out: Out): Promise<void> {
  const { accountId, ref } = await target(deps, args, "remove");
  const repo = vaultRepo(deps.db);
  const connection = await repo.getConnection(accountId, ref.connectionId);
  // An external provider's item would come back with the next sync: it is removed there, or disabled here.
  if (connection && connection.provider !== "osprey") {
    throw new UsageError(
      `${formatItemId(ref)} comes from a ${connection.provider} connection: remove it there, or disable it here (osprey vault disable)`,
    );
  }
  if (!(await repo.removeItem(accountId, ref))) throw new UsageError(`no vault item ${formatItemId(ref)}`);
  out(`Removed ${formatItemId(ref)}.`);
}

async function setEnabled(deps: VaultCommandDeps, args: string[], out: Out, enabled: boolean): Promise<void> {
  const { accountId, ref } = await target(deps, args, enabled ? "enable" : "disable");
  const row = await vaultRepo(deps.db).setEnabled(accountId, ref, enabled, deps.clock.now());
  if (!row) throw new UsageError(`no vault item ${formatItemId(ref)}`);
  out(`${enabled ? "Enabled" : "Disabled"} ${formatItemId(ref)}.`);
}

async function rekey(deps: VaultCommandDeps, args: string[], out: Out): Promise<void> {
  const { positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: {} });
  if (positionals.length > 0) throw new UsageError("vault rekey takes no arguments");
  const keyring = deps.keyring();
  const s = await rekeyVault({ db: deps.db, clock: deps.clock, keyring });
  // Browser Context Profiles are sealed with the same key (one row per profile and domain).
  const p = await rekeyProfiles({ db: deps.db, keyring });
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  out(
    `Re-sealed ${plural(s.items.resealed, "item secret")}, ${plural(s.connections.resealed, "connection token")} ` +
      `and ${plural(p.resealed, "profile domain state")} under key ${s.keyId}; ` +
      `${s.items.current + s.connections.current + p.current} already were.`,
  );
  const failed = [
    ...s.items.failed,
    ...s.connections.failed,
    ...p.failed.map((f) => ({ id: `${f.profileId} ${f.domain}`, reason: f.reason })),
  ];
  if (failed.length > 0) {
    throw new Error(
      `${plural(failed.length, "value")} did not open and were left as they were:\n` +
        failed.map((f) => `  ${f.id}: ${f.reason}`).join("\n"),
    );
  }
}
