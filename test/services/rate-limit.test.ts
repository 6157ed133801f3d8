import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../functions/lib/app-error.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { rateLimitRepo } from "../../functions/repos/rate-limit.repo.ts";
import type { AuthContext } from "../../functions/services/api-key.service.ts";
import { createServices, type Services } from "../../functions/services/index.ts";
import { type RateBucket, rateLimitHeaders, WINDOW_MS } from "../../functions/services/rate-limit.service.ts";
import { PLAN_DEFINITIONS, type Plan } from "../../schema/plans.ts";
import { TestClock } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

const MINUTE = "2026-11-21T10:00:00.000Z";
const at = (seconds: number) => Date.parse(MINUTE) + seconds * 1000;

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("RATE_LIMIT_EXCEEDED");
    return err as AppError;
  }
  throw new Error("expected RATE_LIMIT_EXCEEDED");
}

describe.each(driverCases())("rate limits on $driver", ({ open }) => {
  let db: TestDatabase;
  let clock: TestClock;
  let services: Services;
  beforeAll(async () => {
    db = await open();
    clock = new TestClock();
    services = createServices({ db: db.db, clock, ids: defaultIds });
  });
  afterAll(() => db.dispose());

  /** A fresh account and key (so tests share no counters), authenticated. */
  async function newAuth(opts: { plan?: Plan; searchRpm?: number; fetchUpm?: number } = {}): Promise<AuthContext> {
    const account = await services.accounts.create({ plan: opts.plan ?? "pro" });
    const { searchRpm, fetchUpm } = opts;
    if (searchRpm !== undefined || fetchUpm !== undefined) await services.accounts.setLimits(account.id, { searchRpm, fetchUpm });
    const { key } = await services.apiKeys.create({ accountId: account.id });
    return services.apiKeys.authenticate(key);
  }

  const consume = (auth: AuthContext, bucket: RateBucket = "search", cost?: number) =>
    services.rateLimits.consume(auth, bucket, cost);

  it("gives back what a request was charged when it is refused for another reason, never below zero", async () => {
    const auth = await newAuth({ searchRpm: 2 });
    clock.set(at(10));
    const first = await consume(auth);
    await consume(auth);
    await expect(consume(auth)).rejects.toMatchObject({ code: "RATE_LIMIT_EXCEEDED" });
    await first.release();
    expect(await consume(auth)).toMatchObject({ remaining: 0 });
    await first.release();
    await first.release();
    await first.release();
    expect(await consume(auth)).toMatchObject({ remaining: 1 });
  });

  it("counts in one-minute windows aligned to the clock minute", async () => {
    const auth = await newAuth({ searchRpm: 10 });
    clock.set(at(15));
    expect(await consume(auth)).toMatchObject({ limit: 10, remaining: 9, resetSeconds: 45 });
    clock.set(at(59.5));
    expect(await consume(auth, "search", 3)).toMatchObject({ limit: 10, remaining: 6, resetSeconds: 1 });
    clock.set(at(59.999));
    expect(await consume(auth)).toMatchObject({ remaining: 5, resetSeconds: 1 });
    clock.set(at(60));
    expect(await consume(auth)).toMatchObject({ limit: 10, remaining: 9, resetSeconds: 60 });
    clock.set(at(61.2));
    expect(await consume(auth)).toMatchObject({ limit: 10, remaining: 8, resetSeconds: 59 });
    expect(rateLimitHeaders({ limit: 10, remaining: 8, resetSeconds: 59 })).toEqual({
      "X-RateLimit-Limit": "10",
      "X-RateLimit-Remaining": "8",
      "X-RateLimit-Reset": "59",
    });
  });

  it("refuses the (limit+1)th request with 429, Retry-After and X-RateLimit-Limit", async () => {
    const auth = await newAuth({ searchRpm: 3 });
    clock.set(at(20));
    for (let i = 2; i >= 0; i--) expect((await consume(auth)).remaining).toBe(i);
    clock.set(at(40.2));
    const err = await refusal(consume(auth));
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ "Retry-After": "20", "X-RateLimit-Limit": "3" });
    expect(err.message).toMatch(/search limit of 3 requests per minute .* retry in 20 s/);
    clock.set(at(59.9));
    expect((await refusal(consume(auth))).headers["Retry-After"]).toBe("1");
  });

  it("a refused request consumes nothing", async () => {
    const auth = await newAuth({ searchRpm: 5 });
    const repo = rateLimitRepo(db.db);
    clock.set(at(10));
    expect((await consume(auth, "search", 4)).remaining).toBe(1);
    await refusal(consume(auth, "search", 2));
    await refusal(consume(auth, "search", 2));
    expect(await repo.current(auth.keyId, "search", new Date(at(0)))).toBe(4);
    expect(await consume(auth, "search", 1)).toMatchObject({ remaining: 0 });
    await refusal(consume(auth));
    clock.set(at(60));
    expect(await consume(auth, "search", 5)).toMatchObject({ limit: 5, remaining: 0 });
    expect(await repo.current(auth.keyId, "search", new Date(at(0)))).toBe(5);
    expect(await repo.current(auth.keyId, "search", new Date(at(60)))).toBe(5);
  });

  it("a cost above the limit is refused with a message to split the request", async () => {
    const auth = await newAuth({ fetchUpm: 4 });
    clock.set(at(0));
    const err = await refusal(consume(auth, "fetch", 5));
    expect(err.message).toContain("needs 5 URLs");
    expect(err.message).toContain("split");
    expect(err.headers["X-RateLimit-Limit"]).toBe("4");
    expect(await consume(auth, "fetch", 4)).toMatchObject({ limit: 4, remaining: 0 });
  });

  it("counts per API key and per bucket", async () => {
    const auth = await newAuth({ searchRpm: 2, fetchUpm: 3 });
    const { key } = await services.apiKeys.create({ accountId: auth.account.id });
    const sibling = await services.apiKeys.authenticate(key);
    clock.set(at(5));
    await consume(auth);
    await consume(auth);
    await refusal(consume(auth));
    expect(await consume(sibling)).toMatchObject({ limit: 2, remaining: 1 });
    expect(await consume(auth, "fetch", 3)).toMatchObject({ limit: 3, remaining: 0 });
    await refusal(consume(auth, "fetch"));
    expect(await consume(sibling, "fetch")).toMatchObject({ limit: 3, remaining: 2 });
  });

  it("per-account custom limits apply once the key is re-authenticated", async () => {
    const account = await services.accounts.create({ plan: "free" });
    const { key } = await services.apiKeys.create({ accountId: account.id });
    clock.set(at(30));
    expect((await consume(await services.apiKeys.authenticate(key))).limit).toBe(30);
    await services.accounts.setLimits(account.id, { searchRpm: 2, fetchUpm: 500 });
    const auth = await services.apiKeys.authenticate(key);
    expect(await consume(auth)).toMatchObject({ limit: 2, remaining: 0 });
    expect((await refusal(consume(auth))).headers["X-RateLimit-Limit"]).toBe("2");
    expect(await consume(auth, "fetch", 400)).toMatchObject({ limit: 500, remaining: 100 });
    await services.accounts.setLimits(account.id, { searchRpm: null });
    expect(await consume(await services.apiKeys.authenticate(key))).toMatchObject({ limit: 30, remaining: 27 });
  });

  it("admits exactly the limit out of 50 concurrent requests", async () => {
    const auth = await newAuth({ searchRpm: 20 });
    clock.set(at(1));
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        consume(auth).then(
          (d) => d.remaining,
          (err: unknown) => (err instanceof AppError ? err.code : String(err)),
        ),
      ),
    );
    const admitted = outcomes.filter((o) => typeof o === "number");
    expect(admitted).toHaveLength(20);
    expect([...admitted].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(outcomes.filter((o) => o === "RATE_LIMIT_EXCEEDED")).toHaveLength(30);
    expect(await rateLimitRepo(db.db).current(auth.keyId, "search", new Date(at(0)))).toBe(20);
  });

  it("admits exactly the limit when concurrent costs vary", async () => {
    const auth = await newAuth({ fetchUpm: 10 });
    clock.set(at(2));
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        consume(auth, "fetch", (i % 3) + 1).then(
          () => (i % 3) + 1,
          () => 0,
        ),
      ),
    );
    const used = outcomes.reduce((a, b) => a + b, 0);
    expect(used).toBeLessThanOrEqual(10);
    expect(await rateLimitRepo(db.db).current(auth.keyId, "fetch", new Date(at(0)))).toBe(used);
  });

  it.each([
    ["free", 30],
    ["payg", 30],
    ["starter", 60],
    ["pro", 120],
  ] as const)("plan %s allows %i searches per minute (spec 8)", async (plan, searchRpm) => {
    expect(PLAN_DEFINITIONS[plan].limits.searchRpm).toBe(searchRpm);
    const auth = await newAuth({ plan });
    clock.set(at(0));
    expect(await consume(auth)).toMatchObject({ limit: searchRpm, remaining: searchRpm - 1 });
    expect(await consume(auth, "fetch")).toMatchObject({ limit: PLAN_DEFINITIONS[plan].limits.fetchUpm });
  });

  it("purgeBefore deletes only windows that started before the cut-off", async () => {
    const auth = await newAuth({ searchRpm: 5 });
    const repo = rateLimitRepo(db.db);
    for (const minute of [-10, -1, 0]) {
      clock.set(at(minute * 60));
      await consume(auth);
    }
    await repo.purgeBefore(new Date(at(-60)));
    expect(await repo.current(auth.keyId, "search", new Date(at(-600)))).toBe(0);
    expect(await repo.current(auth.keyId, "search", new Date(at(-60)))).toBe(1);
    expect(await repo.current(auth.keyId, "search", new Date(at(0)))).toBe(1);
    expect(WINDOW_MS).toBe(60_000);
  });
});
