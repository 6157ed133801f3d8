import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../functions/db/db.ts";
import { AppError } from "../../functions/lib/app-error.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { accountRepo } from "../../functions/repos/account.repo.ts";
import { apiKeyRepo } from "../../functions/repos/api-key.repo.ts";
import { createServices, type Services } from "../../functions/services/index.ts";
import { ENTITLEMENTS, type Entitlement, PLAN_DEFINITIONS, PLANS, type Plan } from "../../schema/plans.ts";
import { TestClock } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** The SQLSTATE of a database error, wherever drizzle put the driver's error in the cause chain. */
function sqlState(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the promise to reject");
}

async function expectAppError(p: Promise<unknown>, code: string): Promise<AppError> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  return err as AppError;
}

/** Plan defaults ∪ granted − revoked, in canonical order: the rule the services must follow. */
const expected = (plan: Plan, granted: string[], revoked: string[]) =>
  ENTITLEMENTS.filter((e) => (PLAN_DEFINITIONS[plan].entitlements.includes(e) || granted.includes(e)) && !revoked.includes(e));

describe.each(driverCases())("accounts and API keys on $driver", ({ open }) => {
  let db: TestDatabase;
  let clock: TestClock;
  let services: Services;
  beforeAll(async () => {
    db = await open();
    clock = new TestClock();
    services = createServices({ db: db.db, clock, ids: defaultIds });
  });
  afterAll(() => db.dispose());

  describe("accounts", () => {
    it.each(PLANS)("create on %s: plan defaults, no overrides, no credits", async (plan) => {
      const a = await services.accounts.create({ plan, name: `acct ${plan}` });
      expect(a.id).toMatch(/^acct_[0-9a-z]{26}$/);
      expect(a).toMatchObject({
        name: `acct ${plan}`,
        plan,
        entitlements: expected(plan, [], []),
        entitlementOverrides: { granted: [], revoked: [] },
        limits: PLAN_DEFINITIONS[plan].limits,
        customLimits: { searchRpm: null, fetchUpm: null, maxPendingRuns: null },
        creditBalance: 0,
        suspended: false,
        createdAt: clock.now(),
      });
      expect(await services.accounts.get(a.id)).toEqual(a);
    });

    it("create with entitlements grants them; get of an unknown id is NOT_FOUND", async () => {
      const a = await services.accounts.create({ plan: "free", entitlements: ["beta", "beta", "custom_proxy"] });
      expect(a.entitlementOverrides.granted).toEqual(["beta", "custom_proxy"]);
      expect(a.entitlements).toEqual(expected("free", ["beta", "custom_proxy"], []));
      await expectAppError(services.accounts.get("acct_missing"), "NOT_FOUND");
      await expectAppError(services.accounts.setPlan("acct_missing", "pro"), "NOT_FOUND");
    });

    it("list and count see every account", async () => {
      const before = await services.accounts.count();
      const a = await services.accounts.create({ plan: "payg" });
      const b = await services.accounts.create({ plan: "payg" });
      expect(await services.accounts.count()).toBe(before + 2);
      const list = await services.accounts.list();
      expect(list).toHaveLength(before + 2);
      expect(list.map((x) => x.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    });

    it("setPlan changes the plan's entitlements and limits, keeping overrides", async () => {
      const a = await services.accounts.create({ plan: "free", entitlements: ["beta"] });
      const pro = await services.accounts.setPlan(a.id, "pro");
      expect(pro.plan).toBe("pro");
      expect(pro.entitlements).toEqual(expected("pro", ["beta"], []));
      expect(pro.limits).toEqual(PLAN_DEFINITIONS.pro.limits);
    });

    it("grant and revoke: effective = plan ∪ granted − revoked, each undoing the other", async () => {
      const a = await services.accounts.create({ plan: "starter" });
      let v = await services.accounts.grant(a.id, ["beta", "custom_proxy"]);
      expect(v.entitlementOverrides).toEqual({ granted: ["beta", "custom_proxy"], revoked: [] });
      expect(v.entitlements).toEqual(expected("starter", ["beta", "custom_proxy"], []));

      v = await services.accounts.revoke(a.id, ["custom_proxy", "capture_html"]);
      expect(v.entitlementOverrides).toEqual({ granted: ["beta"], revoked: ["custom_proxy", "capture_html"] });
      expect(v.entitlements).toEqual(expected("starter", ["beta"], ["custom_proxy", "capture_html"]));
      expect(v.entitlements).not.toContain("capture_html");

      v = await services.accounts.grant(a.id, ["capture_html"]);
      expect(v.entitlementOverrides).toEqual({ granted: ["beta", "capture_html"], revoked: ["custom_proxy"] });
      expect(v.entitlements).toContain("capture_html");

      v = await services.accounts.grant(a.id, ["beta"]);
      expect(v.entitlementOverrides.granted).toEqual(["beta", "capture_html"]);
      expect(await services.accounts.get(a.id)).toEqual(v);
    });

    it.each([
      [
        "create",
        (s: Services, id: string) => s.accounts.create({ plan: "free", entitlements: ["beta", "teleport"] }).then(() => id),
      ],
      ["grant", (s: Services, id: string) => s.accounts.grant(id, ["teleport"])],
      ["revoke", (s: Services, id: string) => s.accounts.revoke(id, ["search_access", "teleport"])],
    ])("%s with an unknown entitlement is INVALID_INPUT and changes nothing", async (_, act) => {
      const a = await services.accounts.create({ plan: "free" });
      const count = await services.accounts.count();
      const err = await expectAppError(act(services, a.id), "INVALID_INPUT");
      expect(err.status).toBe(400);
      expect(err.message).toContain("teleport");
      expect(await services.accounts.get(a.id)).toEqual(a);
      expect(await services.accounts.count()).toBe(count);
    });

    it("credits: add (also negative) and set, never below zero", async () => {
      const a = await services.accounts.create({ plan: "payg" });
      expect((await services.accounts.addCredits(a.id, 100)).creditBalance).toBe(100);
      expect((await services.accounts.addCredits(a.id, -30)).creditBalance).toBe(70);
      expect((await services.accounts.addCredits(a.id, -1000)).creditBalance).toBe(0);
      expect((await services.accounts.setCredits(a.id, 12_345_678_901)).creditBalance).toBe(12_345_678_901);
      expect((await services.accounts.setCredits(a.id, 0)).creditBalance).toBe(0);
    });

    it("setCredits never stores a negative balance", async () => {
      const a = await services.accounts.create({ plan: "payg" });
      await services.accounts.setCredits(a.id, -5).catch(() => undefined);
      expect((await services.accounts.get(a.id)).creditBalance).toBeGreaterThanOrEqual(0);
    });

    it("concurrent credit additions are not lost", async () => {
      const a = await services.accounts.create({ plan: "payg" });
      await Promise.all(Array.from({ length: 20 }, () => services.accounts.addCredits(a.id, 5)));
      expect((await services.accounts.get(a.id)).creditBalance).toBe(100);
    });

    it("setLimits sets custom limits; null restores the plan default; absent keys are untouched", async () => {
      const a = await services.accounts.create({ plan: "starter" });
      let v = await services.accounts.setLimits(a.id, { searchRpm: 5, fetchUpm: 7, maxPendingRuns: 1 });
      expect(v.limits).toEqual({ ...PLAN_DEFINITIONS.starter.limits, searchRpm: 5, fetchUpm: 7, maxPendingRuns: 1 });
      expect(v.customLimits).toEqual({ searchRpm: 5, fetchUpm: 7, maxPendingRuns: 1 });
      v = await services.accounts.setLimits(a.id, { searchRpm: null });
      expect(v.limits).toEqual({ ...PLAN_DEFINITIONS.starter.limits, fetchUpm: 7, maxPendingRuns: 1 });
      expect(v.customLimits).toEqual({ searchRpm: null, fetchUpm: 7, maxPendingRuns: 1 });
      v = await services.accounts.setLimits(a.id, { fetchUpm: null, maxPendingRuns: null });
      expect(v.limits).toEqual(PLAN_DEFINITIONS.starter.limits);
      v = await services.accounts.setPlan(a.id, "pro");
      expect(v.limits).toEqual(PLAN_DEFINITIONS.pro.limits);
    });

    it.each([
      ["a bad plan", (r: ReturnType<typeof accountRepo>) => r.insert({ id: "acct_bad_plan", plan: "gold" as Plan })],
      ["a zero search_rpm", (r: ReturnType<typeof accountRepo>, id: string) => r.setLimits(id, { searchRpm: 0 })],
      ["a negative fetch_upm", (r: ReturnType<typeof accountRepo>, id: string) => r.setLimits(id, { fetchUpm: -1 })],
      ["a zero max_pending_runs", (r: ReturnType<typeof accountRepo>, id: string) => r.setLimits(id, { maxPendingRuns: 0 })],
    ])("the database's check constraints reject %s", async (_, act) => {
      const a = await services.accounts.create({ plan: "free" });
      const err = await rejection(act(accountRepo(db.db), a.id));
      expect(sqlState(err)).toBe("23514");
      expect(await services.accounts.get(a.id)).toEqual(a);
      expect(await accountRepo(db.db).get("acct_bad_plan")).toBeNull();
    });
  });

  describe("API keys", () => {
    it("create returns an osk_ key; only its SHA-256 and a 12-character prefix are stored", async () => {
      const a = await services.accounts.create({ plan: "pro" });
      const { key, row } = await services.apiKeys.create({ accountId: a.id, name: "ci", scope: "mcp", subUserId: "u1" });
      expect(key).toMatch(/^osk_[0-9A-Za-z]{40}$/);
      expect(row.id).toMatch(/^key_[0-9a-z]{26}$/);
      expect(row).toMatchObject({ accountId: a.id, name: "ci", scope: "mcp", subUserId: "u1", revokedAt: null });
      expect(row.keyHash).toBe(createHash("sha256").update(key).digest("hex"));
      expect(row.prefix).toBe(key.slice(0, 12));
      const [stored] = await rows<{ j: string }>(
        db.db,
        sql`select row_to_json(k)::text as j from api_keys k where id = ${row.id}`,
      );
      expect(stored?.j).toContain(row.keyHash);
      expect(stored?.j).not.toContain(key);
      expect(stored?.j).not.toContain(key.slice(12));
      expect(stored?.j).not.toContain(key.slice(4, 30));
    });

    it("authenticate resolves a key to its account's effective entitlements and limits", async () => {
      const a = await services.accounts.create({ plan: "free", entitlements: ["beta"] });
      await services.accounts.revoke(a.id, ["capture_screenshots"]);
      await services.accounts.setLimits(a.id, { searchRpm: 9 });
      const { key, row } = await services.apiKeys.create({ accountId: a.id });
      const auth = await services.apiKeys.authenticate(`  ${key} `);
      expect(auth).toMatchObject({ keyId: row.id, keyPrefix: row.prefix, scope: "api", subUserId: null });
      expect(auth.account).toMatchObject({ id: a.id, plan: "free" });
      expect(auth.account.entitlements).toEqual(expected("free", ["beta"], ["capture_screenshots"]));
      expect(auth.account.limits).toEqual({ ...PLAN_DEFINITIONS.free.limits, searchRpm: 9 });
      const [listed] = (await services.apiKeys.listForAccount(a.id, { limit: 10, page: 1 })).items;
      expect(listed?.lastUsedAt).toEqual(clock.now());
    });

    it("authenticate refuses missing, unknown, revoked, expired and suspended keys", async () => {
      const a = await services.accounts.create({ plan: "pro" });
      const revoked = await services.apiKeys.create({ accountId: a.id });
      await services.apiKeys.revoke(revoked.row.id);
      const expired = await services.apiKeys.create({ accountId: a.id, expiresAt: clock.now() });
      await expectAppError(services.apiKeys.authenticate(undefined), "MISSING_API_KEY");
      await expectAppError(services.apiKeys.authenticate("   "), "MISSING_API_KEY");
      await expectAppError(services.apiKeys.authenticate(`osk_${"x".repeat(40)}`), "INVALID_API_KEY");
      await expectAppError(services.apiKeys.authenticate("x".repeat(10_000)), "INVALID_API_KEY");
      await expectAppError(services.apiKeys.authenticate(revoked.key), "INVALID_API_KEY");
      await expectAppError(services.apiKeys.authenticate(expired.key), "UNAUTHORIZED");
      const live = await services.apiKeys.create({ accountId: a.id });
      await services.accounts.setSuspended(a.id, true);
      await expectAppError(services.apiKeys.authenticate(live.key), "UNAUTHORIZED");
      await services.accounts.setSuspended(a.id, false);
      expect((await services.apiKeys.authenticate(live.key)).keyId).toBe(live.row.id);
    });

    it.each(["id", "prefix"] as const)("revoke by %s; a second revoke reports alreadyRevoked", async (by) => {
      const a = await services.accounts.create({ plan: "pro" });
      const { key, row } = await services.apiKeys.create({ accountId: a.id });
      const ref = by === "id" ? row.id : row.prefix;
      const first = await services.apiKeys.revoke(ref);
      expect(first).toMatchObject({ alreadyRevoked: false, row: { id: row.id, revokedAt: clock.now() } });
      clock.advance(1000);
      const second = await services.apiKeys.revoke(ref);
      expect(second).toMatchObject({ alreadyRevoked: true, row: { id: row.id, revokedAt: first?.row.revokedAt } });
      await expectAppError(services.apiKeys.authenticate(key), "INVALID_API_KEY");
      expect(await services.apiKeys.revoke("key_nothing_like_this")).toBeNull();
    });

    it("revoke by an ambiguous prefix is INVALID_INPUT and revokes nothing", async () => {
      const a = await services.accounts.create({ plan: "pro" });
      const keys = apiKeyRepo(db.db);
      const shared = "osk_SharedPx";
      for (const n of [1, 2]) {
        await keys.insert({ id: defaultIds.apiKey(), accountId: a.id, keyHash: `hash-ambiguous-${n}`, prefix: shared });
      }
      const err = await expectAppError(services.apiKeys.revoke(shared), "INVALID_INPUT");
      expect(err.message).toContain("2 keys");
      expect((await keys.listAll(a.id)).map((k) => k.revokedAt)).toEqual([null, null]);
    });

    it("listForAccount pages one account's keys, newest first", async () => {
      const a = await services.accounts.create({ plan: "pro" });
      const other = await services.accounts.create({ plan: "pro" });
      const created: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(60_000);
        created.push((await services.apiKeys.create({ accountId: a.id, name: `k${i}` })).row.id);
        await services.apiKeys.create({ accountId: other.id });
      }
      const newestFirst = [...created].reverse();
      const pages = [1, 2, 3, 4].map((page) => services.apiKeys.listForAccount(a.id, { limit: 2, page }));
      const [p1, p2, p3, p4] = await Promise.all(pages);
      expect(p1).toMatchObject({ total: 5, limit: 2, page: 1, total_pages: 3, has_more: true });
      expect(p1?.items.map((k) => k.id)).toEqual(newestFirst.slice(0, 2));
      expect(p2?.items.map((k) => k.id)).toEqual(newestFirst.slice(2, 4));
      expect(p3).toMatchObject({ total: 5, page: 3, has_more: false });
      expect(p3?.items.map((k) => k.id)).toEqual(newestFirst.slice(4));
      expect(p4).toMatchObject({ items: [], total: 5, has_more: false });
      expect(p1?.items.every((k) => k.accountId === a.id)).toBe(true);
      expect(await services.apiKeys.listForAccount("acct_nobody", { limit: 10, page: 1 })).toMatchObject({
        items: [],
        total: 0,
        total_pages: 0,
        has_more: false,
      });
      expect((await services.apiKeys.listAll(a.id)).map((k) => k.id)).toEqual(created);
    });

    it("the same key hash cannot be stored twice", async () => {
      const a = await services.accounts.create({ plan: "pro" });
      const { row } = await services.apiKeys.create({ accountId: a.id });
      const keys = apiKeyRepo(db.db);
      const err = await rejection(
        keys.insert({ id: defaultIds.apiKey(), accountId: a.id, keyHash: row.keyHash, prefix: "osk_dup" }),
      );
      expect(sqlState(err)).toBe("23505");
      expect(await keys.listAll(a.id)).toHaveLength(1);
    });

    it("a key needs an existing account", async () => {
      const err = await rejection(services.apiKeys.create({ accountId: "acct_does_not_exist" }));
      expect(sqlState(err)).toBe("23503");
    });
  });
});

// Keep the canonical list honest: every plan's defaults are known entitlements.
it.each(PLANS)("plan %s lists only known entitlements", (plan) => {
  for (const e of PLAN_DEFINITIONS[plan].entitlements) expect(ENTITLEMENTS).toContain(e satisfies Entitlement);
});
