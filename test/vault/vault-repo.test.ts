import { randomBytes } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds, newId } from "../../functions/lib/ids.ts";
import { createServices } from "../../functions/services/index.ts";
import { BUILTIN_CONNECTION_NAME, builtinVaultService, rekeyVault } from "../../functions/vault/builtin-vault.service.ts";
import { connectionTokenAad, createKeyring, type Keyring, VaultKey, VaultSealError } from "../../functions/vault/crypto.ts";
import { ospreyVaultProvider } from "../../functions/vault/providers/osprey.ts";
import { type ProviderItem, ProviderItemGoneError } from "../../functions/vault/providers/types.ts";
import { vaultRepo } from "../../functions/vault/vault.repo.ts";
import { vaultConnections, vaultItems } from "../../schema/tables/index.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/** The vault's repository, the built-in provider over it, and rekey, on PGlite and Postgres. */

const newKey = () => new VaultKey(randomBytes(32));
const TOTP = { secret: "JBSWY3DPEHPK3PXPJBSWY3DP", algorithm: "SHA256" as const, digits: 8, period: 30 };

const item = (over: Partial<ProviderItem> & { itemId: string }): ProviderItem => ({
  vaultName: "Team",
  label: `Item ${over.itemId}`,
  domains: ["example.com"],
  fields: [{ fieldId: "password", label: "password", type: "CONCEALED" }],
  hasTotp: false,
  ...over,
});

describe.each(driverCases(["pglite", "pg"]))("vault repository ($driver)", ({ open }) => {
  let t: TestDatabase;
  let repo: ReturnType<typeof vaultRepo>;
  let accountA: string;
  let accountB: string;
  const at = new Date("2026-01-02T03:04:05Z");

  beforeAll(async () => {
    t = await open();
    repo = vaultRepo(t.db);
    const services = createServices({ db: t.db, clock: systemClock, ids: defaultIds });
    accountA = (await services.accounts.create({ plan: "free" })).id;
    accountB = (await services.accounts.create({ plan: "free" })).id;
  });
  afterAll(() => t?.dispose());

  const external = (accountId: string) =>
    repo.insertConnection({
      id: newId("vc"),
      accountId,
      provider: "onepassword",
      name: "Team 1Password",
      url: "http://127.0.0.1:8080",
    });

  it("connections are read by their account only", async () => {
    const c = await external(accountA);
    expect(await repo.getConnection(accountA, c.id)).toMatchObject({ id: c.id, provider: "onepassword", tokenCiphertext: null });
    expect(await repo.getConnection(accountB, c.id)).toBeNull();
    expect((await repo.listConnections(accountA)).map((r) => r.id)).toContain(c.id);
    expect((await repo.listConnections(accountB)).map((r) => r.id)).not.toContain(c.id);
    expect(await repo.connectionOwner(c.id)).toBe(accountA);
    expect(await repo.connectionOwner("vc_missing")).toBeNull();
    expect(await repo.deleteConnection(accountB, c.id)).toBe(false);
    expect(await repo.deleteConnection(accountA, c.id)).toBe(true);
    expect(await repo.getConnection(accountA, c.id)).toBeNull();
  });

  it("the built-in connection is made once per account, even by calls at once", async () => {
    const make = () => ({ id: newId("vc"), name: BUILTIN_CONNECTION_NAME });
    const rows = await Promise.all(Array.from({ length: 5 }, () => repo.builtinConnection(accountB, make)));
    expect(new Set(rows.map((r) => r.id)).size).toBe(1);
    expect(rows[0]).toMatchObject({ accountId: accountB, provider: "osprey", name: "Osprey vault", url: null });
    const osprey = (await repo.listConnections(accountB)).filter((c) => c.provider === "osprey");
    expect(osprey).toHaveLength(1);
  });

  it("sync inserts new items, updates changed metadata (keeping enabled), deletes missing ones, and counts each", async () => {
    const c = await external(accountA);
    const opts = { at, newRowId: () => newId("vi") };
    expect(
      await repo.syncItems(accountA, c.id, [item({ itemId: "i1" }), item({ itemId: "i2" }), item({ itemId: "i3" })], opts),
    ).toEqual({ added: 3, updated: 0, removed: 0 });
    const ref2 = { connectionId: c.id, vaultName: "Team", itemId: "i2" };
    expect(await repo.setEnabled(accountA, ref2, false, at)).toMatchObject({ enabled: false });
    // Unchanged: nothing to do.
    expect(
      await repo.syncItems(accountA, c.id, [item({ itemId: "i1" }), item({ itemId: "i2" }), item({ itemId: "i3" })], opts),
    ).toEqual({ added: 0, updated: 0, removed: 0 });
    const next = [
      item({ itemId: "i1" }),
      item({ itemId: "i2", label: "Renamed", domains: ["example.org"], hasTotp: true }),
      item({ itemId: "i4" }),
      item({ itemId: "i4" }), // listed twice: counted once
    ];
    expect(await repo.syncItems(accountA, c.id, next, opts)).toEqual({ added: 1, updated: 1, removed: 1 });
    expect(await repo.getItem(accountA, ref2)).toMatchObject({
      label: "Renamed",
      domains: ["example.org"],
      hasTotp: true,
      enabled: false,
      secretCiphertext: null,
    });
    expect(await repo.getItem(accountA, { ...ref2, itemId: "i3" })).toBeNull();
    // A field's type changing is a change too.
    const typed = [
      item({ itemId: "i1", fields: [{ fieldId: "password", label: "password", type: "STRING" }] }),
      ...next.slice(1, 3),
    ];
    expect(await repo.syncItems(accountA, c.id, typed, opts)).toEqual({ added: 0, updated: 1, removed: 0 });
    // Another account cannot sync (or empty) this connection.
    expect(await repo.syncItems(accountB, c.id, [], opts)).toBeNull();
    expect(await repo.listItems(accountA, { connectionId: c.id })).toHaveLength(3);
    expect(await repo.listItems(accountB, { connectionId: c.id })).toEqual([]);
    await repo.recordSync(accountA, c.id, at, null);
    expect(await repo.getConnection(accountA, c.id)).toMatchObject({ lastSyncedAt: at, lastError: null });
    await repo.recordSync(accountA, c.id, new Date(at.getTime() + 1000), "provider unreachable");
    expect(await repo.getConnection(accountA, c.id)).toMatchObject({ lastSyncedAt: at, lastError: "provider unreachable" });
    // Deleting the connection takes its items with it.
    await repo.deleteConnection(accountA, c.id);
    expect(await repo.listItems(accountA, { connectionId: c.id })).toEqual([]);
  });

  it("lists an account's items by label (case-insensitively, the same on every database), then by itemId", async () => {
    const services = createServices({ db: t.db, clock: systemClock, ids: defaultIds });
    const acct = (await services.accounts.create({ plan: "free" })).id;
    const c = await external(acct);
    const labels = ["beta", "Alpha", "alpha", "Zed", "_x", "éclair", "Beta"];
    await repo.syncItems(
      acct,
      c.id,
      labels.map((label, i) => item({ itemId: `i${i}`, label })),
      { at, newRowId: () => newId("vi") },
    );
    await repo.syncItems(acct, (await external(acct)).id, [item({ itemId: "a", label: "alpha" })], {
      at,
      newRowId: () => newId("vi"),
    });
    const rows = await repo.listItems(acct);
    expect(rows.map((r) => r.label)).toEqual(["_x", "Alpha", "alpha", "alpha", "Beta", "beta", "Zed", "éclair"]);
    // Equal labels: by connection id, then vault name, then item id.
    const alphas = rows.filter((r) => r.label === "alpha");
    expect(alphas.map((r) => r.connectionId)).toEqual([...alphas.map((r) => r.connectionId)].sort());
  });

  it("get, enable/disable and remove are scoped to the account", async () => {
    const c = await external(accountA);
    await repo.syncItems(accountA, c.id, [item({ itemId: "x" })], { at, newRowId: () => newId("vi") });
    const ref = { connectionId: c.id, vaultName: "Team", itemId: "x" };
    expect(await repo.getItem(accountB, ref)).toBeNull();
    expect(await repo.setEnabled(accountB, ref, false, at)).toBeNull();
    expect(await repo.removeItem(accountB, ref)).toBe(false);
    expect(await repo.getItem(accountA, ref)).toMatchObject({ enabled: true });
    expect(await repo.setEnabled(accountA, ref, false, at)).toMatchObject({ enabled: false });
    expect(await repo.setEnabled(accountA, ref, true, at)).toMatchObject({ enabled: true });
    expect(await repo.removeItem(accountA, ref)).toBe(true);
    expect(await repo.removeItem(accountA, ref)).toBe(false);
  });

  describe("the built-in vault", () => {
    let key: VaultKey;
    let ring: Keyring;
    /** The item whose secret the copy test overwrote with another row's. */
    let copied: { id: string; ref: { connectionId: string; vaultName: string; itemId: string } };

    beforeAll(() => {
      key = newKey();
      ring = createKeyring(key);
    });

    const add = (keyring: Keyring, accountId: string, label: string, totp = true) =>
      builtinVaultService({ db: t.db, clock: systemClock, keyring }).addItem(accountId, {
        vaultName: "Personal",
        label,
        domains: ["https://Login.Example.com/path", "example.com", "login.example.com"],
        fields: [
          { fieldId: "username", value: "alice" },
          { fieldId: "password", value: "s3cret-value" },
          { fieldId: "api_token", value: "tok" },
          { fieldId: "email", value: "a@example.com" },
        ],
        totp: totp ? TOTP : null,
      });

    it("an added item: metadata in the row, values and seed only sealed, bound to the row", async () => {
      const row = await add(ring, accountA, "Example");
      expect(row).toMatchObject({
        accountId: accountA,
        vaultName: "Personal",
        label: "Example",
        domains: ["login.example.com", "example.com"],
        hasTotp: true,
        enabled: true,
        fieldMetadata: [
          { fieldId: "username", label: "username", type: "STRING" },
          { fieldId: "password", label: "password", type: "CONCEALED" },
          { fieldId: "api_token", label: "api_token", type: "CONCEALED" },
          { fieldId: "email", label: "email", type: "STRING" },
          { fieldId: "totp", label: "one-time code", type: "OTP" },
        ],
      });
      expect(row.itemId).toMatch(/^it_/);
      expect(row.secretCiphertext).toMatch(new RegExp(`^v1\\.${key.id.replace(/[-]/g, "\\-")}\\.`));
      for (const secret of ["s3cret-value", "alice", TOTP.secret]) expect(JSON.stringify(row)).not.toContain(secret);
      const connection = await repo.getConnection(accountA, row.connectionId);
      expect(connection).toMatchObject({ provider: "osprey", name: "Osprey vault", tokenCiphertext: null });
      // A second item goes to the same connection.
      expect((await add(ring, accountA, "Second", false)).connectionId).toBe(row.connectionId);
    });

    it("the provider lists the account's built-in items and reveals one (fields by id, TOTP spec)", async () => {
      const provider = ospreyVaultProvider({ repo, keyring: ring });
      const row = await add(ring, accountB, "For B");
      const conn = { id: row.connectionId, accountId: accountB, url: null, token: null };
      const listed = await provider.list(conn);
      expect(listed.map((i) => i.label)).toContain("For B");
      expect(listed.find((i) => i.itemId === row.itemId)).toEqual({
        vaultName: "Personal",
        itemId: row.itemId,
        label: "For B",
        domains: ["login.example.com", "example.com"],
        fields: row.fieldMetadata,
        hasTotp: true,
      });
      expect(await provider.reveal(conn, { vaultName: "Personal", itemId: row.itemId })).toEqual({
        fields: { username: "alice", password: "s3cret-value", api_token: "tok", email: "a@example.com" },
        totp: TOTP,
      });
      // Another account naming the same connection sees nothing.
      const stranger = { ...conn, accountId: accountA };
      expect(await provider.list(stranger)).toEqual([]);
      await expect(provider.reveal(stranger, { vaultName: "Personal", itemId: row.itemId })).rejects.toBeInstanceOf(
        ProviderItemGoneError,
      );
      await expect(provider.reveal(conn, { vaultName: "Personal", itemId: "it_missing" })).rejects.toBeInstanceOf(
        ProviderItemGoneError,
      );
      // Under another key, it does not open.
      await expect(
        ospreyVaultProvider({ repo, keyring: createKeyring(newKey()) }).reveal(conn, {
          vaultName: "Personal",
          itemId: row.itemId,
        }),
      ).rejects.toMatchObject({ name: "VaultSealError", reason: "unknown-key" });
    });

    it("a secret copied into another item's row does not open there", async () => {
      const a = await add(ring, accountB, "Copied from");
      const b = await add(ring, accountB, "Copied to", false);
      await t.db.update(vaultItems).set({ secretCiphertext: a.secretCiphertext }).where(eq(vaultItems.id, b.id));
      copied = { id: b.id, ref: { connectionId: b.connectionId, vaultName: b.vaultName, itemId: b.itemId } };
      const provider = ospreyVaultProvider({ repo, keyring: ring });
      const conn = { id: b.connectionId, accountId: accountB, url: null, token: null };
      const err = await provider.reveal(conn, { vaultName: "Personal", itemId: b.itemId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VaultSealError);
      expect((err as VaultSealError).reason).toBe("does-not-open");
      expect((err as Error).message).not.toContain("s3cret-value");
    });

    it("rekey moves every item secret and connection token to the current key; old values open with PREVIOUS meanwhile", async () => {
      const old = newKey();
      const oldRing = createKeyring(old);
      const services = createServices({ db: t.db, clock: systemClock, ids: defaultIds });
      const acct = (await services.accounts.create({ plan: "free" })).id;
      const rows = [await add(oldRing, acct, "One"), await add(oldRing, acct, "Two", false)];
      const conn = await repo.insertConnection({
        id: newId("vc"),
        accountId: acct,
        provider: "bitwarden",
        name: "bw",
        url: "http://127.0.0.1:8087",
      });
      await t.db
        .update(vaultConnections)
        .set({ tokenCiphertext: oldRing.seal("bw-token", connectionTokenAad(conn.id)) })
        .where(eq(vaultConnections.id, conn.id));

      const current = newKey();
      const rotated = createKeyring(current, [old]);
      const provider = ospreyVaultProvider({ repo, keyring: rotated });
      const conn0 = { id: rows[0]?.connectionId ?? "", accountId: acct, url: null, token: null };
      // Before rekey, the previous key still opens.
      expect((await provider.reveal(conn0, { vaultName: "Personal", itemId: rows[0]?.itemId ?? "" })).fields.password).toBe(
        "s3cret-value",
      );

      const summary = await rekeyVault({ db: t.db, clock: systemClock, keyring: rotated });
      expect(summary.keyId).toBe(current.id);
      // Other tests' items (under `ring`'s key, not configured here) are reported, not touched.
      expect(summary.items.resealed).toBe(2);
      expect(summary.connections).toEqual({ resealed: 1, current: 0, failed: [] });
      const failedIds = summary.items.failed.map((f) => f.id);
      expect(failedIds.length).toBeGreaterThan(0);
      for (const f of summary.items.failed) expect(f.reason).toMatch(/which is neither OSPREY_VAULT_KEY nor in/);

      // Now the current key alone opens everything that moved.
      const only = createKeyring(current);
      const after = ospreyVaultProvider({ repo, keyring: only });
      for (const r of rows) {
        const revealed = await after.reveal({ ...conn0, id: r.connectionId }, { vaultName: "Personal", itemId: r.itemId });
        expect(revealed.fields).toMatchObject({ username: "alice", password: "s3cret-value" });
      }
      const [token] = await t.db
        .select({ sealed: vaultConnections.tokenCiphertext })
        .from(vaultConnections)
        .where(eq(vaultConnections.id, conn.id));
      expect(only.open(token?.sealed ?? "", connectionTokenAad(conn.id))).toBe("bw-token");
      // The failed ones were left as they were.
      const left = await t.db
        .select({ sealed: vaultItems.secretCiphertext })
        .from(vaultItems)
        .where(inArray(vaultItems.id, failedIds));
      for (const l of left) expect(only.keyIdOf(l.sealed ?? "")).toBe(key.id);

      // Again with the other tests' key as a previous one: they move too, except the copied secret, which opens nowhere.
      const again = await rekeyVault({ db: t.db, clock: systemClock, keyring: createKeyring(current, [key]) });
      expect(again.items.resealed).toBe(failedIds.length - 1);
      expect(again.items.failed).toEqual([{ id: copied.id, reason: expect.stringMatching(/does not open: it was altered/) }]);
      expect(again.connections).toEqual({ resealed: 0, current: 1, failed: [] });
      expect(await repo.removeItem(accountB, copied.ref)).toBe(true);
      const third = await rekeyVault({ db: t.db, clock: systemClock, keyring: only });
      expect(third.items.resealed).toBe(0);
      expect(third.items.failed).toEqual([]);
    });
  });
});
