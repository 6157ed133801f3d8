import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import {
  acceptingContext,
  expectError,
  expectInvalid,
  fundedKey,
  type Json,
  okJson,
  sleep,
  VALID,
} from "./run-admission-helpers.ts";

/**
 * Spec 4.2, 7.1, 8: the pending-run cap (429 without Retry-After), /run-batch admission and slots,
 * GET /v1/runs (filters, pagination, key scope), GET /v1/runs/{id} of a PENDING run, and cancel.
 * Accepted runs stay PENDING: there is a queue and a model but no worker.
 */

const ASYNC = "/v1/automation/run-async";
const BATCH = "/v1/automation/run-batch";

const RUN_FIELDS = [
  "batch_id",
  "cancel_requested",
  "created_at",
  "credits_used",
  "entry",
  "error",
  "finished_at",
  "goal",
  "result",
  "run_id",
  "started_at",
  "status",
  "steps",
  "streaming_url",
  "url",
  "usage",
];

/** Spec 8: the cap's 429 names the count and the maximum and sets no rate-limit headers. */
async function expectCap(res: Response, open: number, max: number): Promise<Json> {
  const err = await expectError(res, 429, "RATE_LIMIT_EXCEEDED");
  expect(err.error.message).toContain(`${open} pending runs`);
  expect(err.error.message).toContain(`maximum its plan allows is ${max}`);
  expect(res.headers.get("retry-after")).toBeNull();
  expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  return err;
}

describe.each(driverCases(["pglite", "pg"]))("pending-run cap on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;

  beforeAll(async () => {
    database = await open();
    ctx = acceptingContext(database.db);
  });
  afterAll(() => database?.dispose());

  it("concurrent requests on the free plan (cap 2) accept exactly 2", async () => {
    const { key, accountId } = await fundedKey(ctx, { plan: "free" });
    const results = await Promise.all(Array.from({ length: 5 }, () => ctx.postJson(key, ASYNC, VALID)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    for (const r of results.filter((x) => x.status === 429)) await expectCap(r, 2, 2);
    const { rows } = await ctx.runRepo.list({ accountId, keyScope: "api" }, { limit: 100, page: 1 });
    expect(rows.length).toBe(2);
  });

  it("a third run is refused on every entry point, per account, until one ends", async () => {
    const { key, accountId } = await fundedKey(ctx, { plan: "free" });
    const a = await okJson(await ctx.postJson(key, ASYNC, VALID));
    await okJson(await ctx.postJson(key, ASYNC, VALID));
    await expectCap(await ctx.postJson(key, ASYNC, VALID), 2, 2);
    await expectCap(await ctx.postJson(key, "/v1/automation/run", VALID), 2, 2);
    await expectCap(await ctx.postJson(key, "/v1/automation/run-sse", VALID), 2, 2);
    await expectCap(await ctx.postJson(key, BATCH, { runs: [VALID, VALID] }), 2, 2);
    // Per account, not per key: a second key of the same account is refused too …
    const second = await ctx.services.apiKeys.create({ accountId });
    await expectCap(await ctx.postJson(second.key, ASYNC, VALID), 2, 2);
    // … while another free account is not.
    const other = await fundedKey(ctx, { plan: "free" });
    expect((await okJson(await ctx.postJson(other.key, ASYNC, VALID))).status).toBe("PENDING");
    // A cancelled run no longer counts.
    expect((await okJson(await ctx.call(key, `/v1/runs/${a.run_id}/cancel`, { method: "POST" }))).status).toBe("CANCELLED");
    expect((await okJson(await ctx.postJson(second.key, ASYNC, VALID))).status).toBe("PENDING");
    await expectCap(await ctx.postJson(key, ASYNC, VALID), 2, 2);
  });
});

describe.each(driverCases(["pglite"]))("batches, listing, get and cancel on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;

  beforeAll(async () => {
    database = await open();
    ctx = acceptingContext(database.db);
  });
  afterAll(() => database?.dispose());

  const list = async (key: string, query = "") => okJson(await ctx.call(key, `/v1/runs${query}`));

  describe("POST /v1/automation/run-batch", () => {
    it.each([
      { name: "0 runs", runs: [] as unknown[] },
      { name: "26 runs", runs: Array.from({ length: 26 }, () => VALID) },
    ])("$name → 400 at runs", async ({ runs }) => {
      const { key } = await fundedKey(ctx);
      await expectInvalid(await ctx.postJson(key, BATCH, { runs }), ["runs"]);
    });

    it("a bad child → 400 with details path [runs, i, field], nothing created", async () => {
      const { key } = await fundedKey(ctx);
      const body = { runs: [VALID, VALID, { ...VALID, browser_profile: "fast" }, { ...VALID, goal: "" }] };
      const err = await expectInvalid(await ctx.postJson(key, BATCH, body), ["runs", 2, "browser_profile"]);
      expect(err.error.details.map((d: Json) => d.path)).toContainEqual(["runs", 3, "goal"]);
      expect((await list(key)).total).toBe(0);
    });

    it("a child's unsupported output_schema → 400 with details under [runs, i, output_schema]", async () => {
      const { key } = await fundedKey(ctx, { plan: "pro" });
      const bad = { type: "object", properties: { a: { $ref: "#/x" } } };
      const body = { runs: [VALID, { ...VALID, output_schema: bad }] };
      const err = await expectInvalid(await ctx.postJson(key, BATCH, body), [
        "runs",
        1,
        "output_schema",
        "properties",
        "a",
        "$ref",
      ]);
      expect(err.error.message).toContain("runs.1.output_schema");
      expect((await list(key)).total).toBe(0);
    });

    it("a child's 400 wins over another child's 403", async () => {
      const { key } = await fundedKey(ctx, { plan: "free" });
      const bad = { type: "object", oneOf: [] };
      const body = {
        runs: [
          { ...VALID, capture_config: { html: true } },
          { ...VALID, output_schema: bad },
        ],
      };
      await expectInvalid(await ctx.postJson(key, BATCH, body), ["runs", 1, "output_schema", "oneOf"]);
      expect((await list(key)).total).toBe(0);
    });

    it("a child's use_profile without a default profile → 400 at [runs, i, use_profile]", async () => {
      const { key } = await fundedKey(ctx, { plan: "pro" });
      const body = { runs: [VALID, VALID, { ...VALID, use_profile: true }] };
      await expectInvalid(await ctx.postJson(key, BATCH, body), ["runs", 2, "use_profile"]);
      expect((await list(key)).total).toBe(0);
    });

    it("a body that is not {runs: [...]} → 400", async () => {
      const { key } = await fundedKey(ctx);
      await expectInvalid(await ctx.postJson(key, BATCH, [VALID]), []);
      await expectInvalid(await ctx.postJson(key, BATCH, VALID), ["runs"]);
      await expectInvalid(await ctx.postJson(key, BATCH, { runs: [VALID], extra: 1 }), []);
    });

    it("a child lacking a capability → 403 for the whole batch, no run created", async () => {
      const { key } = await fundedKey(ctx, { plan: "free" });
      const body = { runs: [VALID, { ...VALID, capture_config: { html: true } }] };
      const err = await expectError(await ctx.postJson(key, BATCH, body), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/capture_html/);
      expect(err.error.message).toContain("runs.1");
      expect((await list(key)).total).toBe(0);
      const vault = { runs: [VALID, { ...VALID, use_vault: true, credential_item_ids: ["cred:vc_x:Personal:it_x"] }] };
      const bad = await expectError(await ctx.postJson(key, BATCH, vault), 400, "INVALID_INPUT");
      expect(bad.error.details.map((d: Json) => d.path)).toEqual([["runs", 1, "credential_item_ids", 0]]);
      expect(bad.error.message).toContain("body.runs.1.credential_item_ids.0");
      expect((await list(key)).total).toBe(0);
    });

    it("with room for some, the rest are refused in their slots", async () => {
      const { key } = await fundedKey(ctx, { plan: "free" });
      await okJson(await ctx.postJson(key, ASYNC, VALID));
      const res = await okJson(await ctx.postJson(key, BATCH, { runs: [VALID, VALID, VALID] }));
      expect(res).toMatchObject({ accepted: 1, rejected: 2 });
      expect(res.batch_id).toMatch(/^batch_/);
      expect(res.runs).toHaveLength(3);
      expect(res.runs[0]).toEqual({ index: 0, run_id: expect.stringMatching(/^run_/), status: "PENDING" });
      for (const i of [1, 2]) {
        expect(res.runs[i]).toMatchObject({ index: i, run_id: null, error: { code: "RATE_LIMIT_EXCEEDED" } });
        expect(res.runs[i].error.message).toContain("2 pending runs");
        expect(res.runs[i].error.message).toContain("is 2");
      }
      const got = await list(key, `?batch_id=${res.batch_id}`);
      expect(got.items.map((r: Json) => r.run_id)).toEqual([res.runs[0].run_id]);
    });

    it("with no room at all → 429 and no run created", async () => {
      const { key } = await fundedKey(ctx, { plan: "free" });
      await okJson(await ctx.postJson(key, ASYNC, VALID));
      await okJson(await ctx.postJson(key, ASYNC, VALID));
      await expectCap(await ctx.postJson(key, BATCH, { runs: [VALID] }), 2, 2);
      expect((await list(key)).total).toBe(2);
    });

    it("batch_id lists exactly the batch's runs, entry batch", async () => {
      const { key } = await fundedKey(ctx, { plan: "pro" });
      await okJson(await ctx.postJson(key, ASYNC, VALID));
      const goals = ["one", "two", "three"].map((g) => ({ ...VALID, goal: g }));
      const res = await okJson(await ctx.postJson(key, BATCH, { runs: goals }));
      expect(res).toMatchObject({ accepted: 3, rejected: 0 });
      await okJson(await ctx.postJson(key, BATCH, { runs: [VALID] }));
      const got = await list(key, `?batch_id=${res.batch_id}`);
      expect(got.total).toBe(3);
      expect(got.items.map((r: Json) => r.run_id).sort()).toEqual(res.runs.map((s: Json) => s.run_id).sort());
      for (const r of got.items) expect(r).toMatchObject({ entry: "batch", batch_id: res.batch_id, status: "PENDING" });
      expect(got.items.map((r: Json) => r.goal).sort()).toEqual(["one", "three", "two"]);
      // A batch child is cancellable.
      const c = await okJson(await ctx.call(key, `/v1/runs/${res.runs[0].run_id}/cancel`, { method: "POST" }));
      expect(c.status).toBe("CANCELLED");
    });
  });

  describe("GET /v1/runs", () => {
    let key: string;
    let accountId: string;
    let made: Json[];

    beforeAll(async () => {
      ({ key, accountId } = await fundedKey(ctx, { plan: "pro" }));
      made = [];
      for (const goal of ["first", "second", "third"]) {
        made.push(await okJson(await ctx.postJson(key, ASYNC, { ...VALID, goal })));
        await sleep(15);
      }
      await okJson(await ctx.call(key, `/v1/runs/${made[0]?.run_id}/cancel`, { method: "POST" }));
    });

    const ids = (page: Json) => page.items.map((r: Json) => r.run_id);

    it("lists newest first with the shared pagination", async () => {
      const all = await list(key);
      expect(ids(all)).toEqual([made[2]?.run_id, made[1]?.run_id, made[0]?.run_id]);
      expect(all).toMatchObject({ total: 3, limit: 100, page: 1, total_pages: 1, has_more: false });
      const p1 = await list(key, "?limit=2");
      expect(ids(p1)).toEqual([made[2]?.run_id, made[1]?.run_id]);
      expect(p1).toMatchObject({ total: 3, limit: 2, page: 1, total_pages: 2, has_more: true });
      const p2 = await list(key, "?limit=2&page=2");
      expect(ids(p2)).toEqual([made[0]?.run_id]);
      expect(p2).toMatchObject({ total: 3, limit: 2, page: 2, total_pages: 2, has_more: false });
      const p9 = await list(key, "?limit=2&page=9");
      expect(p9).toMatchObject({ items: [], total: 3, has_more: false });
      for (const r of all.items) expect(Object.keys(r).sort()).toEqual(RUN_FIELDS);
    });

    it("filters by status", async () => {
      expect(ids(await list(key, "?status=CANCELLED"))).toEqual([made[0]?.run_id]);
      expect(ids(await list(key, "?status=PENDING"))).toEqual([made[2]?.run_id, made[1]?.run_id]);
      expect((await list(key, "?status=COMPLETED")).total).toBe(0);
    });

    it("filters by created_after (inclusive) and created_before (exclusive)", async () => {
      const at = encodeURIComponent(made[1]?.created_at);
      expect(ids(await list(key, `?created_after=${at}`))).toEqual([made[2]?.run_id, made[1]?.run_id]);
      expect(ids(await list(key, `?created_before=${at}`))).toEqual([made[0]?.run_id]);
      const later = encodeURIComponent(new Date(Date.parse(made[2]?.created_at) + 60_000).toISOString());
      expect((await list(key, `?created_after=${later}`)).total).toBe(0);
      expect((await list(key, `?created_after=${at}&created_before=${later}&status=PENDING`)).total).toBe(2);
      expect((await list(key, "?created_after=2020-01-01T00:00:00%2B02:00")).total).toBe(3);
    });

    it.each([
      { query: "?limit=0", path: ["limit"] },
      { query: "?limit=1001", path: ["limit"] },
      { query: "?limit=x", path: ["limit"] },
      { query: "?page=0", path: ["page"] },
      { query: "?status=DONE", path: ["status"] },
      { query: "?status=pending", path: ["status"] },
      { query: "?created_after=yesterday", path: ["created_after"] },
      { query: "?created_before=2026-13-01", path: ["created_before"] },
      { query: "?created_before=2026-02-30", path: ["created_before"] },
      { query: "?created_before=2026-02-29", path: ["created_before"] },
      { query: "?created_after=2026-02-29T10:00:00Z", path: ["created_after"] },
      { query: "?created_after=2026-06-31T00:00:00%2B02:00", path: ["created_after"] },
    ])("$query → 400", async ({ query, path }) => {
      const err = await expectInvalid(await ctx.call(key, `/v1/runs${query}`), path);
      expect(err.error.details[0].location).toBe("query");
    });

    it("shows only the caller's account and key scope", async () => {
      const mcp = await ctx.services.apiKeys.create({ accountId, scope: "mcp" });
      expect(await list(mcp.key)).toMatchObject({ items: [], total: 0 });
      await expectError(await ctx.call(mcp.key, `/v1/runs/${made[1]?.run_id}`), 404, "NOT_FOUND");
      await expectError(await ctx.call(mcp.key, `/v1/runs/${made[1]?.run_id}/cancel`, { method: "POST" }), 404, "NOT_FOUND");
      // A second api-scope key of the same account sees the account's runs.
      const sibling = await ctx.services.apiKeys.create({ accountId });
      expect((await list(sibling.key)).total).toBe(3);
      const stranger = await fundedKey(ctx);
      expect((await list(stranger.key)).total).toBe(0);
      await expectError(await ctx.call(stranger.key, `/v1/runs/${made[1]?.run_id}`), 404, "NOT_FOUND");
    });
  });

  describe("GET /v1/runs/{id} and cancel", () => {
    it("unknown id → 404; ?screenshots=jpeg → 400", async () => {
      const { key } = await fundedKey(ctx);
      const err = await expectError(await ctx.call(key, "/v1/runs/run_doesnotexist"), 404, "NOT_FOUND");
      expect(err.error.message).toContain("run_doesnotexist");
      const run = await okJson(await ctx.postJson(key, ASYNC, VALID));
      await expectInvalid(await ctx.call(key, `/v1/runs/${run.run_id}?screenshots=jpeg`), ["screenshots"]);
      const withShots = await okJson(await ctx.call(key, `/v1/runs/${run.run_id}?screenshots=base64`));
      expect(withShots.screenshots).toEqual([]);
    });

    it("a PENDING run has every documented field", async () => {
      const { key } = await fundedKey(ctx);
      const accepted = await okJson(await ctx.postJson(key, ASYNC, VALID));
      const run = await okJson(await ctx.call(key, `/v1/runs/${accepted.run_id}`));
      expect(Object.keys(run).sort()).toEqual(RUN_FIELDS);
      expect(run).toEqual({
        run_id: expect.stringMatching(/^run_/),
        status: "PENDING",
        result: null,
        error: null,
        url: VALID.url,
        goal: VALID.goal,
        entry: "async",
        batch_id: null,
        created_at: expect.any(String),
        started_at: null,
        finished_at: null,
        steps: 0,
        credits_used: 0,
        usage: { input_tokens: 0, output_tokens: 0 },
        streaming_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/v1\/live\/[A-Za-z0-9]{32}$/),
        cancel_requested: false,
      });
      expect(new Date(run.created_at).toISOString()).toBe(run.created_at);
      expect(accepted).toEqual(run);
    });

    it("cancel of a PENDING async run → CANCELLED at once, idempotent; unknown id → 404", async () => {
      const { key } = await fundedKey(ctx);
      const accepted = await okJson(await ctx.postJson(key, ASYNC, VALID));
      const t0 = Date.now();
      const cancelled = await okJson(await ctx.call(key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" }));
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(cancelled).toMatchObject({ run_id: accepted.run_id, status: "CANCELLED", result: null, cancel_requested: true });
      expect(cancelled.error).toMatchObject({ code: "CANCELLED", category: null, retry_after: null });
      expect(cancelled.error.message).toEqual(expect.any(String));
      expect(cancelled.finished_at).toEqual(expect.any(String));
      const got = await okJson(await ctx.call(key, `/v1/runs/${accepted.run_id}`));
      expect(got).toEqual(cancelled);
      const again = await okJson(await ctx.call(key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" }));
      expect(again).toEqual(cancelled);
      await expectError(await ctx.call(key, "/v1/runs/run_nope/cancel", { method: "POST" }), 404, "NOT_FOUND");
    });

    it("a run created through /run is not cancellable: 400", async () => {
      const { key } = await fundedKey(ctx);
      const auth = await ctx.services.apiKeys.authenticate(key);
      const row = await ctx.runs.service.create(auth, { ...VALID, use_vault: false }, "run");
      await expectInvalid(await ctx.call(key, `/v1/runs/${row.id}/cancel`, { method: "POST" }), ["id"]);
      expect((await okJson(await ctx.call(key, `/v1/runs/${row.id}`))).status).toBe("PENDING");
    });

    it("an id over 100 characters → 400", async () => {
      const { key } = await fundedKey(ctx);
      await expectInvalid(await ctx.call(key, `/v1/runs/run_${"x".repeat(100)}`), ["id"]);
    });
  });
});
