import { createRoute, z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeApp } from "../../functions/http/compose.ts";
import { createRouter } from "../../functions/http/create-router.ts";
import { rateLimit } from "../../functions/http/middleware/rate-limit.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

// The rate-limit middleware as a later surface (search) will use it, on a test-only route.
describe.each(driverCases())("rate-limit middleware on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let request: (key: string) => Promise<Response>;

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db);
    const surface = createRouter();
    surface.openapi(
      createRoute({
        method: "get",
        path: "/",
        middleware: [rateLimit(ctx.services.rateLimits, "search")],
        responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } } },
      }),
      (c) => c.json({ ok: true }, 200),
    );
    const app = composeApp({ ids: defaultIds, logger: silentLogger, apiKeys: ctx.services.apiKeys, version: "test" }, [
      { name: "search", title: "search API", prefix: "/search", app: surface, available: true },
    ]);
    request = async (key) => app.request("/search", { headers: { "x-api-key": key } });
  });
  afterAll(() => db.dispose());

  it("admits the plan's requests per minute, then answers 429 with Retry-After and X-RateLimit-Limit", async () => {
    ctx.clock.set("2026-11-21T10:00:15.000Z");
    const { key } = await ctx.newKey({ plan: "free" }); // search: 30 per minute (spec 8)
    for (let i = 1; i <= 30; i++) {
      const ok = await request(key);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("x-ratelimit-limit")).toBe("30");
      expect(ok.headers.get("x-ratelimit-remaining")).toBe(String(30 - i));
    }
    const refused = await request(key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("45");
    expect(refused.headers.get("x-ratelimit-limit")).toBe("30");
    const body = (await refused.json()) as { error: { code: string; message: string }; request_id: string };
    expect(body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(body.request_id).toBe(refused.headers.get("x-request-id"));

    ctx.clock.set("2026-11-21T10:01:00.000Z");
    expect((await request(key)).status).toBe(200);
  });

  it("applies an operator's custom limit to the account", async () => {
    ctx.clock.set("2026-11-21T11:00:00.000Z");
    const { key, accountId } = await ctx.newKey({ plan: "pro" });
    await ctx.services.accounts.setLimits(accountId, { searchRpm: 2 });
    expect((await request(key)).status).toBe(200);
    expect((await request(key)).status).toBe(200);
    const refused = await request(key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("2");
  });

  it("counts per key: another key of the same account has its own window", async () => {
    ctx.clock.set("2026-11-21T12:00:00.000Z");
    const first = await ctx.newKey({ plan: "pro" });
    await ctx.services.accounts.setLimits(first.accountId, { searchRpm: 1 });
    const second = await ctx.services.apiKeys.create({ accountId: first.accountId });
    expect((await request(first.key)).status).toBe(200);
    expect((await request(first.key)).status).toBe(429);
    expect((await request(second.key)).status).toBe(200);
  });
});
