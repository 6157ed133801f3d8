import { existsSync } from "node:fs";
import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { streamHandle } from "hono/aws-lambda";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChromiumRenderer } from "../../containers/browser/chromium-pool.ts";
import { type RenderEndpoint, startRenderEndpoint } from "../../containers/worker/render-endpoint.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { buildAgentSurface } from "../../functions/edge/agent-surface.ts";
import { type EdgeApp, type EdgeSurfaceBuilder, edgeApp } from "../../functions/edge/edge-root.ts";
import { buildFetchSurface } from "../../functions/edge/fetch-surface.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { ensureFirstAccount } from "../../functions/services/bootstrap.service.ts";
import { createServices } from "../../functions/services/index.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { setEnv } from "../helpers/env.ts";
import { type Fauxqs, startFauxqsServer } from "../helpers/fauxqs.ts";
import { functionUrlEvent, installLambdaRuntime, invoke } from "../helpers/lambda.ts";
import { startNeonProxy } from "../helpers/neon-proxy.ts";
import { html, type Origin, startOrigin } from "../helpers/origin.ts";

/**
 * The edge handlers as Lambda runs them: function-URL (payload 2.0) events into hono/aws-lambda's
 * streamHandle, the Neon driver over the local WebSocket proxy to the real Postgres, SQS on fauxqs,
 * and the remote renderer against the container's render endpoint with real Chromium.
 */

const CHROMIUM = process.env.CHROME_PATH || "/usr/bin/chromium";
const SECRET = "s3cr3t-0123456789abcdef0123456789abcdef";
const SENTENCE = "This paragraph exists only after the script ran, so only a browser can read it. ";
const APP = `<html><head><title>App shell</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<article><h1>Rendered heading</h1><p>' + ${JSON.stringify(SENTENCE)}.repeat(4) + '</p></article>';</script></body></html>`;
const STATIC = `<html><head><title>Plain page</title></head><body><article><h1>Plain</h1><p>${"A static paragraph that needs no script to be read by anyone. ".repeat(6)}</p></article></body></html>`;

if (!TEST_DATABASE_URL) {
  describe("edge handlers", () => {
    it.skip("need TEST_DATABASE_URL (a real Postgres, reached through the Neon driver and a local WebSocket proxy)", () => {});
  });
}

describe.skipIf(!TEST_DATABASE_URL)("edge handlers (Neon driver, fauxqs, function-URL events)", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: Awaited<ReturnType<typeof startNeonProxy>>;
  let sqs: Fauxqs;
  let queueUrl: string;
  let origin: Origin;
  let key: string;
  const apps: EdgeApp[] = [];

  const handlerFor = (build: EdgeSurfaceBuilder, extra: Record<string, string> = {}) => {
    const env = { DATABASE_URL: database.url, OSPREY_NEON_WS_PROXY: proxy.url, OSPREY_LOG_LEVEL: "error", ...extra };
    const edge = edgeApp(env, build);
    apps.push(edge);
    return streamHandle(edge.app);
  };
  const get = (path: string, headers: Record<string, string> = {}) => functionUrlEvent("GET", path, { headers });
  const post = (path: string, json: unknown) => functionUrlEvent("POST", path, { headers: { "x-api-key": key }, json });

  let restoreEnv: (() => void) | undefined;

  beforeAll(async () => {
    installLambdaRuntime();
    // The SDK takes credentials from the process environment, as on Lambda (the function's role).
    restoreEnv = setEnv({ AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test" });
    database = await createPostgresDatabase({ fromTemplate: true });
    proxy = await startNeonProxy();
    sqs = await startFauxqsServer();
    queueUrl = (await sqs.createQueue()).queueUrl;
    origin = await startOrigin({ "/app": html(APP), "/plain": html(STATIC) });
    const setup = await openDatabase({ driver: "pg", url: database.url });
    try {
      const created = await ensureFirstAccount(createServices({ db: setup.db, clock: systemClock, ids: defaultIds }));
      key = created?.key ?? "";
    } finally {
      await setup.close();
    }
  });
  afterAll(async () => {
    restoreEnv?.();
    for (const a of apps) await a.close();
    await origin?.close();
    await sqs?.stop();
    await proxy?.close();
    await database?.drop();
  });

  it("answers /healthz, /openapi.json and a missing key's 401 with only DATABASE_URL set, without reaching the database", async () => {
    // A database nobody listens on: these answers must not need it.
    const edge = edgeApp({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, buildAgentSurface);
    apps.push(edge);
    const handler = streamHandle(edge.app);
    const health = await invoke(handler, get("/healthz"));
    expect(health.status).toBe(200);
    expect(health.json()).toMatchObject({ status: "ok" });
    const doc = await invoke(handler, get("/openapi.json"));
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json<{ paths: object }>().paths)).toContain("/v1/account");
    const denied = await invoke(handler, get("/v1/account"));
    expect(denied.status).toBe(401);
    expect(denied.json()).toMatchObject({ error: { code: "MISSING_API_KEY" } });
    expect(denied.headers["x-request-id"]).toBe(denied.json<{ request_id: string }>().request_id);
  });

  it("answers an authenticated GET /v1/account through the Neon driver", async () => {
    const handler = handlerFor(buildAgentSurface);
    const res = await invoke(handler, get("/v1/account", { "x-api-key": key }));
    expect(res.status).toBe(200);
    expect(res.json()).toHaveProperty("plan");
    const wrong = await invoke(handler, get("/v1/account", { "x-api-key": `${key.slice(0, -2)}xx` }));
    expect(wrong.status).toBe(401);
  });

  it("refuses to start a run when no queue is configured (a 7.1 error on that route, no run inserted)", async () => {
    const handler = handlerFor(buildAgentSurface, {
      OSPREY_LLM_PROVIDER: "openai",
      OSPREY_LLM_BASE_URL: "http://127.0.0.1:9/v1",
      OSPREY_LLM_MODEL: "scripted",
    });
    const res = await invoke(handler, post("/v1/automation/run-async", { url: "https://example.com/", goal: "Read the title" }));
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({
      error: { code: "SERVICE_BUSY", message: expect.stringContaining("OSPREY_SQS_QUEUE_URL") },
    });
    const list = await invoke(handler, get("/v1/runs", { "x-api-key": key }));
    expect(list.status).toBe(200);
  });

  it("inserts a run and lands its id on the SQS queue (run-async)", async () => {
    const handler = handlerFor(buildAgentSurface, {
      OSPREY_SQS_QUEUE_URL: queueUrl,
      OSPREY_SQS_ENDPOINT: sqs.server.address,
      OSPREY_LLM_PROVIDER: "openai",
      OSPREY_LLM_BASE_URL: "http://127.0.0.1:9/v1",
      OSPREY_LLM_MODEL: "scripted",
    });
    const res = await invoke(handler, post("/v1/automation/run-async", { url: "https://example.com/", goal: "Read the title" }));
    expect(res.status).toBe(200);
    const runId = res.json<{ id?: string; run_id?: string }>();
    const id = runId.id ?? runId.run_id;
    expect(id).toMatch(/^run_/);
    const got = await sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 2, MaxNumberOfMessages: 10 }),
    );
    const bodies = (got.Messages ?? []).map((m) => JSON.parse(m.Body ?? "{}") as { run_id?: string });
    expect(bodies.map((b) => b.run_id)).toContain(id);
  });

  it("fetches a loopback origin page on the fetch handler (OSPREY_ALLOW_PRIVATE_HOSTS)", async () => {
    const handler = handlerFor(buildFetchSurface, { OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${origin.port}` });
    const res = await invoke(handler, post("/", { urls: [`${origin.url}/plain`], ttl: 0 }));
    expect(res.status).toBe(200);
    const body = res.json<{ results: { url: string; text?: string }[]; errors: unknown[] }>();
    expect(body.errors).toEqual([]);
    expect(body.results[0]?.text).toContain("A static paragraph");
    // Indexed before the answer came back (a frozen Lambda would drop work left for later), and
    // private to the fetching account.
    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    try {
      const { rows } = await check.query<{ owner_account_id: string }>(
        "select owner_account_id from search_documents where url = $1",
        [`${origin.url}/plain`],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.owner_account_id).not.toBe("");
    } finally {
      await check.end();
    }
  });

  it("leaves no connection behind after 200 sequential invocations", async () => {
    const handler = handlerFor(buildAgentSurface);
    for (let i = 0; i < 200; i++) {
      const res = await invoke(handler, get("/v1/account", { "x-api-key": key }));
      expect(res.status).toBe(200);
    }
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [database.name],
      );
      // Every edge app this file built shares the database; each keeps at most its pool (5).
      expect(rows[0]?.n ?? 0).toBeLessThanOrEqual(5 * apps.length);
      const before = rows[0]?.n ?? 0;
      for (let i = 0; i < 50; i++) await invoke(handler, get("/v1/account", { "x-api-key": key }));
      const after = await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1", [
        database.name,
      ]);
      expect(after.rows[0]?.n ?? 0).toBeLessThanOrEqual(before);
    } finally {
      await admin.end();
    }
  });

  describe.skipIf(!existsSync(CHROMIUM))("remote rendering (the container's render endpoint, real Chromium)", () => {
    let endpoint: RenderEndpoint;
    let renderer: ReturnType<typeof createChromiumRenderer>;
    beforeAll(async () => {
      const allowPrivateHosts = [{ host: "127.0.0.1", port: origin.port }];
      renderer = createChromiumRenderer({ executablePath: CHROMIUM, maxConcurrency: 1, egress: { allowPrivateHosts } });
      endpoint = await startRenderEndpoint({
        renderer,
        secret: SECRET,
        allowPrivateHosts,
        logger: silentLogger,
        port: 0,
        host: "127.0.0.1",
      });
    });
    afterAll(async () => {
      await endpoint?.close();
      await renderer?.close();
    });

    it("refuses a wrong secret with 401 and renders nothing", async () => {
      const before = origin.hits.get("/app") ?? 0;
      const res = await fetch(endpoint.url, {
        method: "POST",
        headers: { authorization: "Bearer not-the-secret", "content-type": "application/json" },
        body: JSON.stringify({ url: `${origin.url}/app`, timeout_ms: 10_000 }),
      });
      expect(res.status).toBe(401);
      const { createRemoteRenderer } = await import("../../functions/fetch/remote-renderer.ts");
      const wrong = createRemoteRenderer({ url: endpoint.url, secret: "x".repeat(40) });
      const result = await wrong.render({ url: `${origin.url}/app`, timeoutMs: 10_000, isAllowed: async () => true });
      expect(result).toMatchObject({ ok: false, error: "render_unavailable" });
      expect(origin.hits.get("/app") ?? 0).toBe(before);
      expect(renderer.inspect().launches).toBe(0);
    });

    it("answers malformed, oversized and misdirected requests with a 4xx, never a 500, and renders nothing", async () => {
      const auth = { authorization: `Bearer ${SECRET}`, "content-type": "application/json" };
      const post = (body: string | Uint8Array<ArrayBuffer>, path = "") =>
        fetch(`${endpoint.url}${path}`, { method: "POST", headers: auth, body });
      const cases: [string, Promise<Response>][] = [
        ["not JSON", post("{")],
        ["wrong shape", post(JSON.stringify({ url: 5, timeout_ms: "x" }))],
        ["timeout past 120 s", post(JSON.stringify({ url: `${origin.url}/app`, timeout_ms: 10_000_000 }))],
        ["a 1 MiB body", post("x".repeat(1 << 20))],
        ["not UTF-8", post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))],
        ["another path", post(JSON.stringify({ url: `${origin.url}/app`, timeout_ms: 1000 }), "/../x")],
        ["GET", fetch(endpoint.url, { headers: auth })],
      ];
      for (const [what, pending] of cases) {
        const res = await pending;
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
      }
      // A NUL in the URL is percent-encoded by URL parsing: an ordinary URL the policy then judges.
      const nul = await post(JSON.stringify({ url: "http://127.0.0.1/\u0000", timeout_ms: 1000 }));
      expect(nul.status).toBe(200);
      expect(await nul.json()).toMatchObject({ ok: false, error: "invalid_url" });
      expect(renderer.inspect().launches).toBe(0);
    });

    it("applies the container's own address policy", async () => {
      const { createRemoteRenderer } = await import("../../functions/fetch/remote-renderer.ts");
      const remote = createRemoteRenderer({ url: endpoint.url, secret: SECRET });
      const result = await remote.render({ url: "http://127.0.0.1:9/other-port", timeoutMs: 5_000, isAllowed: async () => true });
      expect(result).toMatchObject({ ok: false, error: "invalid_url" });
    });

    it("renders a script-only page for the fetch handler through the endpoint", async () => {
      const handler = handlerFor(buildFetchSurface, {
        OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${origin.port}`,
        OSPREY_RENDERER_URL: endpoint.url,
        OSPREY_RENDERER_SECRET: SECRET,
      });
      const res = await invoke(handler, post("/", { urls: [`${origin.url}/app`], ttl: 0 }));
      expect(res.status).toBe(200);
      const body = res.json<{ results: { text?: string }[]; errors: unknown[] }>();
      expect(body.errors).toEqual([]);
      expect(body.results[0]?.text).toContain("Rendered heading");
    });

    it("times out at the request's deadline", async () => {
      const { createRemoteRenderer } = await import("../../functions/fetch/remote-renderer.ts");
      const remote = createRemoteRenderer({ url: endpoint.url, secret: SECRET });
      const result = await remote.render({ url: `${origin.url}/app`, timeoutMs: 1, isAllowed: async () => true });
      expect(result).toMatchObject({ ok: false, error: "timeout" });
    });
  });
});
