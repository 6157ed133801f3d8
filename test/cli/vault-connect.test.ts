import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type VaultConnectDeps, vaultConnectCommand } from "../../containers/cli/commands/vault-connect.ts";
import { UsageError } from "../../containers/cli/format.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createServices } from "../../functions/services/index.ts";
import { connectionTokenAad, createKeyring, VaultKey } from "../../functions/vault/crypto.ts";
import { createBitwardenProvider } from "../../functions/vault/providers/bitwarden.ts";
import { createOnePasswordProvider } from "../../functions/vault/providers/onepassword.ts";
import { vaultRepo } from "../../functions/vault/vault.repo.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type BwStub, type ConnectStub, startBwServe, startConnect } from "../helpers/vault-upstreams.ts";

/**
 * `osprey vault connect | connections | disconnect`, in process against each test database and
 * against local provider servers: the token is tried, sealed to its row and never printed.
 */

const TOKEN = "op-connect-token-SECRET-0123456789";
const keyring = createKeyring(new VaultKey(randomBytes(32)));

const vaults = () => [
  {
    id: "k6tb3c7zoxjr2ypf5vq4mcfd2a",
    name: "Personal",
    items: [
      {
        id: "gh4u5vlxqbt2dnkjvzt3x6ewuy",
        title: "GitHub",
        category: "LOGIN",
        urls: [{ href: "https://github.com/login", primary: true }],
        fields: [{ id: "password", type: "CONCEALED", purpose: "PASSWORD" as const, label: "password", value: "pw-SECRET" }],
      },
    ],
  },
];

describe.each(driverCases(["pglite", "pg"]))("osprey vault connect ($driver)", ({ open }) => {
  let t: TestDatabase;
  let deps: VaultConnectDeps;
  let accountId: string;
  let connect: ConnectStub;
  let bw: BwStub;

  beforeAll(async () => {
    t = await open();
    const services = createServices({ db: t.db, clock: systemClock, ids: defaultIds });
    accountId = (await services.accounts.create({ plan: "free" })).id;
    connect = await startConnect({ token: TOKEN, vaults: vaults() });
    bw = await startBwServe({ items: [], folders: [] });
    deps = {
      db: t.db,
      services,
      keyring: () => keyring,
      providers: {
        onepassword: createOnePasswordProvider({ timeoutMs: 500 }),
        bitwarden: createBitwardenProvider({ timeoutMs: 500 }),
      },
    };
  });
  afterAll(async () => {
    await connect?.close();
    await bw?.close();
    await t?.dispose();
  });

  async function run(args: string[], stdin = ""): Promise<{ out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    await vaultConnectCommand(deps, args, { out: (l) => out.push(l), err: (l) => err.push(l), input: Readable.from([stdin]) });
    return { out: out.join("\n"), err: err.join("\n") };
  }

  it("connects 1Password after one list, seals the token to the row and never prints it", async () => {
    const { out } = await run([
      "connect",
      accountId,
      "--provider",
      "onepassword",
      "--url",
      connect.url,
      "--token",
      TOKEN,
      "--json",
    ]);
    expect(out).not.toContain(TOKEN);
    const json = JSON.parse(out);
    expect(json).toMatchObject({
      accountId,
      provider: "onepassword",
      name: `1Password (${new URL(connect.url).host})`,
      url: `${connect.url}/`,
      hasToken: true,
      verified: true,
      visibleItems: 1,
      lastSyncedAt: null,
    });
    expect(json.connectionId).toMatch(/^vc_/);
    const [row] = await vaultRepo(t.db).listConnections(accountId);
    expect(row?.tokenCiphertext).toBeTruthy();
    expect(row?.tokenCiphertext).not.toContain(TOKEN);
    expect(keyring.open(row?.tokenCiphertext ?? "", connectionTokenAad(json.connectionId))).toBe(TOKEN);
    expect(connect.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("reads a token given as - from standard input, and takes a name", async () => {
    const { out } = await run(
      ["connect", accountId, "--provider", "onepassword", "--url", connect.url, "--token", "-", "--name", "Team 1P"],
      `${TOKEN}\n`,
    );
    expect(out).toMatch(/^Connected vc_\w+ \(onepassword, "Team 1P"\) for account acct_\w+; verified: 1 item to sync\./);
    expect(out).not.toContain(TOKEN);
    await expect(
      run(["connect", accountId, "--provider", "onepassword", "--url", connect.url, "--token", "-"], ""),
    ).rejects.toThrow(/standard input ended before the value for --token/);
  });

  it("a refused token saves nothing and fails with a clear line that quotes no token", async () => {
    const before = (await vaultRepo(t.db).listConnections(accountId)).length;
    const wrong = "wrong-token-SECRET-xyz";
    const err = await run(["connect", accountId, "--provider", "onepassword", "--url", connect.url, "--token", wrong]).catch(
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^1Password refused the token; nothing was saved/);
    expect((err as Error).message).not.toContain(wrong);
    expect((await vaultRepo(t.db).listConnections(accountId)).length).toBe(before);
  });

  it("an unreachable provider saves nothing, unless --no-verify", async () => {
    const down = await startBwServe({ items: [], folders: [] });
    await down.close();
    const args = ["connect", accountId, "--provider", "bitwarden", "--url", down.url];
    await expect(run(args)).rejects.toThrow(
      /could not list Bitwarden items at .*nothing was saved \(--no-verify saves it anyway\)/,
    );
    const { out } = await run([...args, "--no-verify", "--json"]);
    expect(JSON.parse(out)).toMatchObject({ provider: "bitwarden", hasToken: false, verified: false, visibleItems: null });
  });

  it("Bitwarden needs no token", async () => {
    const { out } = await run(["connect", accountId, "--provider", "bitwarden", "--url", bw.url]);
    expect(out).toMatch(/\(bitwarden, "Bitwarden \(127\.0\.0\.1:\d+\)"\).*verified: 0 items to sync/);
  });

  it("lists connections without their tokens, for one account or all", async () => {
    const mine = JSON.parse((await run(["connections", accountId, "--json"])).out) as Record<string, unknown>[];
    expect(mine.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(mine)).not.toContain(TOKEN);
    expect(JSON.stringify(mine)).not.toContain("tokenCiphertext");
    const all = JSON.parse((await run(["connections", "--json"])).out) as Record<string, unknown>[];
    expect(all.map((c) => c.connectionId)).toEqual(expect.arrayContaining(mine.map((c) => c.connectionId)));
    const text = (await run(["connections", accountId])).out;
    expect(text).toMatch(/^ID\s+ACCOUNT\s+PROVIDER\s+NAME\s+URL\s+LAST SYNC\s+LAST ERROR/);
    expect(text).toContain("Team 1P");
    expect(text).not.toContain(TOKEN);
    await expect(run(["connections", "acct_missing"])).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("disconnects a provider with its items; the built-in vault and unknown ids are refused", async () => {
    const repo = vaultRepo(t.db);
    const conn = (await repo.listConnections(accountId)).find((c) => c.name === "Team 1P");
    if (!conn) throw new Error("no Team 1P connection");
    await repo.syncItems(
      accountId,
      conn.id,
      [
        {
          vaultName: "Personal",
          itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy",
          label: "GitHub",
          domains: ["github.com"],
          fields: [],
          hasTotp: false,
        },
      ],
      { at: new Date(), newRowId: () => `vi_${randomBytes(8).toString("hex")}` },
    );
    const { out } = await run(["disconnect", conn.id]);
    expect(out).toBe(`Disconnected ${conn.id} (onepassword, "Team 1P"); its token and 1 synced item were removed.`);
    expect(await repo.getConnection(accountId, conn.id)).toBeNull();
    expect(await repo.listItems(accountId, { connectionId: conn.id })).toEqual([]);
    await expect(run(["disconnect", conn.id])).rejects.toThrow(`no vault connection ${conn.id}`);

    const builtin = await repo.builtinConnection(accountId, () => ({
      id: `vc_builtin${randomBytes(4).toString("hex")}`,
      name: "Osprey",
    }));
    await expect(run(["disconnect", builtin.id])).rejects.toThrow(/built-in vault/);
    expect(await repo.getConnection(accountId, builtin.id)).not.toBeNull();
  });

  it("usage errors name the problem and never echo a stray word", async () => {
    const base = ["connect", accountId, "--url", connect.url, "--token", TOKEN];
    const cases: [string[], RegExp][] = [
      [[...base], /--provider onepassword\|bitwarden/],
      [[...base, "--provider", "lastpass"], /--provider onepassword\|bitwarden/],
      [["connect", accountId, "--provider", "onepassword", "--url", "ftp://127.0.0.1/", "--token", TOKEN], /scheme "ftp"/],
      [["connect", accountId, "--provider", "onepassword", "--url", "http://u:p@127.0.0.1/", "--token", TOKEN], /credentials/],
      [["connect", accountId, "--provider", "onepassword", "--url", connect.url], /needs --token/],
      [["connect", accountId, "--provider", "bitwarden"], /needs --url/],
      [[...base, "--provider", "onepassword", "--name", " "], /--name must not be empty/],
      [["connect", accountId, "stray-SECRET", "--provider", "bitwarden", "--url", bw.url], /exactly one account id/],
      [["disconnect"], /exactly one connection id/],
      [["connections", "a", "b"], /at most one account id/],
    ];
    for (const [args, message] of cases) {
      const err = await run(args).catch((e: unknown) => e as Error);
      expect(err, args.join(" ")).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain("SECRET");
    }
  });
});
