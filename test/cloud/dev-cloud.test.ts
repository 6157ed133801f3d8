import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { sequence } from "../agent/loop/harness.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { type AgentFixtureSite, startFixtureSite } from "../helpers/fixture-site.ts";
import { html, type Origin, startOrigin } from "../helpers/origin.ts";
import { childEnv, REPO_ROOT, runCli, tempDir } from "../helpers/process.ts";
import { type Json, loginSteps, readSse } from "../helpers/run-harness.ts";
import { type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { CHROME } from "../helpers/test-session.ts";
import { makeTestPki, type Receiver, startReceiver } from "../webhooks/receiver.ts";

/**
 * `npm run dev:cloud` end to end, as a user runs it: the command in a child process, its printed
 * URLs, keys made with `osprey keys create --json` on the same database, and every request over
 * real HTTP through the local function URLs (Lambda events and response streaming) to the edge
 * handlers, SQS and S3 on fauxqs, the Neon driver through the WebSocket proxy, and two
 * `osprey worker` processes with Chromium, whose browser session APIs serve {browser_url} behind
 * the local load balancer. The tests share one dev:cloud and run in file order (the last one stops it).
 */

const MARK = "kingfisherzeta";
const APP = `<html><head><title>Script-built page</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<article><h1>Rendered ${MARK} heading</h1><p>' + ${JSON.stringify(
  "This paragraph exists only after the script ran, so only a browser can read it. ",
)}.repeat(4) + '</p></article>';</script></body></html>`;

const missing = !TEST_DATABASE_URL
  ? "TEST_DATABASE_URL is not set (dev:cloud needs Postgres, e.g. postgres://postgres@127.0.0.1:5432/postgres)"
  : !isExecutable(CHROME)
    ? `no Chromium at ${CHROME} (the workers need it)`
    : null;
if (missing) {
  describe("npm run dev:cloud", () => {
    it.skip(`is not run here: ${missing}`, () => {});
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Running, not a zombie left for an init that may never reap it (Linux /proc). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

/** Every process under `pid` (Linux /proc): a worker's Chromium processes, which puppeteer starts in their own group. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift() as number) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

/** SIGKILL a worker and everything under it, as a stopped ECS task loses every process in it (its warm Chromium would outlive it). */
function killTask(pid: number): void {
  for (const p of [pid, ...descendants(pid)]) {
    try {
      process.kill(p, "SIGKILL");
    } catch {}
  }
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined> | T | null | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== null && got !== undefined && got !== false) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.skipIf(missing !== null)("npm run dev:cloud (the cloud shape on one machine)", () => {
  let pg: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let model: ScriptedModel;
  let site: AgentFixtureSite;
  let origin: Origin;
  let receiver: Receiver;
  let child: ChildProcess;
  let out = "";
  let err = "";
  const urls: Record<string, string> = {};
  const workers: { pid: number; health: string }[] = [];
  let key = "";
  let accountId = "";
  let webhookSecret = "";
  let release: () => void = () => {};
  const files = tempDir("osprey-dev-cloud-test-");

  const call = (base: string, p: string, init: RequestInit = {}) =>
    fetch(`${base}${p}`, { ...init, headers: { "x-api-key": key, "content-type": "application/json", ...init.headers } });
  const post = (base: string, p: string, body: Json) => call(base, p, { method: "POST", body: JSON.stringify(body) });
  const loginRun = (extra: Json = {}) => ({ url: `${site.url}/login`, goal: "Sign in and tell me the greeting", ...extra });
  const runOf = async (id: string) => (await (await call(urls.agent as string, `/v1/runs/${id}`)).json()) as Json;
  const terminal = (id: string, ms = 45_000) =>
    until(`run ${id} to end`, ms, async () => {
      const run = await runOf(id);
      return ["COMPLETED", "FAILED", "CANCELLED"].includes(run.status) ? run : null;
    });

  beforeAll(async () => {
    const pki = makeTestPki();
    const caFile = path.join(files.dir, "ca.crt");
    writeFileSync(caFile, pki.caCert);
    [pg, model, site, origin, receiver] = await Promise.all([
      createPostgresDatabase({ fromTemplate: false }),
      startScriptedModel([]),
      startFixtureSite(),
      startOrigin({ "/app": html(APP) }),
      startReceiver(pki, () => ({ status: 204 })),
    ]);
    child = spawn(
      process.execPath,
      ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", "containers/cloud-dev/dev-cloud.ts"],
      {
        cwd: REPO_ROOT,
        env: childEnv({
          DATABASE_URL: pg.url,
          OSPREY_CLOUD_DEV_PORT: "0",
          OSPREY_CLOUD_DEV_WORKERS: "2",
          OSPREY_LLM_PROVIDER: "openai",
          OSPREY_LLM_BASE_URL: model.openaiBaseUrl,
          OSPREY_LLM_MODEL: "scripted-1",
          OSPREY_LLM_API_KEY: model.apiKey,
          // The fixture site, the script-built page and the webhook receiver all listen on loopback.
          OSPREY_ALLOW_PRIVATE_HOSTS: "127.0.0.1",
          // A killed worker's run comes back on the queue after this lease (the SQS visibility timeout).
          OSPREY_RUN_LEASE_SECONDS: "3",
          OSPREY_LOG_LEVEL: "warn",
          CHROME_PATH: CHROME,
          // The workers' webhook dispatcher trusts the receiver's throwaway CA, as a deployment trusts public CAs.
          NODE_EXTRA_CA_CERTS: caFile,
        }),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    child.stderr?.setEncoding("utf8").on("data", (s: string) => {
      err += s;
    });
    await until("dev:cloud to print its URLs", 60_000, () => {
      if (child.exitCode !== null) throw new Error(`dev:cloud exited ${child.exitCode}\n${out}\n${err}`);
      return out.includes("dev:cloud ready");
    });
    for (const m of out.matchAll(/^ {2}(agent|fetch|search|browser)_url\s+(http:\/\/\S+)/gm))
      urls[m[1] as string] = m[2] as string;
    for (const m of out.matchAll(/^ {2}worker-\d+\s+pid (\d+) health (\S+)/gm))
      workers.push({ pid: Number(m[1]), health: m[2] as string });
    expect(Object.keys(urls).sort()).toEqual(["agent", "browser", "fetch", "search"]);
    expect(workers).toHaveLength(2);

    // The operator's CLI against the same database.
    const env = { DATABASE_URL: pg.url };
    const created = await runCli(["keys", "create", "--plan", "pro", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    ({ key, account_id: accountId } = JSON.parse(created.stdout) as { key: string; account_id: string });
    const credits = await runCli(["accounts", "credits", accountId, "--add", "1000"], env);
    expect(credits.code, credits.stderr).toBe(0);
    const secret = await runCli(["accounts", "webhook-secret", accountId, "--json"], env);
    expect(secret.code, secret.stderr).toBe(0);
    webhookSecret = (JSON.parse(secret.stdout) as { webhook_secret: string }).webhook_secret;
  }, 90_000);

  afterAll(async () => {
    release();
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const w of workers) if (alive(w.pid)) killTask(w.pid);
    await Promise.allSettled([model?.close(), site?.close(), origin?.close(), receiver?.close()]);
    await pg?.drop();
    files.cleanup();
  });

  it("answers through the function URLs: /healthz, a 401 without a key, the account with one", async () => {
    for (const base of Object.values(urls)) {
      const res = await fetch(`${base}/healthz`);
      expect(res.status).toBe(200);
    }
    const denied = await fetch(`${urls.agent}/v1/account`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get("x-request-id")).toMatch(/^req_/);
    const account = await call(urls.agent as string, "/v1/account");
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ id: accountId, plan: "pro" });
  });

  it("runs a blocking /run on a worker and delivers its signed webhook over HTTPS", async () => {
    const errors: string[] = [];
    model.setScript(sequence(loginSteps(), errors));
    const res = await post(urls.agent as string, "/v1/automation/run", loginRun({ webhook_url: receiver.url }));
    const run = (await res.json()) as Json;
    expect(res.status, JSON.stringify(run)).toBe(200);
    expect(errors).toEqual([]);
    expect(run).toMatchObject({ status: "COMPLETED", result: { greeting: "Welcome, Ada" } });
    const delivered = await until("the webhook", 20_000, () => receiver.requests[0]);
    const payload = new Webhook(webhookSecret).verify(delivered.body, delivered.headers) as Json;
    expect(payload).toMatchObject({ type: "run.completed", data: { status: "COMPLETED" } });
  }, 60_000);

  it("runs /run-async (polled) and /run-sse (streamed through the function URL to COMPLETE)", async () => {
    const errors: string[] = [];
    model.setScript(sequence(loginSteps(), errors));
    const accepted = await post(urls.agent as string, "/v1/automation/run-async", loginRun());
    expect(accepted.status).toBe(200);
    const id = ((await accepted.json()) as Json).run_id as string;
    expect(await terminal(id)).toMatchObject({ status: "COMPLETED" });

    model.setScript(sequence(loginSteps(), errors));
    const res = await post(urls.agent as string, "/v1/automation/run-sse", loginRun());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readSse(res);
    const types = events.map((e) => e.type).filter((t) => t !== "HEARTBEAT");
    expect(types[0]).toBe("STARTED");
    expect(events.at(-1)).toMatchObject({ type: "COMPLETE", status: "COMPLETED" });
    expect(errors).toEqual([]);
  }, 90_000);

  it("fetches a page that needs scripts (edge -> remote renderer -> a worker's Chromium), then finds it with search", async () => {
    const res = await post(urls.fetch as string, "/", { urls: [`${origin.url}/app`], ttl: 0 });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.errors).toEqual([]);
    expect(body.results[0]?.text).toContain(`Rendered ${MARK} heading`);
    // The edge fetch answered only once the page was indexed.
    const found = await call(urls.search as string, `/?query=${MARK}`);
    const results = (await found.json()) as Json;
    expect(found.status, JSON.stringify(results)).toBe(200);
    expect(JSON.stringify(results)).toContain(`${origin.url}/app`);
  }, 60_000);

  it("serves {browser_url} from the workers behind the balancer: create, CDP from either worker, live view, DELETE, usage", async () => {
    const browserUrl = urls.browser as string;
    const created = await post(browserUrl, "/", {});
    const s = (await created.json()) as Json;
    expect(created.status, JSON.stringify(s)).toBe(201);
    // The links name the balancer (OSPREY_BROWSER_PUBLIC_URL), not the worker that made the session.
    expect(s.cdp_url).toMatch(new RegExp(`^${browserUrl.replace("http", "ws")}/${s.session_id}/cdp\\?token=`));
    expect(s.live_view_url.startsWith(`${browserUrl}/live/`)).toBe(true);

    // Each connection goes to the next worker, so of two in a row one reaches the worker that does
    // not hold the session, which relays it to the holder (the other goes straight there).
    const driver = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
    const watcher = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
    try {
      const page = (await driver.pages())[0] ?? (await driver.newPage());
      await page.goto(`${origin.url}/app`);
      expect(await page.$eval("h1", (h) => h.textContent)).toBe(`Rendered ${MARK} heading`);
      const seen = await Promise.all((await watcher.pages()).map((p) => p.url()));
      expect(seen).toContain(`${origin.url}/app`);
      const frame = await fetch(`${s.live_view_url}/frame`);
      expect(frame.status).toBe(200);
      expect(frame.headers.get("content-type")).toBe("image/jpeg");
      await watcher.disconnect();

      const gone = new Promise<void>((resolve) => driver.once("disconnected", () => resolve()));
      expect((await call(browserUrl, `/${s.session_id}`, { method: "DELETE" })).status).toBe(204);
      await gone;
    } finally {
      await Promise.allSettled([driver.disconnect(), watcher.disconnect()]);
    }

    // Ended at the DELETE; the holder writes its final byte counts within its next check.
    const record = await until("the session's final usage record", 15_000, async () => {
      const res = await call(browserUrl, `/usage?session_id=${s.session_id}`);
      const item = ((await res.json()) as Json).items?.[0] as Json | undefined;
      return item?.status === "ended" && item.proxy_trg_rx_bytes > 0 ? item : null;
    });
    expect(record.duration_ms).toBeGreaterThan(0);
    expect(record.end_time).not.toBeNull();
    const listed = (await (await call(browserUrl, `/v1/browser/usage?session_id=${s.session_id}`)).json()) as Json;
    expect(listed).toMatchObject({
      total: 1,
      items: [{ session_id: s.session_id, status: "ended", duration_ms: record.duration_ms }],
    });
  }, 60_000);

  it("a run whose worker is killed (SIGKILL) mid-run still ends terminal", async () => {
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first model call hangs, holding the run inside one worker.
    model.setScript(async () => {
      await gate;
      return { fail: "server_error" };
    });
    const accepted = await post(urls.agent as string, "/v1/automation/run-async", loginRun());
    const id = ((await accepted.json()) as Json).run_id as string;
    // A worker counts the run in flight as it claims the message, a moment before it marks the run RUNNING.
    await until("the run to start", 30_000, async () => (await runOf(id)).status === "RUNNING");
    const holder = await until("a worker to hold the run", 30_000, async () => {
      for (const w of workers) {
        const h = (await (await fetch(w.health)).json().catch(() => ({}))) as Json;
        if (h.runs_in_flight > 0) return w;
      }
      return null;
    });
    killTask(holder.pid);
    const errors: string[] = [];
    model.setScript(sequence(loginSteps(), errors));
    release();
    const t0 = Date.now();
    const run = await terminal(id, 60_000);
    expect(["COMPLETED", "FAILED"]).toContain(run.status);
    // Picked up again once its lease (3 s) lapsed, not by the orphan sweep a minute later.
    expect(Date.now() - t0).toBeLessThan(30_000);
    // dev:cloud starts a dead worker again, as an ECS service replaces a stopped task.
    await until("the worker to be started again", 15_000, () => out.includes("exited (SIGKILL)"));
  }, 90_000);

  it("stops everything on SIGINT (Ctrl-C): no worker outlives it", async () => {
    const pids = [...out.matchAll(/pid (\d+) health/g)].map((m) => Number(m[1]));
    expect(pids.length).toBeGreaterThanOrEqual(2);
    // Their Chromium processes (the warm session pools, the renderer) must go with them.
    const browsers = pids.filter(alive).flatMap(descendants);
    expect(browsers.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    for (const pid of pids) expect(alive(pid), `worker ${pid} outlived dev:cloud`).toBe(false);
    for (const pid of browsers) expect(alive(pid), `a worker's process ${pid} outlived dev:cloud`).toBe(false);
    for (const base of Object.values(urls)) await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 30_000);
});
