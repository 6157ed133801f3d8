import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import type { Database } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import type { RunRow } from "../../functions/runs/run.repo.ts";
import { call, idx, type ScriptStep, sequence } from "../agent/loop/harness.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { type AgentFixtureSite, LOGIN, startFixtureSite } from "../helpers/fixture-site.ts";
import { killChildren, type RunningWorker, startWorkerProcess, tempDir } from "../helpers/process.ts";
import { type Json, loginSteps } from "../helpers/run-harness.ts";
import type { ScriptedModel } from "../helpers/scripted-model.ts";
import { startScriptedModel } from "../helpers/scripted-model.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Part B: a worker process killed with SIGKILL mid-run never leaves its run non-terminal. The run
 * is retried when it had not acted on the page yet, and ends FAILED with a SYSTEM_FAILURE error
 * when it had, within the lease time. Two processes share one Postgres database (PGlite cannot be
 * shared), so this needs TEST_DATABASE_URL.
 */

const LEASE_SECONDS = 3;

const port = (url: string) => new URL(url).port;

describe.skipIf(!TEST_DATABASE_URL || !isExecutable(CHROME))("crash recovery: kill -9 of a worker mid-run", () => {
  let pg: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let database: Database;
  let ctx: TestContext;
  let site: AgentFixtureSite;
  let model: ScriptedModel;
  let env: Record<string, string>;
  let dataDir: ReturnType<typeof tempDir>;
  let key: string;
  const workers: RunningWorker[] = [];

  beforeAll(async () => {
    pg = await createPostgresDatabase({ fromTemplate: true });
    database = await openDatabase({ driver: "pg", url: pg.url });
    [site, model] = await Promise.all([startFixtureSite(), startScriptedModel([])]);
    const modelConfig = { provider: "openai" as const, baseUrl: model.openaiBaseUrl, model: "scripted-1", apiKey: model.apiKey };
    const allowPrivateHosts = [site.url, site.origin2Url].map((u) => ({ host: "127.0.0.1", port: Number(port(u)) }));
    ctx = createTestContext(database.db, {
      runs: { queue: createPgQueue({ db: database.db, pollIntervalMs: 50 }), model: modelConfig, allowPrivateHosts },
    });
    dataDir = tempDir();
    env = {
      DATABASE_URL: pg.url,
      OSPREY_DATA_DIR: dataDir.dir,
      OSPREY_LLM_PROVIDER: "openai",
      OSPREY_LLM_BASE_URL: model.openaiBaseUrl,
      OSPREY_LLM_MODEL: "scripted-1",
      OSPREY_LLM_API_KEY: model.apiKey,
      OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${port(site.url)},127.0.0.1:${port(site.origin2Url)}`,
      OSPREY_RUN_LEASE_SECONDS: String(LEASE_SECONDS),
      OSPREY_LOG_LEVEL: "warn",
      CHROME_PATH: CHROME,
    };
  }, 60_000);
  afterAll(async () => {
    await killChildren();
    await Promise.allSettled([site?.close(), model?.close()]);
    await database?.close();
    await pg?.drop();
    dataDir?.cleanup();
  });
  afterEach(async () => {
    // Each test starts its own workers: none may pick up the next test's run.
    for (const w of workers.splice(0)) {
      w.kill("SIGKILL");
      await w.exited;
    }
  });
  beforeEach(async () => {
    const created = await ctx.newKey();
    await ctx.services.accounts.addCredits(created.accountId, 100);
    key = created.key;
  });

  const getRun = (id: string): Promise<RunRow | null> => ctx.runRepo.get(id);
  async function until(id: string, what: string, ok: (r: RunRow) => boolean, timeoutMs = 30_000): Promise<RunRow> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await getRun(id);
      if (r && ok(r)) return r;
      if (Date.now() > deadline) throw new Error(`run ${id} never reached: ${what} (now ${r?.status})`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  const start = async () => {
    const w = await startWorkerProcess(env);
    workers.push(w);
    return w;
  };
  const runAsync = async (): Promise<string> => {
    const res = await ctx.postJson(key, "/v1/automation/run-async", {
      url: `${site.url}/login`,
      goal: "Sign in and tell me the greeting",
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as Json).run_id;
  };

  it("a run killed after it acted ends FAILED with a SYSTEM_FAILURE error within the lease time", async () => {
    let hang = true;
    model.setScript(async (t) => {
      if (t.turn === 1) return call("type", { index: idx(t, /Email \[(\d+) textbox:email/), text: LOGIN.email });
      // The second model call never answers while the first worker lives.
      while (hang) await new Promise((r) => setTimeout(r, 50));
      return call("done", { success: false, message: "unreachable" });
    });
    model.turns.length = 0;
    const first = await start();
    const id = await runAsync();
    await until(id, "acted and one step recorded", (r) => r.actedAt !== null && r.steps >= 1);
    first.kill("SIGKILL");
    await first.exited;
    const killedAt = Date.now();
    expect((await getRun(id))?.status).toBe("RUNNING");
    await start();
    const done = await until(id, "terminal", (r) => r.status === "FAILED" || r.status === "COMPLETED");
    const recoveredInMs = Date.now() - killedAt;
    hang = false;
    expect(done.status).toBe("FAILED");
    expect(done.error).toMatchObject({ code: "SERVICE_BUSY", category: "SYSTEM_FAILURE" });
    expect(done.error?.message).toMatch(/stopped unexpectedly after the agent had started acting/);
    // The lease lapses LEASE_SECONDS after the last heartbeat; the new worker polls every 2 s at most.
    expect(recoveredInMs).toBeLessThan((LEASE_SECONDS + 4) * 1000);
    const got = (await (await ctx.call(key, `/v1/runs/${id}`)).json()) as Json;
    expect(got).toMatchObject({ status: "FAILED", error: { code: "SERVICE_BUSY", category: "SYSTEM_FAILURE" } });
    process.stdout.write(
      `crash recovery (acted): run ${id} failed ${recoveredInMs} ms after kill -9 (lease ${LEASE_SECONDS} s)\n`,
    );
  }, 90_000);

  it("a run killed before it acted is retried by the next worker and completes", async () => {
    let hang = true;
    const errors: string[] = [];
    const login = loginSteps({ greeting: "Welcome, Ada" });
    const second = sequence(login, errors);
    model.setScript(async (t) => {
      if (hang) {
        // The first worker's first model call hangs: the run is RUNNING but has not acted. Its
        // answer, once that worker is killed, goes nowhere: it must not take the second worker's
        // first scripted step (it did, now and then, and the run failed 'not logged in').
        while (hang) await new Promise((r) => setTimeout(r, 50));
        return call("done", { success: false, message: "unreachable: the worker that asked is gone" });
      }
      return second(t);
    });
    const first = await start();
    const id = await runAsync();
    await until(id, "RUNNING", (r) => r.status === "RUNNING");
    await new Promise((r) => setTimeout(r, 500));
    expect((await getRun(id))?.actedAt).toBeNull();
    first.kill("SIGKILL");
    await first.exited;
    hang = false;
    const killedAt = Date.now();
    await start();
    const done = await until(id, "terminal", (r) => r.status !== "RUNNING" && r.status !== "PENDING");
    expect(errors).toEqual([]);
    expect(done).toMatchObject({ status: "COMPLETED", attempts: 2, error: null });
    expect(done.result).toEqual({ greeting: "Welcome, Ada" });
    process.stdout.write(
      `crash recovery (not acted): run ${id} retried and completed ${Date.now() - killedAt} ms after kill -9\n`,
    );
  }, 90_000);

  it("SIGTERM drains: an in-flight run finishes before the worker exits", async () => {
    const errors: string[] = [];
    let release = false;
    const steps: ScriptStep[] = [
      (t) => call("type", { index: idx(t, /Email \[(\d+) textbox:email/), text: LOGIN.email }),
      () => call("done", { success: true, result: { drained: true } }),
    ];
    const script = sequence(steps, errors);
    model.setScript(async (t) => {
      while (!release) await new Promise((r) => setTimeout(r, 50));
      return script(t);
    });
    const w = await start();
    const id = await runAsync();
    await until(id, "RUNNING", (r) => r.status === "RUNNING");
    w.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    release = true;
    const exit = await w.exited;
    workers.splice(workers.indexOf(w), 1);
    expect(exit.code).toBe(0);
    const done = await getRun(id);
    expect(errors).toEqual([]);
    expect(done).toMatchObject({ status: "COMPLETED", result: { drained: true } });
  }, 90_000);
});
