import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Db } from "../../../functions/db/db.ts";
import { newId } from "../../../functions/lib/ids.ts";
import type { Services } from "../../../functions/services/index.ts";
import { connectionTokenAad, type Keyring } from "../../../functions/vault/crypto.ts";
import { createBitwardenProvider } from "../../../functions/vault/providers/bitwarden.ts";
import { checkProviderUrl } from "../../../functions/vault/providers/http.ts";
import { createOnePasswordProvider } from "../../../functions/vault/providers/onepassword.ts";
import { ProviderAuthError, type VaultProvider } from "../../../functions/vault/providers/types.ts";
import { type VaultConnectionRow, vaultRepo } from "../../../functions/vault/vault.repo.ts";
import { isoOrDash, table, UsageError } from "../format.ts";

/**
 * `osprey vault connect | connections | disconnect`: an account's external password providers
 * (1Password Connect, Bitwarden `bw serve`). The token is sealed with the vault keyring, bound to
 * its connection row, and never printed; given as `-` it is read from standard input, so it stays
 * out of shell history. A new connection is tried once (one list of its items) before it is saved.
 */

type Out = (line: string) => void;

const EXTERNAL = ["onepassword", "bitwarden"] as const;
type ExternalKind = (typeof EXTERNAL)[number];
const LABELS: Record<ExternalKind, string> = { onepassword: "1Password", bitwarden: "Bitwarden" };

/** What the commands need; `osprey vault`'s own dependencies (VaultCommandDeps) have all of it. */
export interface VaultConnectDeps {
  db: Db;
  services: Pick<Services, "accounts">;
  /** Built on first need, so only `connect` with a token makes the key file. */
  keyring(): Keyring;
  /** The providers to verify with; default the real ones (tests shorten their timeouts). */
  providers?: Partial<Record<ExternalKind, VaultProvider>>;
}

export interface VaultConnectIo {
  out: Out;
  err: Out;
  /** Where a token given as `-` is read from. */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
}

export const VAULT_CONNECT_COMMANDS = ["connect", "connections", "disconnect"] as const;

/** `args` starts with the subcommand: connect, connections or disconnect. */
export async function vaultConnectCommand(deps: VaultConnectDeps, args: string[], io: VaultConnectIo): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === "connect") return connect(deps, rest, io);
  if (sub === "connections") return connections(deps, rest, io.out);
  if (sub === "disconnect") return disconnect(deps, rest, io.out);
  throw new UsageError(`unknown vault command "${sub ?? ""}"`);
}

const providerFor = (deps: VaultConnectDeps, kind: ExternalKind): VaultProvider =>
  deps.providers?.[kind] ?? (kind === "onepassword" ? createOnePasswordProvider() : createBitwardenProvider());

async function readToken(io: VaultConnectIo): Promise<string> {
  if (io.input.isTTY) io.err("Reading the token from standard input (one line):");
  const rl = createInterface({ input: io.input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  try {
    for await (const line of rl) {
      const token = line.trim();
      if (!token) throw new UsageError("the line read from standard input for --token is empty");
      return token;
    }
  } finally {
    rl.close();
  }
  throw new UsageError("standard input ended before the value for --token");
}

/** 1 to 100 printable characters. */
function nameProblem(name: string): string | null {
  if (name.trim() === "") return "must not be empty";
  if (name.length > 100) return "must be at most 100 characters";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return "must not contain control characters";
  return null;
}

async function connect(deps: VaultConnectDeps, args: string[], io: VaultConnectIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      provider: { type: "string" },
      url: { type: "string" },
      token: { type: "string" },
      name: { type: "string" },
      "no-verify": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  // Extra words are not echoed: one may be a token typed without --token.
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError("vault connect takes exactly one account id");
  const accountId = positionals[0];
  const kind = values.provider as ExternalKind | undefined;
  if (!kind || !EXTERNAL.includes(kind)) throw new UsageError(`vault connect needs --provider ${EXTERNAL.join("|")}`);
  if (values.url === undefined) throw new UsageError("vault connect needs --url <url> (the Connect server or bw serve)");
  const checked = checkProviderUrl(values.url);
  if (!checked.ok) throw new UsageError(`--url: ${checked.reason}`);
  const url = checked.url.toString();
  const name = values.name ?? `${LABELS[kind]} (${checked.url.host})`;
  const problem = nameProblem(name);
  if (problem) throw new UsageError(`--name ${problem}`);
  if (values.token === "") throw new UsageError("--token must not be empty (give - to read it from standard input)");
  // bw serve takes no token of its own (one is sent only for a proxy in front of it); Connect needs one.
  if (values.token === undefined && kind === "onepassword") {
    throw new UsageError(
      "vault connect --provider onepassword needs --token <token> (or --token - to read it from standard input)",
    );
  }
  const token = values.token === "-" ? await readToken(io) : (values.token ?? null);

  await deps.services.accounts.get(accountId);
  const id = newId("vc");
  let visible: number | null = null;
  if (!values["no-verify"]) {
    try {
      visible = (await providerFor(deps, kind).list({ id, accountId, url, token })).length;
    } catch (err) {
      // The provider's message names the connection and never the token.
      const why = err instanceof Error ? err.message : String(err);
      if (err instanceof ProviderAuthError) throw new Error(`${LABELS[kind]} refused the token; nothing was saved (${why})`);
      throw new Error(`could not list ${LABELS[kind]} items at ${url}; nothing was saved (--no-verify saves it anyway) (${why})`);
    }
  }
  const row = await vaultRepo(deps.db).insertConnection({
    id,
    accountId,
    provider: kind,
    name,
    url,
    tokenCiphertext: token === null ? null : deps.keyring().seal(token, connectionTokenAad(id)),
  });
  if (values.json) {
    io.out(JSON.stringify({ ...connectionJson(row), verified: visible !== null, visibleItems: visible }));
    return;
  }
  const seen = visible === null ? "not verified (--no-verify)" : `verified: ${visible} item${visible === 1 ? "" : "s"} to sync`;
  io.out(`Connected ${row.id} (${kind}, "${row.name}") for account ${accountId}; ${seen}.`);
  io.out("Its items come in with the next sync (POST /v1/vault/items/sync).");
}

/** A connection as the CLI shows it: never its token, only whether it has one. */
const connectionJson = (row: VaultConnectionRow) => ({
  connectionId: row.id,
  accountId: row.accountId,
  provider: row.provider,
  name: row.name,
  url: row.url,
  hasToken: row.tokenCiphertext !== null,
  lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
  lastError: row.lastError,
  createdAt: row.createdAt.toISOString(),
});

async function connections(deps: VaultConnectDeps, args: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false } },
  });
  if (positionals.length > 1) throw new UsageError("vault connections takes at most one account id");
  const repo = vaultRepo(deps.db);
  const accountIds = positionals[0]
    ? [(await deps.services.accounts.get(positionals[0])).id]
    : (await deps.services.accounts.list()).map((a) => a.id);
  const rows: VaultConnectionRow[] = [];
  for (const id of accountIds) rows.push(...(await repo.listConnections(id)));
  if (values.json) return out(JSON.stringify(rows.map(connectionJson)));
  if (rows.length === 0) return out("No vault connections.");
  out(
    table(
      ["ID", "ACCOUNT", "PROVIDER", "NAME", "URL", "LAST SYNC", "LAST ERROR"],
      rows.map((r) => [r.id, r.accountId, r.provider, r.name, r.url ?? "-", isoOrDash(r.lastSyncedAt), r.lastError ?? "-"]),
    ),
  );
}

async function disconnect(deps: VaultConnectDeps, args: string[], out: Out): Promise<void> {
  const { positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: {} });
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError("vault disconnect takes exactly one connection id");
  const id = positionals[0];
  const repo = vaultRepo(deps.db);
  const accountId = await repo.connectionOwner(id);
  const row = accountId ? await repo.getConnection(accountId, id) : null;
  if (!accountId || !row) throw new UsageError(`no vault connection ${id}`);
  // The built-in vault's items exist nowhere else: dropping its connection would destroy them.
  if (row.provider === "osprey") {
    throw new UsageError(`${id} is the account's built-in vault; remove its items one by one (osprey vault remove <itemId>)`);
  }
  const items = (await repo.listItems(accountId, { connectionId: id })).length;
  if (!(await vaultRepo(deps.db).deleteConnection(accountId, id))) throw new UsageError(`no vault connection ${id}`);
  out(
    `Disconnected ${id} (${row.provider}, "${row.name}"); its token and ${items} synced item${items === 1 ? "" : "s"} were removed.`,
  );
}
