import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysCommand } from "../../containers/cli/commands/keys.ts";
import { ensureFirstAccount, FIRST_ACCOUNT_CREDITS } from "../../functions/services/bootstrap.service.ts";
import { PLAN_DEFINITIONS, PLANS } from "../../schema/plans.ts";
import type { TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { acceptingContext, expectError, type Json, VALID } from "../runs/run-admission-helpers.ts";

/**
 * A new account on a self-hosted server can run at once (README, "Accounts and keys"): `osprey keys
 * create --plan P` opens it with the plan's monthlyCredits (or `--credits N`), and the first start
 * opens its account with FIRST_ACCOUNT_CREDITS. Runs stay PENDING (no worker) and are cancelled.
 */

const ASYNC = "/v1/automation/run-async";

describe.each(driverCases(["pglite"]))("a new account's first run on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;

  beforeAll(async () => {
    database = await open();
    ctx = acceptingContext(database.db);
  });
  afterAll(() => database?.dispose());

  /** `osprey keys create <args> --json`, in process against this test's database. */
  async function cliCreate(...args: string[]): Promise<Json> {
    const lines: string[] = [];
    await keysCommand(ctx.services, ["create", ...args, "--json"], (l) => lines.push(l));
    return JSON.parse(lines.join("\n")) as Json;
  }

  async function runOnce(key: string): Promise<Response> {
    const res = await ctx.postJson(key, ASYNC, VALID);
    if (res.status === 200) {
      const run = (await res.clone().json()) as Json;
      await ctx.call(key, `/v1/runs/${run.run_id}/cancel`, { method: "POST" });
    }
    return res;
  }

  it.each(PLANS)("keys create --plan %s starts with the plan's credits and is admitted", async (plan) => {
    const created = await cliCreate("--plan", plan);
    expect(PLAN_DEFINITIONS[plan].monthlyCredits).toBeGreaterThan(0);
    expect(created.credit_balance).toBe(PLAN_DEFINITIONS[plan].monthlyCredits);
    expect((await ctx.services.accounts.get(created.account_id)).creditBalance).toBe(PLAN_DEFINITIONS[plan].monthlyCredits);
    const res = await runOnce(created.key);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("keys create --credits N sets the balance; --credits 0 is refused 403 naming credits", async () => {
    const some = await cliCreate("--plan", "free", "--credits", "7");
    expect(some.credit_balance).toBe(7);
    expect((await runOnce(some.key)).status).toBe(200);

    const none = await cliCreate("--credits", "0");
    expect(none.credit_balance).toBe(0);
    const err = await expectError(await runOnce(none.key), 403, "FORBIDDEN");
    expect(err.error.message).toMatch(/credits/);
  });

  it("keys create refuses a negative --credits and --credits with --account", async () => {
    await expect(cliCreate("--credits", "-1")).rejects.toThrow(/--credits/);
    const a = await cliCreate();
    await expect(cliCreate("--account", a.account_id, "--credits", "5")).rejects.toThrow(/--credits/);
  });

  it("the service opens an account with the credits it is given, and refuses a negative figure", async () => {
    const account = await ctx.services.accounts.create({ plan: "starter", credits: PLAN_DEFINITIONS.starter.monthlyCredits });
    expect(account.creditBalance).toBe(PLAN_DEFINITIONS.starter.monthlyCredits);
    const { key } = await ctx.services.apiKeys.create({ accountId: account.id });
    expect((await runOnce(key)).status).toBe(200);
    await expect(ctx.services.accounts.create({ plan: "free", credits: -1 })).rejects.toThrow(/non-negative/);
  });

  it("the first start's account is funded and admitted (in a database with no account)", async () => {
    const fresh = await open();
    try {
      const c = acceptingContext(fresh.db);
      const first = await ensureFirstAccount(c.services);
      expect(first?.account.creditBalance).toBe(FIRST_ACCOUNT_CREDITS);
      const res = await c.postJson(first?.key ?? "", ASYNC, VALID);
      expect(res.status, await res.clone().text()).toBe(200);
    } finally {
      await fresh.dispose();
    }
  });
});
