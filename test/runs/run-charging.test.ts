import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, randomBase62 } from "../../functions/lib/ids.ts";
import { type RunRepo, runRepo } from "../../functions/runs/run.repo.ts";
import { CREDITS_PER_STEP } from "../../schema/runs.ts";
import { accounts, runSteps, runs } from "../../schema/tables/index.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/**
 * Per-step charging is keyed by (run, step): a second driver of the same run (a redelivery after
 * the first worker's lease lapsed, a crash-recovery retry) never charges a step twice, and a worker
 * that lost the run writes nothing (no charge, no step, no terminal status).
 */

describe.each(driverCases(["pglite"]))("run charging on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;
  let repo: RunRepo;

  beforeAll(async () => {
    database = await open();
    ctx = createTestContext(database.db);
    repo = runRepo(database.db);
  });
  afterAll(() => database?.dispose());

  async function newRun(credits = 100): Promise<{ runId: string; accountId: string }> {
    const k = await ctx.newKey();
    await ctx.services.accounts.addCredits(k.accountId, credits);
    const inserted = await repo.insertWithinCap(
      {
        id: newId("run"),
        accountId: k.accountId,
        keyId: k.keyId,
        keyScope: "api",
        subUserId: null,
        entry: "async",
        batchId: null,
        request: { url: "https://example.com/", goal: "x" },
        liveToken: randomBase62(32),
      },
      10,
    );
    if (!inserted.ok) throw new Error("not inserted");
    return { runId: inserted.row.id, accountId: k.accountId };
  }
  const balance = async (accountId: string) =>
    (await database.db.select().from(accounts).where(eq(accounts.id, accountId)))[0]?.creditBalance;
  /** The owner's heartbeat is made stale, as if its event loop had been held past the lease. */
  const stall = (runId: string) =>
    database.db.update(runs).set({ heartbeatAt: sql`now() - interval '1 hour'` }).where(eq(runs.id, runId));
  const step = (runId: string, n: number) => ({
    runId,
    step: n,
    purpose: `step ${n}`,
    action: { name: "scroll", args: {} },
    ok: true,
    message: "",
    url: "https://example.com/",
  });
  const usage = { inputTokens: 10, outputTokens: 1 };

  it("charges a step once, however often it is charged", async () => {
    const { runId, accountId } = await newRun();
    expect(await repo.start(runId, "wrk_a", 30_000)).not.toBeNull();
    expect(await repo.chargeStep(runId, "wrk_a", 1, CREDITS_PER_STEP)).toBe("charged");
    expect(await repo.chargeStep(runId, "wrk_a", 1, CREDITS_PER_STEP)).toBe("already");
    expect(await repo.chargeStep(runId, "wrk_a", 2, CREDITS_PER_STEP)).toBe("charged");
    expect(await balance(accountId)).toBe(100 - 2 * CREDITS_PER_STEP);
    expect((await repo.get(runId))?.creditsUsed).toBe(2 * CREDITS_PER_STEP);
  });

  it("a second driver of the same run does not charge the steps the first one paid for; the first one stops writing", async () => {
    const { runId, accountId } = await newRun();
    await repo.start(runId, "wrk_a", 30_000);
    for (const n of [1, 2]) {
      expect(await repo.addStep(step(runId, n), usage, "wrk_a")).toBe(true);
      expect(await repo.chargeStep(runId, "wrk_a", n, CREDITS_PER_STEP)).toBe("charged");
    }
    // wrk_a's lease lapses (its event loop was held); the redelivered run is taken by wrk_b.
    await stall(runId);
    expect(await repo.start(runId, "wrk_b", 30_000)).not.toBeNull();
    // wrk_b drives the run again from step 1: steps 1 and 2 are paid for already, step 3 is new.
    expect(await repo.chargeStep(runId, "wrk_b", 1, CREDITS_PER_STEP)).toBe("already");
    expect(await repo.chargeStep(runId, "wrk_b", 2, CREDITS_PER_STEP)).toBe("already");
    expect(await repo.chargeStep(runId, "wrk_b", 3, CREDITS_PER_STEP)).toBe("charged");
    // wrk_a wakes up: every write it tries is refused, and it is told it lost the run.
    expect(await repo.chargeStep(runId, "wrk_a", 3, CREDITS_PER_STEP)).toBe("lost");
    expect(await repo.chargeStep(runId, "wrk_a", 4, CREDITS_PER_STEP)).toBe("lost");
    expect(await repo.addStep(step(runId, 4), usage, "wrk_a")).toBe(false);
    expect(await repo.markActed(runId, "wrk_a")).toBe(false);
    const finished = await ctx.runs.service.finish(runId, "COMPLETED", { by: "wrk_a" }, null, "wrk_a");
    expect(finished).toBeNull();
    expect(await balance(accountId)).toBe(100 - 3 * CREDITS_PER_STEP);
    const row = await repo.get(runId);
    expect(row).toMatchObject({ status: "RUNNING", workerId: "wrk_b", creditsUsed: 3 * CREDITS_PER_STEP, actedAt: null });
    const steps = await database.db.select().from(runSteps).where(eq(runSteps.runId, runId));
    expect(steps.map((s) => s.step).sort()).toEqual([1, 2]);
    // The owner ends it.
    expect(await ctx.runs.service.finish(runId, "COMPLETED", { by: "wrk_b" }, null, "wrk_b")).toMatchObject({
      status: "COMPLETED",
      result: { by: "wrk_b" },
    });
  });

  it("a short balance takes nothing and says so", async () => {
    const { runId, accountId } = await newRun(1);
    await repo.start(runId, "wrk_a", 30_000);
    expect(await repo.chargeStep(runId, "wrk_a", 1, 1)).toBe("charged");
    expect(await repo.chargeStep(runId, "wrk_a", 2, 1)).toBe("short");
    expect(await balance(accountId)).toBe(0);
    expect((await repo.get(runId))?.creditsUsed).toBe(1);
  });
});
