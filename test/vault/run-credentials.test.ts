import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/lib/ids.ts";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import { builtinVaultService } from "../../functions/vault/builtin-vault.service.ts";
import { connectionTokenAad, createKeyring, type Keyring, VaultKey } from "../../functions/vault/crypto.ts";
import { formatItemId } from "../../functions/vault/item-ref.ts";
import { createOnePasswordProvider } from "../../functions/vault/providers/onepassword.ts";
import { CredentialUnavailableError, type RunCredentials, runCredentials } from "../../functions/vault/run-credentials.ts";
import { vaultRepo } from "../../functions/vault/vault.repo.ts";
import { vaultService } from "../../functions/vault/vault.service.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type ConnectStub, startConnect } from "../helpers/vault-upstreams.ts";
import { expectError, expectInvalid, fundedKey, type Json, okJson, VALID } from "../runs/run-admission-helpers.ts";

/**
 * Vault items in runs, up to the worker (spec 4.1 use_vault / credential_item_ids, issue [3 of 6]):
 * admission through the API names every unknown, disabled or foreign entry with 400 before a run
 * exists; the worker's view lists only what the run may use; a value is revealed only for the
 * run's own account, from the built-in vault or from the item's external provider.
 */

const PASSWORD = `pw-${randomBytes(6).toString("hex")}`;
const OP_PASSWORD = `op-${randomBytes(6).toString("hex")}`;
const OP_TOKEN = `token-${randomBytes(6).toString("hex")}`;
const TOTP = { secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", algorithm: "SHA1" as const, digits: 6, period: 30 };

describe.each(driverCases(["pglite", "pg"]))("vault items in runs on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let keyring: Keyring;
  let creds: RunCredentials;
  let connect: ConnectStub;
  // Account A: an enabled and a disabled built-in item and a 1Password item; account B: one item.
  const a = { key: "", accountId: "", enabled: "", disabled: "", external: "" };
  const b = { key: "", accountId: "", item: "" };

  beforeAll(async () => {
    db = await open();
    keyring = createKeyring(new VaultKey(randomBytes(32)));
    const providers = { onepassword: createOnePasswordProvider({ timeoutMs: 2000 }) };
    creds = runCredentials({ db: db.db, keyring, providers });
    ctx = createTestContext(db.db, {
      runs: {
        queue: createPgQueue({ db: db.db }),
        model: { provider: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: null },
        credentials: creds,
      },
      vault: ({ clock, logger }) => vaultService({ db: db.db, clock, logger, keyring, providers }),
    });
    const builtin = builtinVaultService({ db: db.db, clock: ctx.clock, keyring });
    const item = (label: string, domains: string[]) => ({
      vaultName: "Personal",
      label,
      domains,
      fields: [
        { fieldId: "username", value: "ada" },
        { fieldId: "password", value: PASSWORD },
      ],
      totp: TOTP,
    });
    Object.assign(a, await fundedKey(ctx));
    Object.assign(b, await fundedKey(ctx));
    a.enabled = formatItemId(await builtin.addItem(a.accountId, item("Bank", ["bank.test"])));
    const off = await builtin.addItem(a.accountId, item("Old bank", ["old-bank.test"]));
    await vaultRepo(db.db).setEnabled(a.accountId, off, false, new Date());
    a.disabled = formatItemId(off);
    b.item = formatItemId(await builtin.addItem(b.accountId, item("B's bank", ["bank.test"])));

    connect = await startConnect({
      token: OP_TOKEN,
      vaults: [
        {
          id: "v1",
          name: "Team",
          items: [
            {
              id: "i1",
              title: "Shop",
              category: "LOGIN",
              urls: [{ href: "https://shop.test/login", primary: true }],
              fields: [
                { id: "username", type: "STRING", purpose: "USERNAME", label: "username", value: "ann" },
                { id: "password", type: "CONCEALED", purpose: "PASSWORD", label: "password", value: OP_PASSWORD },
              ],
            },
          ],
        },
      ],
    });
    const connId = newId("vc");
    await vaultRepo(db.db).insertConnection({
      id: connId,
      accountId: a.accountId,
      provider: "onepassword",
      name: "1Password",
      url: connect.url,
      tokenCiphertext: keyring.seal(OP_TOKEN, connectionTokenAad(connId)),
    });
    await okJson(await ctx.call(a.key, "/v1/vault/items/sync", { method: "POST" }));
    const listed = await creds.forRun(a.accountId, undefined);
    a.external = listed.find((i) => i.label === "Shop")?.itemId ?? "";
    expect(a.external).toMatch(/^cred:vc_/);
  }, 60_000);

  afterAll(async () => {
    await connect?.close();
    await db?.dispose();
  });

  const post = (key: string, body: Json) => ctx.postJson(key, "/v1/automation/run-async", body);
  const vaultRun = (ids?: string[]) => ({ ...VALID, use_vault: true, ...(ids ? { credential_item_ids: ids } : {}) });

  describe("admission (400 before the run exists)", () => {
    it("accepts the account's enabled items, and use_vault alone", async () => {
      expect((await okJson(await post(a.key, vaultRun([a.enabled, a.external])))).status).toBe("PENDING");
      expect((await okJson(await post(a.key, vaultRun()))).status).toBe("PENDING");
    });

    it.each([
      ["unknown", () => "cred:vc_nope:Personal:it_nope", /is not a vault item of this account/],
      ["disabled", () => a.disabled, /is disabled/],
      ["another account's", () => b.item, /is not a vault item of this account/],
    ])("an %s item → 400 naming the entry, no run created", async (_name, id, why) => {
      const before = await okJson(await ctx.call(a.key, "/v1/runs"));
      const err = await expectInvalid(await post(a.key, vaultRun([a.enabled, id()])), ["credential_item_ids", 1]);
      expect(err.error.message).toContain(id());
      expect(err.error.message).toMatch(why);
      expect(err.error.details[0].message).toContain(id());
      const after = await okJson(await ctx.call(a.key, "/v1/runs"));
      expect(after.total).toBe(before.total);
    });

    it("names every failing entry, not just the first", async () => {
      const err = await expectInvalid(await post(a.key, vaultRun([a.disabled, a.enabled, b.item])), ["credential_item_ids", 0]);
      expect(err.error.details.map((d: Json) => d.path)).toEqual([
        ["credential_item_ids", 0],
        ["credential_item_ids", 2],
      ]);
      expect(err.error.message).toMatch(/and 1 more/);
    });

    it("a foreign item is refused the same way as an unknown one (no hint that it exists)", async () => {
      const foreign = await expectError(await post(a.key, vaultRun([b.item])), 400, "INVALID_INPUT");
      const unknown = await expectError(await post(a.key, vaultRun(["cred:vc_zz:Personal:it_zz"])), 400, "INVALID_INPUT");
      expect(foreign.error.details[0].message.replace(b.item, "ID")).toBe(
        unknown.error.details[0].message.replace("cred:vc_zz:Personal:it_zz", "ID"),
      );
    });

    it("the same item twice is accepted once", async () => {
      const items = await creds.forRun(a.accountId, [a.enabled, a.enabled]);
      expect(items.map((i) => i.itemId)).toEqual([a.enabled]);
      expect((await okJson(await post(a.key, vaultRun([a.enabled, a.enabled])))).status).toBe("PENDING");
    });
  });

  describe("what a run sees", () => {
    it("all enabled items without ids; exactly the named ones with; never a value", async () => {
      const all = await creds.forRun(a.accountId, undefined);
      expect(all.map((i) => i.label).sort()).toEqual(["Bank", "Shop"]);
      expect((await creds.forRun(a.accountId, [a.external])).map((i) => i.label)).toEqual(["Shop"]);
      const bank = all.find((i) => i.label === "Bank");
      expect(bank).toMatchObject({ itemId: a.enabled, domains: ["bank.test"], hasTotp: true });
      expect(bank?.fields.map((f) => f.fieldId)).toEqual(["username", "password", "totp"]);
      expect(JSON.stringify(all)).not.toContain(PASSWORD);
      expect(JSON.stringify(all)).not.toContain(OP_PASSWORD);
    });

    it("an item disabled after admission is no longer offered", async () => {
      expect(await creds.forRun(a.accountId, [a.disabled])).toEqual([]);
    });

    it("B sees only B's item", async () => {
      expect((await creds.forRun(b.accountId, undefined)).map((i) => i.itemId)).toEqual([b.item]);
      expect(await creds.forRun(b.accountId, [a.enabled])).toEqual([]);
    });
  });

  describe("reveal at fill time", () => {
    it("opens a built-in item's values and TOTP seed", async () => {
      const secret = await creds.reveal(a.accountId, a.enabled);
      expect(secret.fields).toEqual({ username: "ada", password: PASSWORD });
      expect(secret.totp).toEqual(TOTP);
    });

    it("reads an external item from its provider with the connection's token", async () => {
      const before = connect.requests.length;
      const secret = await creds.reveal(a.accountId, a.external);
      expect(Object.values(secret.fields)).toContain(OP_PASSWORD);
      const asked = connect.requests.slice(before);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((r) => r.headers.authorization === `Bearer ${OP_TOKEN}`)).toBe(true);
    });

    it.each([
      ["another account's item", () => [a.accountId, b.item] as const, /no longer exists/],
      ["an item of A asked for by B", () => [b.accountId, a.enabled] as const, /no longer exists/],
      ["a disabled item", () => [a.accountId, a.disabled] as const, /was disabled/],
      ["a malformed id", () => [a.accountId, "item_1"] as const, /no longer exists/],
    ])("refuses %s", async (_name, args, why) => {
      const [account, id] = args();
      const err = await creds.reveal(account, id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CredentialUnavailableError);
      expect((err as Error).message).toMatch(why);
      expect((err as Error).message).not.toContain(PASSWORD);
    });

    it("a refused provider token fails the reveal without quoting the token", async () => {
      connect.token = "rotated";
      try {
        const err = (await creds.reveal(a.accountId, a.external).catch((e: unknown) => e)) as Error;
        expect(err).toBeInstanceOf(CredentialUnavailableError);
        expect(err.message).toContain(a.external);
        expect(err.message).not.toContain(OP_TOKEN);
      } finally {
        connect.token = OP_TOKEN;
      }
    });

    it("a worker without the vault key cannot open anything, and says why", async () => {
      const keyless = runCredentials({ db: db.db, keyring: null, providers: {} });
      expect((await keyless.forRun(a.accountId, [a.enabled])).map((i) => i.itemId)).toEqual([a.enabled]);
      await expect(keyless.reveal(a.accountId, a.enabled)).rejects.toThrow(/no vault key/);
    });

    it("a worker with another key cannot open the built-in items", async () => {
      const other = runCredentials({ db: db.db, keyring: createKeyring(new VaultKey(randomBytes(32))), providers: {} });
      await expect(other.reveal(a.accountId, a.enabled)).rejects.toBeInstanceOf(CredentialUnavailableError);
    });
  });
});
