import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, randomBase62 } from "../../functions/lib/ids.ts";
import { runToWire } from "../../functions/runs/run.wire.ts";
import { runRequestView, storedRunRequest } from "../../functions/runs/run-request.schema.ts";
import { runError } from "../../schema/runs.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/** The worker reads a run's request back through the schema that accepted it, never by a cast. */
describe("storedRunRequest", () => {
  it("parses a stored request with its defaults and types", () => {
    const req = storedRunRequest({
      id: "run_1",
      request: { url: "https://example.com/", goal: "Find the price", capture_config: { recording: true } },
    });
    expect(req.url).toBe("https://example.com/");
    expect(req.use_vault).toBe(false);
    expect(req.capture_config?.recording).toBe(true);
  });

  it("names the run and the fields when a stored request no longer matches", () => {
    expect(() => storedRunRequest({ id: "run_2", request: { url: "https://example.com/", goal: 5, extra: true } })).toThrow(
      /run run_2 .*goal/,
    );
    expect(() => storedRunRequest({ id: "run_3", request: null })).toThrow(/run run_3/);
  });
});

/** The readers (the run on the wire, the webhook, the recording route) answer for any stored row. */
describe("runRequestView", () => {
  it("reads the fields of a request that matches the schema", () => {
    expect(
      runRequestView({
        request: {
          url: "https://example.com/",
          goal: "Find the price",
          webhook_url: "https://hooks.example.com/run",
          capture_config: { recording: true, screenshots: true },
          use_vault: false,
        },
      }),
    ).toEqual({
      url: "https://example.com/",
      goal: "Find the price",
      webhookUrl: "https://hooks.example.com/run",
      recording: true,
    });
  });

  it("leaves a field that does not parse empty without losing the others", () => {
    expect(
      runRequestView({ request: { url: 42, goal: "Find the price", webhook_url: { href: "x" }, capture_config: "all" } }),
    ).toEqual({ url: "", goal: "Find the price", webhookUrl: null, recording: false });
    expect(
      runRequestView({ request: { url: "https://example.com/", webhook_url: "", capture_config: { recording: "yes" } } }),
    ).toEqual({ url: "https://example.com/", goal: "", webhookUrl: null, recording: false });
  });

  it("reads a request that is not an object at all as empty", () => {
    for (const request of [null, "https://example.com/", [1, 2], 7]) {
      expect(runRequestView({ request })).toEqual({ url: "", goal: "", webhookUrl: null, recording: false });
    }
  });

  it("renders a run whose stored request has an old shape", () => {
    const created = new Date("2026-01-02T03:04:05.000Z");
    const wire = runToWire(
      {
        id: "run_old",
        accountId: "acc_1",
        keyId: "key_1",
        keyScope: "api",
        subUserId: null,
        entry: "async",
        batchId: null,
        status: "COMPLETED",
        // An older request shape: the start page under another name, the goal as a list.
        request: { start_url: "https://example.com/", goal: ["Find", "the price"] },
        result: { price: 9 },
        error: null,
        steps: 2,
        creditsUsed: 2,
        inputTokens: 10,
        outputTokens: 5,
        attempts: 1,
        actedAt: created,
        cancelRequestedAt: null,
        liveToken: null,
        workerId: "wrk_1",
        heartbeatAt: created,
        enqueuedAt: created,
        createdAt: created,
        startedAt: created,
        finishedAt: created,
        updatedAt: created,
      },
      "http://127.0.0.1:8787",
      created,
    );
    expect(wire).toMatchObject({ run_id: "run_old", status: "COMPLETED", url: "", goal: "", result: { price: 9 } });
  });
});

describe.each(driverCases(["pglite", "pg"]))("a stored request of an odd shape on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;

  beforeAll(async () => {
    database = await open();
    ctx = createTestContext(database.db);
  });
  afterAll(() => database?.dispose());

  it("is read, recorded and finished without a 500", async () => {
    const { key, accountId, keyId } = await ctx.newKey();
    const inserted = await ctx.runRepo.insertWithinCap(
      {
        id: newId("run"),
        accountId,
        keyId,
        keyScope: "api",
        subUserId: null,
        entry: "async",
        batchId: null,
        request: { url: ["https://example.com/"], goal: "Find the price", webhook_url: 5, capture_config: null },
        liveToken: randomBase62(32),
      },
      10,
    );
    if (!inserted.ok) throw new Error("the run was not inserted");
    const id = inserted.row.id;

    const got = await ctx.call(key, `/v1/runs/${id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ run_id: id, status: "PENDING", url: "", goal: "Find the price" });
    expect((await ctx.call(key, `/v1/runs/${id}/recording`)).status).toBe(404);
    const listed = await ctx.call(key, "/v1/runs");
    expect(listed.status).toBe(200);

    // A webhook_url that is not a string sends no webhook; the run still ends.
    const done = await ctx.runs.service.finish(id, "FAILED", null, runError("TASK_FAILED", "The goal was not reached."));
    expect(done?.status).toBe("FAILED");
    expect((await ctx.call(key, `/v1/runs/${id}`)).status).toBe(200);
  });
});
