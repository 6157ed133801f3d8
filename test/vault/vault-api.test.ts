import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/lib/ids.ts";
import { type LogFields, type Logger, silentLogger } from "../../functions/lib/logger.ts";
import { builtinVaultService } from "../../functions/vault/builtin-vault.service.ts";
import { connectionTokenAad, createKeyring, type Keyring, VaultKey } from "../../functions/vault/crypto.ts";
import { createBitwardenProvider } from "../../functions/vault/providers/bitwarden.ts";
import { createOnePasswordProvider } from "../../functions/vault/providers/onepassword.ts";
import { vaultRepo } from "../../functions/vault/vault.repo.ts";
import { type VaultItemWire, vaultService } from "../../functions/vault/vault.service.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type BwStub, type ConnectStub, startBwServe, startConnect } from "../helpers/vault-upstreams.ts";

/**
 * The vault API (spec 2.2, 4.3, 5.5) through the app: the built-in vault's items, and a sync from
 * a 1Password Connect server and a `bw serve` that the test starts on 127.0.0.1. The canaries are
 * secret values planted in every provider: no response and no log line may ever hold one.
 */

const CANARY_PASSWORD = `pw-canary-${randomBytes(6).toString("hex")}`;
const CANARY_TOTP = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const CONNECT_TOKEN = `op-token-${randomBytes(6).toString("hex")}`;

type Item = VaultItemWire;

describe.each(driverCases(["pglite", "pg"]))("the vault API on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let keyring: Keyring;
  let connect: ConnectStub;
  let bw: BwStub;
  const logs: string[] = [];
  const logger: Logger = {
    ...silentLogger,
    info: (m: string, f?: LogFields) => logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    warn: (m: string, f?: LogFields) => logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    error: (m: string, f?: LogFields) => logs.push(`${m} ${JSON.stringify(f ?? {})}`),
  };
  const seen: string[] = [];

  const json = async (res: Response) => {
    const text = await res.text();
    seen.push(text);
    return JSON.parse(text) as Record<string, unknown>;
  };

  /** A connection to an external provider, as `osprey vault connect` saves it. */
  async function connectTo(accountId: string, provider: "onepassword" | "bitwarden", url: string, token: string | null) {
    const id = newId("vc");
    await vaultRepo(db.db).insertConnection({
      id,
      accountId,
      provider,
      name: provider,
      url,
      tokenCiphertext: token === null ? null : keyring.seal(token, connectionTokenAad(id)),
    });
    return id;
  }

  beforeAll(async () => {
    db = await open();
    keyring = createKeyring(new VaultKey(randomBytes(32)));
    ctx = createTestContext(db.db, {
      logger,
      vault: ({ clock }) =>
        vaultService({
          db: db.db,
          clock,
          logger,
          keyring,
          providers: {
            onepassword: createOnePasswordProvider({ timeoutMs: 1000 }),
            bitwarden: createBitwardenProvider({ timeoutMs: 1000 }),
          },
        }),
    });
    connect = await startConnect({
      token: CONNECT_TOKEN,
      vaults: [
        {
          id: "v1",
          name: "Team",
          items: [
            {
              id: "i1",
              title: "Shop login",
              category: "LOGIN",
              urls: [{ href: "https://shop.example.com/login", primary: true }],
              fields: [
                { id: "username", type: "STRING", purpose: "USERNAME", label: "username", value: "ann" },
                { id: "password", type: "CONCEALED", purpose: "PASSWORD", label: "password", value: CANARY_PASSWORD },
                { id: "otp", type: "OTP", label: "one-time password", value: `otpauth://totp/Shop:ann?secret=${CANARY_TOTP}` },
              ],
            },
          ],
        },
      ],
    });
    bw = await startBwServe({
      folders: [{ id: "f1", name: "Work" }],
      items: [
        {
          id: "b1",
          type: 1,
          name: "Mail",
          folderId: "f1",
          login: {
            username: "bob",
            password: CANARY_PASSWORD,
            totp: null,
            uris: [{ uri: "https://mail.example.org/", match: null }],
          },
        },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await connect?.close();
    await bw?.close();
    await db?.dispose();
  });

  it("lists the built-in vault's items with every field of spec 2.2 and no value", async () => {
    const { key, accountId } = await ctx.newKey();
    const added = await builtinVaultService({ db: db.db, clock: ctx.clock, keyring }).addItem(accountId, {
      vaultName: "Personal",
      label: "Bank",
      domains: ["Bank.Example.com"],
      fields: [
        { fieldId: "username", value: "ann" },
        { fieldId: "password", value: CANARY_PASSWORD },
      ],
      totp: { secret: CANARY_TOTP, algorithm: "SHA1", digits: 6, period: 30 },
    });
    const res = await ctx.call(key, "/v1/vault/items");
    expect(res.status).toBe(200);
    const body = (await json(res)) as { items: Item[] };
    expect(body.items).toHaveLength(1);
    const item = body.items[0] as Item;
    expect(item.itemId).toBe(`cred:${added.connectionId}:Personal:${added.itemId}`);
    expect(item).toMatchObject({
      connectionId: added.connectionId,
      label: "Bank",
      vaultName: "Personal",
      domains: ["bank.example.com"],
      hasTotp: true,
      enabled: true,
    });
    expect(item.fieldMetadata.map((f) => [f.fieldId, f.type])).toEqual(
      expect.arrayContaining([
        ["username", "STRING"],
        ["password", "CONCEALED"],
      ]),
    );
    expect(Object.keys(item).sort()).toEqual([
      "connectionId",
      "domains",
      "enabled",
      "fieldMetadata",
      "hasTotp",
      "itemId",
      "label",
      "vaultName",
    ]);
  });

  it("syncs from 1Password Connect and bw serve, counts what changed, and keeps each account's items to itself", async () => {
    const { key, accountId } = await ctx.newKey();
    const other = await ctx.newKey();
    const op = await connectTo(accountId, "onepassword", connect.url, CONNECT_TOKEN);
    const bwId = await connectTo(accountId, "bitwarden", bw.url, null);
    const first = (await json(await ctx.call(key, "/v1/vault/items/sync", { method: "POST" }))) as {
      items: Item[];
      sync_summary: Record<string, number>;
      failed_connections: unknown[];
    };
    expect(first.sync_summary).toEqual({ added: 2, updated: 0, removed: 0 });
    expect(first.failed_connections).toEqual([]);
    const byLabel = Object.fromEntries(first.items.map((i) => [i.label, i]));
    expect(byLabel["Shop login"]).toMatchObject({ itemId: `cred:${op}:Team:i1`, domains: ["shop.example.com"], hasTotp: true });
    expect(byLabel.Mail).toMatchObject({ itemId: `cred:${bwId}:Work:b1`, domains: ["mail.example.org"], hasTotp: false });

    // Nothing changed: nothing counted. A renamed item is updated; one deleted at the provider is removed.
    expect((await json(await ctx.call(key, "/v1/vault/items/sync", { method: "POST" }))).sync_summary).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
    });
    (connect.vaults[0]?.items[0] as { title: string }).title = "Shop (renamed)";
    bw.items.splice(0, 1);
    expect((await json(await ctx.call(key, "/v1/vault/items/sync", { method: "POST" }))).sync_summary).toEqual({
      added: 0,
      updated: 1,
      removed: 1,
    });

    // Another account sees none of it, by listing or by syncing.
    expect((await json(await ctx.call(other.key, "/v1/vault/items"))).items).toEqual([]);
    expect((await json(await ctx.call(other.key, "/v1/vault/items/sync", { method: "POST" }))).items).toEqual([]);
  });

  it("a provider that refuses its token is 401 UNAUTHORIZED naming the connection; one that is down keeps its items and is reported", async () => {
    const { key, accountId } = await ctx.newKey();
    const op = await connectTo(accountId, "onepassword", connect.url, CONNECT_TOKEN);
    const bwId = await connectTo(accountId, "bitwarden", bw.url, null);
    bw.items.push({
      id: "b2",
      type: 1,
      name: "Forum",
      folderId: null,
      login: { username: "c", password: CANARY_PASSWORD, totp: null, uris: [{ uri: "https://forum.example.net", match: null }] },
    });
    expect((await ctx.call(key, "/v1/vault/items/sync", { method: "POST" })).status).toBe(200);

    bw.behave({ kind: "status", status: 503 });
    const down = (await json(await ctx.call(key, "/v1/vault/items/sync", { method: "POST" }))) as {
      items: Item[];
      failed_connections: { connectionId: string; message: string }[];
    };
    expect(down.failed_connections.map((f) => f.connectionId)).toEqual([bwId]);
    expect(down.items.map((i) => i.label)).toContain("Forum");
    bw.behave({ kind: "ok" });

    connect.token = "rotated-elsewhere";
    const refused = await ctx.call(key, "/v1/vault/items/sync", { method: "POST" });
    expect(refused.status).toBe(401);
    const body = (await json(refused)) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("UNAUTHORIZED");
    expect(body.error.message).toContain(op);
    expect(body.error.message).not.toContain(CONNECT_TOKEN);
    connect.token = CONNECT_TOKEN;
  });

  it("answers 401 without a key, and no response or log line ever held a secret", async () => {
    expect((await ctx.app.request("/v1/vault/items")).status).toBe(401);
    expect((await ctx.app.request("/v1/vault/items/sync", { method: "POST" })).status).toBe(401);
    const everything = [...seen, ...logs].join("\n");
    for (const secret of [CANARY_PASSWORD, CANARY_TOTP, CONNECT_TOKEN]) expect(everything).not.toContain(secret);
  });

  it("documents both endpoints in the OpenAPI description", async () => {
    const doc = (await (await ctx.app.request("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths["/v1/vault/items/sync"] ?? {})).toEqual(["post"]);
    expect(Object.keys(doc.paths["/v1/vault/items"] ?? {})).toEqual(["get"]);
  });
});
