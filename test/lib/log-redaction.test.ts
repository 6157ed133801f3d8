import { createRoute } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeApp } from "../../functions/http/compose.ts";
import { createRouter } from "../../functions/http/create-router.ts";
import { errorResponses } from "../../functions/http/openapi.ts";
import { postgresCode, serializeError } from "../../functions/lib/error-fields.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import { createTestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/**
 * A failed query's parameters never reach a log line (hardening issue: they carried live-view
 * tokens and whole run requests), however the error is handed to the logger.
 */
const SECRET = "lv_tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0";

describe.each(driverCases())("database errors in logs on $driver", ({ open }) => {
  let db: TestDatabase;
  const lines: string[] = [];
  const logger = createLogger("debug", (l) => lines.push(l));
  const output = () => lines.join("");

  beforeAll(async () => {
    db = await open();
  });
  afterAll(() => db.dispose());

  const failing = async (query: ReturnType<typeof sql>): Promise<Error> => {
    try {
      await db.db.execute(query);
    } catch (err) {
      return err as Error;
    }
    throw new Error("the query was expected to fail");
  };

  it("the error itself, its message, its stack, nested or in an array: no parameter is written", async () => {
    lines.length = 0;
    const err = await failing(sql`select ${SECRET}::int, ${`{"token":"${SECRET}"}`}::jsonb`);
    // The premise: drizzle's error does carry the values.
    expect(err.message).toContain(SECRET);
    logger.error("query failed", { error: err });
    logger.error("query failed", { err: err.message, stack: err.stack });
    logger.warn("wrapped", { context: { attempts: [err], cause: new Error("outer", { cause: err }) } });
    logger.error(String(err));
    // Lines of the stack joined on one line, as a caller might: the marker no longer starts a line.
    logger.error("joined", { stack: err.stack?.split("\n").slice(1, 4).join(" | ") });
    expect(output()).not.toContain(SECRET);
    expect(output()).not.toContain("lv_tok_");
    // What is useful stays: the class, the SQLSTATE, the query text without values.
    expect(output()).toContain("DrizzleQueryError");
    expect(output()).toContain("22P02");
    expect(output()).toContain("select $1::int");
    expect(postgresCode(err)).toBe("22P02");
  });

  it("a unique violation's detail (which repeats the key value) is not written", async () => {
    lines.length = 0;
    await db.db.execute(sql`create temporary table redaction_probe (k text primary key)`);
    await db.db.execute(sql`insert into redaction_probe values (${SECRET})`);
    const err = await failing(sql`insert into redaction_probe values (${SECRET})`);
    logger.error("insert failed", { error: err });
    expect(output()).toContain("23505");
    expect(output()).not.toContain(SECRET);
    expect(JSON.stringify(serializeError(err))).not.toContain(SECRET);
  });

  it("a 500 from a route whose query failed is logged by the error handler without the values", async () => {
    lines.length = 0;
    const ctx = createTestContext(db.db);
    const { key } = await ctx.newKey();
    const app = createRouter();
    app.openapi(
      createRoute({ method: "get", path: "/v1/fail", responses: { 200: { description: "ok" }, ...errorResponses() } }),
      async (c) => {
        await db.db.execute(sql`select * from runs where live_token = ${SECRET} and steps = ${SECRET}::int`);
        return c.body(null, 200);
      },
    );
    const composed = composeApp({ ids: defaultIds, logger, apiKeys: ctx.services.apiKeys, version: "test" }, [
      { name: "agent", title: "test API", prefix: "", app, available: true },
    ]);
    const res = await composed.request("/v1/fail", { headers: { "x-api-key": key } });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain(SECRET);
    expect(output()).toMatch(/level=error msg="request failed"/);
    expect(output()).toContain("22P02");
    expect(output()).not.toContain(SECRET);
  });
});
