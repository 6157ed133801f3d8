import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { fundedKey } from "./run-admission-helpers.ts";

/**
 * Where the platform ends a response (AWS Lambda function URLs: 15 minutes), a blocking /run
 * answers before that with the run as it stands, and an SSE stream ends (issue [1 of 6]). The
 * cap is tiny here and no worker takes the run, so it stays PENDING.
 */
describe.each(driverCases())("response cap on $name", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let key: string;

  beforeAll(async () => {
    db = await open();
    // A real queue, a model, no worker: accepted runs stay PENDING.
    ctx = createTestContext(db.db, {
      runs: {
        responseCapMs: 300,
        queue: createPgQueue({ db: db.db }),
        model: { provider: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: null },
      },
    });
    key = (await fundedKey(ctx)).key;
  });
  afterAll(async () => {
    await db?.dispose();
  });

  const body = JSON.stringify({ url: "https://example.com/", goal: "Wait for ever" });
  const post = (path: string) =>
    ctx.app.request(path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body });

  it("a blocking /run answers at the cap with the run as it stands", async () => {
    const started = Date.now();
    const res = await post("/v1/automation/run");
    expect(res.status).toBe(200);
    const run = (await res.json()) as { run_id: string; status: string };
    expect(run.status).toBe("PENDING");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("an SSE stream ends at the cap without COMPLETE", async () => {
    const res = await post("/v1/automation/run-sse");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"type":"STARTED"');
    expect(text).not.toContain('"type":"COMPLETE"');
  });
});
