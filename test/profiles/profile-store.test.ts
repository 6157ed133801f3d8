import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/lib/ids.ts";
import type { LogFields, Logger } from "../../functions/lib/logger.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { MAX_DOMAIN_STATE_BYTES, profileStore } from "../../functions/profiles/profile.store.ts";
import type { ProfileSave, ProfileStore } from "../../functions/profiles/profile.types.ts";
import { rekeyProfiles } from "../../functions/profiles/profile-rekey.ts";
import { createKeyring, profileDomainAad, VaultKey } from "../../functions/vault/crypto.ts";
import { accounts, browserProfileDomains, browserProfiles } from "../../schema/tables/index.ts";
import { TestClock } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { cookie, profilesOver, stateOf, testKeyring } from "./profile-fixtures.ts";

/**
 * The ProfileStore port (what runs and browser sessions use) on PGlite and Postgres: resolve,
 * load/save round trips with every cookie attribute, sealing at rest, the size and domain caps,
 * and the concurrency rule (per-domain last-writer-wins, one transaction per save).
 */

describe.each(driverCases(["pglite", "pg"]))("the profile store on $driver", ({ open }) => {
  let db: TestDatabase;
  let store: ProfileStore;
  const warnings: { msg: string; fields: LogFields }[] = [];
  const logger: Logger = { ...silentLogger, warn: (msg, fields = {}) => warnings.push({ msg, fields }) };
  const keyring = testKeyring();
  const clock = new TestClock();

  beforeAll(async () => {
    db = await open();
    store = profilesOver(db.db, keyring, logger, clock).store;
  });
  afterAll(async () => {
    await db?.dispose();
  });

  /** An account with one profile, straight into the tables. */
  async function profile(opts: { isDefault?: boolean; country?: string | null } = {}) {
    const accountId = newId("acct");
    await db.db.insert(accounts).values({ id: accountId, plan: "pro" });
    const id = newId("prof");
    await db.db.insert(browserProfiles).values({
      id,
      accountId,
      name: "p",
      isDefault: opts.isDefault ?? false,
      proxyCountryCode: opts.country ?? null,
      fingerprintSeed: `seed-${id}`,
    });
    return { accountId, id };
  }

  const save = (over: Partial<ProfileSave>): ProfileSave => ({
    writes: [],
    accessed: [],
    writtenBy: "run_1",
    at: clock.now(),
    ...over,
  });

  const rowsOf = (id: string) => db.db.select().from(browserProfileDomains).where(eq(browserProfileDomains.profileId, id));

  it("resolves a profile id of the account, the default when none is given, and null otherwise", async () => {
    const p = await profile({ isDefault: true, country: "JP" });
    expect(await store.resolve(p.accountId, p.id)).toEqual({ id: p.id, fingerprintSeed: `seed-${p.id}`, proxyCountryCode: "JP" });
    expect(await store.resolve(p.accountId, undefined)).toEqual(await store.resolve(p.accountId, p.id));
    const other = await profile();
    expect(await store.resolve(other.accountId, p.id)).toBeNull();
    expect(await store.resolve(other.accountId, undefined)).toBeNull();
    expect(await store.resolve(p.accountId, "prof_unknown")).toBeNull();
  });

  it("loads exactly what was saved: every cookie attribute (partitioned ones too) and localStorage per origin", async () => {
    const p = await profile();
    const shop = stateOf("shop.example", "v1", 3, 2);
    shop.cookies.push({
      ...cookie("shop.example", "session", "s"),
      domain: "login.shop.example",
      expires: -1,
      sameSite: "Strict",
    });
    shop.localStorage[0]?.items.push(["unicode", "żółw 🐢 \u2028 \ud83d"]);
    const bank = stateOf("bank.co.uk", "v1", 1, 0);
    expect(
      await store.save(
        p.accountId,
        p.id,
        save({
          writes: [
            { domain: "shop.example", state: shop },
            { domain: "bank.co.uk", state: bank },
          ],
        }),
      ),
    ).toBe(true);
    const loaded = await store.load(p.accountId, p.id);
    expect(loaded).toEqual({
      id: p.id,
      accountId: p.accountId,
      name: "p",
      fingerprintSeed: `seed-${p.id}`,
      proxyCountryCode: null,
      domains: [bank, shop],
    });
    expect(loaded?.domains[1]?.cookies[0]?.partitionKey).toEqual({
      topLevelSite: "https://top.example",
      hasCrossSiteAncestor: false,
    });
    const rows = await rowsOf(p.id);
    expect(rows.map((r) => [r.domain, r.cookieCount, r.localStorageOriginCount, r.version]).sort()).toEqual([
      ["bank.co.uk", 1, 0, 1],
      ["shop.example", 4, 2, 1],
    ]);
  });

  it("replaces written domains whole (version + 1), forgets null ones, and only moves last_accessed_at of visited rows", async () => {
    const p = await profile();
    const t0 = clock.now();
    await store.save(
      p.accountId,
      p.id,
      save({ writes: ["a.example", "b.example", "c.example"].map((d) => ({ domain: d, state: stateOf(d, "first") })), at: t0 }),
    );
    const t1 = new Date(t0.getTime() + 60_000);
    await store.save(
      p.accountId,
      p.id,
      save({
        writes: [
          { domain: "a.example", state: stateOf("a.example", "second", 1, 0) },
          { domain: "b.example", state: null },
        ],
        accessed: ["a.example", "c.example", "never-written.example"],
        writtenBy: "run_2",
        at: t1,
      }),
    );
    const rows = new Map((await rowsOf(p.id)).map((r) => [r.domain, r]));
    expect([...rows.keys()].sort()).toEqual(["a.example", "c.example"]);
    expect(rows.get("a.example")).toMatchObject({
      version: 2,
      cookieCount: 1,
      lastWrittenByRunId: "run_2",
      lastWrittenAt: t1,
      lastAccessedAt: t1,
    });
    expect(rows.get("c.example")).toMatchObject({
      version: 1,
      lastWrittenByRunId: "run_1",
      lastWrittenAt: t0,
      lastAccessedAt: t1,
    });
    // An older save's access does not move the time back.
    await store.save(p.accountId, p.id, save({ accessed: ["c.example"], at: t0 }));
    expect((await rowsOf(p.id)).find((r) => r.domain === "c.example")?.lastAccessedAt).toEqual(t1);
    const loaded = await store.load(p.accountId, p.id);
    expect(loaded?.domains).toEqual([stateOf("a.example", "second", 1, 0), stateOf("c.example", "first")]);
  });

  it("writes nothing to another account's or a deleted profile (false)", async () => {
    const p = await profile();
    const other = await profile();
    const write = save({ writes: [{ domain: "x.example", state: stateOf("x.example", "t") }] });
    expect(await store.save(other.accountId, p.id, write)).toBe(false);
    expect(await rowsOf(p.id)).toEqual([]);
    await db.db.delete(browserProfiles).where(eq(browserProfiles.id, p.id));
    expect(await store.save(p.accountId, p.id, write)).toBe(false);
    expect(await store.load(p.accountId, p.id)).toBeNull();
  });

  it("keeps no cookie or storage value in any table, and a state moved to another row does not open", async () => {
    const canary = `canary-${newId("c")}`;
    const p = await profile();
    const state = stateOf("bank.example", "x");
    state.cookies.push(cookie("bank.example", "sid", canary, true));
    state.localStorage.push({ origin: "https://app.bank.example", items: [["token", canary]] });
    await store.save(p.accountId, p.id, save({ writes: [{ domain: "bank.example", state }] }));
    const tables = (
      (await db.db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      )) as unknown as { rows: { table_name: string }[] }
    ).rows.map((r) => r.table_name);
    expect(tables).toEqual(expect.arrayContaining(["browser_profiles", "browser_profile_domains"]));
    let dump = "";
    for (const t of tables) {
      const rows = (await db.db.execute(sql.raw(`select row_to_json(x)::text as j from "${t}" x`))) as unknown as {
        rows: { j: string }[];
      };
      dump += rows.rows.map((r) => r.j).join("\n");
    }
    expect(dump).toContain("bank.example");
    expect(dump).not.toContain(canary);
    expect(dump).not.toContain(Buffer.from(canary).toString("base64"));
    expect(JSON.stringify(await store.load(p.accountId, p.id))).toContain(canary);

    // The sealed state copied under another domain or profile: left out with a warning naming no value.
    const [row] = await rowsOf(p.id);
    const q = await profile();
    await db.db.insert(browserProfileDomains).values({ ...(row as NonNullable<typeof row>), profileId: q.id });
    await db.db.insert(browserProfileDomains).values({ ...(row as NonNullable<typeof row>), domain: "evil.example" });
    warnings.length = 0;
    expect((await store.load(q.accountId, q.id))?.domains).toEqual([]);
    expect((await store.load(p.accountId, p.id))?.domains.map((d) => d.domain)).toEqual(["bank.example"]);
    expect(warnings.map((w) => w.msg)).toEqual([
      "profile load: a domain's state does not open; it is left out",
      "profile load: a domain's state does not open; it is left out",
    ]);
    expect(JSON.stringify(warnings)).not.toContain(canary);
    expect(() => keyring.open(row?.stateCiphertext ?? "", profileDomainAad(p.id, "bank.example"))).not.toThrow();
  });

  it("drops the largest localStorage origins of a state over the cap, and keeps the previous state when the cookies alone are over it", async () => {
    const p = await profile();
    const big = stateOf("big.example", "t", 2, 2);
    big.localStorage.push({ origin: "https://huge.big.example", items: [["blob", "x".repeat(MAX_DOMAIN_STATE_BYTES)]] });
    warnings.length = 0;
    await store.save(p.accountId, p.id, save({ writes: [{ domain: "big.example", state: big }] }));
    const kept = (await store.load(p.accountId, p.id))?.domains[0];
    expect(kept?.localStorage.map((o) => o.origin)).toEqual(["https://big.example", "https://o1.big.example"]);
    expect(kept?.cookies).toEqual(big.cookies);
    expect(warnings.map((w) => w.fields.dropped_origins)).toEqual([1]);

    const crumbs = stateOf("big.example", "t", 0, 0);
    crumbs.cookies = Array.from({ length: 1200 }, (_, i) => cookie("big.example", `c${i}`, "y".repeat(4000)));
    warnings.length = 0;
    await store.save(p.accountId, p.id, save({ writes: [{ domain: "big.example", state: crumbs }], writtenBy: "run_big" }));
    expect((await store.load(p.accountId, p.id))?.domains[0]).toEqual(kept);
    expect((await rowsOf(p.id))[0]?.lastWrittenByRunId).toBe("run_1");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain("previous state is kept");
  });

  it("two saves at once on different domains keep both", async () => {
    const p = await profile();
    await Promise.all(
      ["left.example", "right.example"].map((d, i) =>
        store.save(p.accountId, p.id, save({ writes: [{ domain: d, state: stateOf(d, `w${i}`) }], writtenBy: `w${i}` })),
      ),
    );
    expect((await store.load(p.accountId, p.id))?.domains).toEqual([
      stateOf("left.example", "w0"),
      stateOf("right.example", "w1"),
    ]);
  });

  it("interleaved saves on shared domains leave every domain exactly one writer's whole state (per-domain last-writer-wins)", async () => {
    const p = await profile();
    const domains = Array.from({ length: 6 }, (_, i) => `d${i}.example`);
    // Every domain starts with a state of its own; d5 is written by nobody and must keep it.
    await store.save(
      p.accountId,
      p.id,
      save({ writes: domains.map((d) => ({ domain: d, state: stateOf(d, "seed", 4, 3) })), writtenBy: "seed" }),
    );
    const writers = 24;
    const wrote = new Map<string, Set<string>>(domains.map((d) => [d, new Set(["seed"])]));
    const saves = Array.from({ length: writers }, (_, w) => {
      const tag = `w${w}`;
      // Overlapping subsets, in different orders: writer w writes d(w mod 5) and d((w + 2) mod 5), sometimes also d((w + 3) mod 5).
      const picked = [w % 5, (w + 2) % 5, ...(w % 3 === 0 ? [(w + 3) % 5] : [])].map((i) => domains[i] as string);
      if (w % 2 === 1) picked.reverse();
      for (const d of picked) wrote.get(d)?.add(tag);
      return store.save(
        p.accountId,
        p.id,
        save({
          writes: picked.map((d) => ({ domain: d, state: stateOf(d, tag, 2 + (w % 4), 1 + (w % 3)) })),
          accessed: domains,
          writtenBy: tag,
        }),
      );
    });
    expect(await Promise.all(saves)).toEqual(Array(writers).fill(true));

    const rows = new Map((await rowsOf(p.id)).map((r) => [r.domain, r]));
    const loaded = await store.load(p.accountId, p.id);
    expect(loaded?.domains.map((d) => d.domain)).toEqual(domains);
    for (const state of loaded?.domains ?? []) {
      const row = rows.get(state.domain);
      const writer = row?.lastWrittenByRunId ?? "";
      // The whole state is one writer's: every value carries its tag, and the counts are that state's.
      const values = [...state.cookies.map((c) => c.value), ...state.localStorage.flatMap((o) => o.items.map(([, v]) => v))];
      expect(
        values.every((v) => v === writer || v.startsWith(`${writer}-`)),
        `${state.domain}: ${values.join(",")}`,
      ).toBe(true);
      expect(wrote.get(state.domain)?.has(writer)).toBe(true);
      const w = writer === "seed" ? -1 : Number(writer.slice(1));
      expect(state).toEqual(
        w < 0 ? stateOf(state.domain, "seed", 4, 3) : stateOf(state.domain, writer, 2 + (w % 4), 1 + (w % 3)),
      );
      expect([row?.cookieCount, row?.localStorageOriginCount]).toEqual([state.cookies.length, state.localStorage.length]);
      // Every write of the domain counted exactly once.
      expect(row?.version).toBe(wrote.get(state.domain)?.size);
    }
    expect(rows.get("d5.example")?.lastWrittenByRunId).toBe("seed");
  });

  it("re-seals every state under the current key after a rotation (osprey vault rekey), in batches, and again finds nothing to do", async () => {
    const oldKey = new VaultKey(randomBytes(32));
    const newKey = new VaultKey(randomBytes(32));
    const p = await profile();
    const domains = Array.from({ length: 205 }, (_, i) => `site${String(i).padStart(3, "0")}.example`);
    const states = domains.map((d) => stateOf(d, "rotated", 1, 1));
    await profileStore({ db: db.db, keyring: createKeyring(oldKey), logger }).save(
      p.accountId,
      p.id,
      save({ writes: states.map((state) => ({ domain: state.domain, state })) }),
    );
    const rotated = createKeyring(newKey, [oldKey]);
    const first = await rekeyProfiles({ db: db.db, keyring: rotated });
    expect(first.resealed).toBe(domains.length);
    // Other tests' states are under a key this ring does not hold: named, left alone.
    expect(first.failed.filter((f) => f.profileId === p.id)).toEqual([]);
    expect(first.failed.every((f) => f.reason.includes("neither OSPREY_VAULT_KEY"))).toBe(true);
    const onlyNew = profileStore({ db: db.db, keyring: createKeyring(newKey), logger });
    expect((await onlyNew.load(p.accountId, p.id))?.domains).toEqual(states);
    const again = await rekeyProfiles({ db: db.db, keyring: rotated });
    expect(again.resealed).toBe(0);
    expect(again.current).toBeGreaterThanOrEqual(domains.length);
  });

  it("goes with its account", async () => {
    const p = await profile();
    await store.save(p.accountId, p.id, save({ writes: [{ domain: "a.example", state: stateOf("a.example", "t") }] }));
    await db.db.delete(accounts).where(eq(accounts.id, p.accountId));
    expect(await db.db.select().from(browserProfiles).where(eq(browserProfiles.id, p.id))).toEqual([]);
    expect(await rowsOf(p.id)).toEqual([]);
  });
});
