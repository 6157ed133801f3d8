import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

describe.each(driverCases())("smoke on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db);
  });
  afterAll(() => db.dispose());

  it("serves the account of a valid key", async () => {
    const { key, accountId } = await ctx.newKey({ plan: "starter" });
    const res = await ctx.call(key, "/v1/account");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const body = await res.json();
    expect(body).toMatchObject({ id: accountId, plan: "starter", limits: { search_rpm: 60 } });
  });
});
