import { createRoute } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeApp, type Surface } from "../../functions/http/compose.ts";
import { createRouter } from "../../functions/http/create-router.ts";
import { errorResponses } from "../../functions/http/openapi.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { deepJson } from "../helpers/fuzz-inputs.ts";

/**
 * Text Postgres cannot store (NUL, unpaired surrogates, percent-encoded bytes that are not UTF-8)
 * is 400 INVALID_INPUT naming the field on every surface, never a 500 (hardening issue); and a
 * Postgres "cannot store this character" error that gets past the check is a 400 as well.
 */

interface Detail {
  code: string;
  path: (string | number)[];
  message: string;
  location?: string;
}

async function expectInvalid(res: Response, location: string | undefined, path: (string | number)[]) {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  const body = JSON.parse(text) as { error: { code: string; message: string; details: Detail[] }; request_id: string };
  expect(body.error.code).toBe("INVALID_INPUT");
  expect(body.request_id).toBe(res.headers.get("x-request-id"));
  expect(body.error.details[0]).toMatchObject({ code: expect.any(String), message: expect.any(String), path });
  expect(body.error.details[0]?.location).toBe(location);
  return body;
}

const RUN = { url: "https://127.0.0.1:9/", goal: "read the page" };

describe.each(driverCases())("storable text on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let key: string;
  const lines: string[] = [];

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db, { fetch: { resolver: async () => [{ address: "127.0.0.1", family: 4 }] } });
    key = (await ctx.newKey()).key;
  });
  afterAll(() => db.dispose());

  describe("path and query", () => {
    it.each([
      { url: "/v1/runs/%00", location: "path", path: ["id"] },
      { url: "/v1/runs/run_a%00b/steps", location: "path", path: ["id"] },
      { url: "/v1/runs/run_a%ED%A0%80/steps/1/html", location: "path", path: ["id"] },
      { url: "/v1/runs/run_a/steps/%00/screenshot", location: "path", path: ["step"] },
      { url: "/v1/runs?batch_id=a%00b", location: "query", path: ["batch_id"] },
      { url: "/v1/runs?batch_id=%ED%A0%80", location: "query", path: ["batch_id"] },
      { url: "/v1/runs?status=%FF", location: "query", path: ["status"] },
      { url: "/v1/api-keys?limit=1&%00=1", location: "query", path: ["%00"] },
      { url: "/search?query=a%00b", location: "query", path: ["query"] },
      { url: "/search/usage?created_after=%00", location: "query", path: ["created_after"] },
      { url: "/fetch/usage?status=%ED%BF%BF", location: "query", path: ["status"] },
      { url: "/browser/x/%00", location: "path", path: [2] },
    ])("$url → 400 naming the $location field", async ({ url, location, path }) => {
      await expectInvalid(await ctx.call(key, url), location, path);
    });

    it("a live-view token (no API key) with NUL is 400 too", async () => {
      await expectInvalid(await ctx.app.request("/v1/live/%00/state"), "path", ["token"]);
    });

    it("leaves valid unicode and percent signs that encode nothing alone", async () => {
      expect((await ctx.call(key, "/search?query=caf%C3%A9%20%F0%9F%A6%85")).status).toBe(200);
      expect((await ctx.call(key, "/v1/runs/run_%zz")).status).toBe(404);
      expect((await ctx.call(key, "/v1/runs?batch_id=100%")).status).toBe(200);
    });
  });

  describe("JSON bodies", () => {
    it.each([
      { name: "NUL in goal", path: "/v1/automation/run-async", body: { ...RUN, goal: "a\u0000b" }, at: ["goal"] },
      {
        name: "lone surrogate in api_integration",
        path: "/v1/automation/run",
        body: { ...RUN, api_integration: "z\ud800" },
        at: ["api_integration"],
      },
      {
        name: "NUL deep in a batch",
        path: "/v1/automation/run-batch",
        body: { runs: [RUN, { ...RUN, goal: "\u0000" }] },
        at: ["runs", 1, "goal"],
      },
      {
        name: "NUL in an object key",
        path: "/v1/automation/run-sse",
        body: { ...RUN, output_schema: { "a\u0000": 1 } },
        at: ["output_schema"],
      },
      {
        name: "lone low surrogate in a fetch URL",
        path: "/fetch",
        body: { urls: ["http://127.0.0.1:9/\udc00"] },
        at: ["urls", 0],
      },
    ])("$name → 400 naming the body field", async ({ path, body, at }) => {
      const res = await ctx.postJson(key, path, body);
      const err = await expectInvalid(res, "body", at);
      expect(err.error.message).toContain(`body.${at.join(".")}`);
    });

    it("a body that is not UTF-8 is 400", async () => {
      const bytes = new Uint8Array([
        ...new TextEncoder().encode('{"goal":"a'),
        0xed,
        0xa0,
        0x80,
        ...new TextEncoder().encode('"}'),
      ]);
      const res = await ctx.call(key, "/v1/automation/run-async", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bytes,
      });
      const err = await expectInvalid(res, "body", []);
      expect(err.error.message).toMatch(/UTF-8/);
    });

    it("10,000 levels of nesting are an ordinary 400, not a stack overflow", async () => {
      const body = `{"url":"https://127.0.0.1:9/","goal":"g","agent_config":${deepJson(10_000, "object")}}`;
      const res = await ctx.call(key, "/v1/automation/run-async", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(res.status).toBe(400);
    });

    it("valid text passes on to the route (here: no model configured, 403)", async () => {
      const res = await ctx.postJson(key, "/v1/automation/run-async", { ...RUN, goal: "prix 💶 — 中文 \u00e9" });
      expect(res.status).toBe(403);
    });
  });

  it("odd bytes in X-API-Key and X-Request-ID are a 401, not a 500", async () => {
    const res = await ctx.app.request("/v1/account", {
      headers: { "x-api-key": "osk_\u00ff\u00fe\u00e9", "x-request-id": "\u00ff" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]+$/);
  });

  describe("the last line of defence", () => {
    // Text the handler makes itself never passes the middleware: the database refuses it.
    function storingSurface(): Surface {
      const app = createRouter();
      app.openapi(
        createRoute({ method: "get", path: "/v1/store", responses: { 200: { description: "ok" }, ...errorResponses(400) } }),
        async (c) => {
          await db.db.execute(sql`select ${"sk_live_secret\u0000"}::text`);
          return c.body(null, 200);
        },
      );
      return { name: "agent", title: "test API", prefix: "", app, available: true };
    }

    it("a Postgres 22021 that escapes the check is 400 INVALID_INPUT, logged without the value", async () => {
      const logger = createLogger("debug", (l) => lines.push(l));
      const app = composeApp({ ids: defaultIds, logger, apiKeys: ctx.services.apiKeys, version: "test" }, [storingSurface()]);
      const res = await app.request("/v1/store", { headers: { "x-api-key": key } });
      const body = await expectInvalid(res, undefined, []);
      expect(body.error.details[0]).not.toHaveProperty("location");
      expect(lines.join("")).toMatch(/level=warn .*unstorable text/);
      expect(lines.join("")).toMatch(/22021|22P05/);
      expect(lines.join("")).not.toContain("sk_live_secret");
    });
  });
});
