import { existsSync, readdirSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/data-dir.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { killChildren, type RunningServer, runCli, startServer, tempDir } from "../helpers/process.ts";

/**
 * `osprey serve` as a real process: banner, first-start key, persistence across restarts, signals,
 * start-up errors. Each PGlite start costs a second or two, so the tests of one data dir share it.
 */

const KEY = /osk_[A-Za-z0-9]{40}/g;
// High enough that a shutdown only finishes in time if it does not wait for the timer.
const SHUTDOWN_TIMEOUT_MS = "120000";

const dirs: Array<{ cleanup(): void }> = [];
/** A new data dir: empty, or with a migrated PGlite database copied in (no initdb: faster to start). */
function dataDir({ migrated = false } = {}): string {
  const t = migrated ? migratedDataDir() : tempDir();
  dirs.push(t);
  return t.dir;
}
afterAll(async () => {
  await killChildren();
  for (const d of dirs) d.cleanup();
});

const keysIn = (text: string) => [...new Set(text.match(KEY) ?? [])];
const getAccount = (url: string, key: string) => fetch(`${url}/v1/account`, { headers: { "X-API-Key": key } });
const lockFile = (dir: string) => path.join(dir, "osprey.lock");

describe("osprey serve on a PGlite data dir", () => {
  let dir: string;
  let env: Record<string, string>;
  let server: RunningServer;
  let firstKey: string;
  beforeAll(() => {
    dir = dataDir();
    env = { PORT: "0", OSPREY_DATA_DIR: dir, OSPREY_SHUTDOWN_TIMEOUT_MS: SHUTDOWN_TIMEOUT_MS };
  });

  it("first start on an empty data dir prints the URLs, the adapters and one working key", async () => {
    // An empty data dir: PGlite's initdb, which takes long on a busy machine.
    server = await startServer(env, { timeoutMs: 120_000 });
    const out = server.stdout();
    const { url } = server;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    for (const line of [
      `Osprey 0.1.0 is listening on ${url}`,
      `  automation  ${url}/v1`,
      `  fetch       ${url}/fetch`,
      `  search      ${url}/search`,
      `  browser     ${url}/browser`,
      `  reference   ${url}/docs  (OpenAPI: ${url}/openapi.json)`,
      `  data dir    ${dir}`,
      `  database    pglite (${path.join(dir, "pglite")})`,
      "  queue       postgres table in the same database",
    ]) {
      expect(out).toContain(line);
    }
    expect(out).toMatch(/^ {2}browser {5}(chromium at \S+|none: .+)$/m);
    expect(out).toMatch(/^ {2}model {7}none configured/m);
    expect(out).toMatch(/^ {2}workers {5}in process, 2 runs at once; webhooks dispatched here$/m);
    expect(out).toMatch(
      /^Automation runs are refused \(403\) until a model is configured: set OSPREY_LLM_PROVIDER, OSPREY_LLM_MODEL, OSPREY_LLM_API_KEY\.$/m,
    );
    expect(out).toMatch(/^First start: created account acct_\w+ \(plan pro, 10000 credits\) and an API key\.$/m);
    // Before the banner, stderr said what start-up was doing, with timings.
    for (const msg of ["opening the database", "database open; applying migrations", "migrations applied"]) {
      expect(server.stderr()).toContain(`msg="${msg}"`);
    }
    expect(server.stderr()).toMatch(/msg=("Chromium found"|"no Chromium: rendering and browser features are off") .*ms=\d+/);

    const keys = keysIn(out);
    expect(keys).toHaveLength(1);
    firstKey = keys[0] as string;
    expect(out.match(/^ {4}osk_\w+$/gm)).toEqual([`    ${firstKey}`]);
    expect(existsSync(lockFile(dir))).toBe(true);

    const res = await getAccount(url, firstKey);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ plan: "pro" });
  }, 150_000);

  it("answers 404 with the error body for surfaces that are not built and unknown paths", async () => {
    for (const [method, p] of [
      ["GET", "/fetch/anything"],
      ["GET", "/search/anything"],
      ["GET", "/browser/bs_x/anything"],
      ["GET", "/v1/nope"],
    ] as const) {
      const res = await fetch(`${server.url}${p}`, { method, headers: { "X-API-Key": firstKey } });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = (await res.json()) as { request_id: string };
      expect(body).toEqual({
        error: { code: "NOT_FOUND", message: expect.any(String) },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(res.headers.get("x-request-id")).toBe(body.request_id);
    }
    // Browser sessions are served when Chromium is there (an empty usage listing on a fresh data dir).
    const browserRes = await fetch(`${server.url}/browser/usage`, { headers: { "X-API-Key": firstKey } });
    if (/^ {2}browser {5}chromium at /m.test(server.stdout())) {
      expect(browserRes.status).toBe(200);
      expect(await browserRes.json()).toEqual({ items: [], total: 0, limit: 100, page: 1, total_pages: 0, has_more: false });
    } else {
      expect(((await browserRes.json()) as { error: { message: string } }).error.message).toMatch(/not available/);
    }
    // The search API is served from the local index (empty on a fresh data dir).
    const searchRes = await fetch(`${server.url}/search?query=kayak`, { headers: { "X-API-Key": firstKey } });
    expect(searchRes.status).toBe(200);
    expect(await searchRes.json()).toEqual({ query: "kayak", results: [], total_results: 0, page: 0 });
    // The fetch API is served: a loopback URL is refused per URL, with no connection made.
    const fetchRes = await fetch(`${server.url}/fetch`, {
      method: "POST",
      headers: { "X-API-Key": firstKey, "content-type": "application/json" },
      body: JSON.stringify({ urls: ["http://127.0.0.1:9/"] }),
    });
    expect(fetchRes.status).toBe(200);
    expect(await fetchRes.json()).toMatchObject({ results: [], errors: [{ error: "invalid_url" }] });
    // Without a key the caller learns nothing about the path.
    expect((await fetch(`${server.url}/fetch`, { method: "POST" })).status).toBe(401);
  });

  it("serves a search at its limits in any script (a URL of about 30 KB); a request past the header limit gets the error body", async () => {
    // 2,000 characters (UTF-16 units, as the limit counts them) each of query and purpose: 12,000
    // and 18,000 bytes percent-encoded. Node's default header limit (16 KiB) answered a bare 431
    // before the API saw it.
    const emoji = "🦅".repeat(1000);
    const params = new URLSearchParams({ query: emoji, purpose: "鱼鹰".repeat(1000) });
    expect(params.toString().length).toBeGreaterThan(25_000);
    const res = await fetch(`${server.url}/search?${params}`, { headers: { "X-API-Key": firstKey } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { query: string }).query).toBe(emoji);
    // One character past the limit is the API's own 400, with its details.
    const over = await fetch(`${server.url}/search?${new URLSearchParams({ query: "é".repeat(2001) })}`, {
      headers: { "X-API-Key": firstKey },
    });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("INVALID_INPUT");
    // Past what any valid request needs (128 KiB of request line and headers): Node's parser refuses
    // it before the API, and says so in the contract's error body.
    const huge = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = http.get(`${server.url}/search?query=${"a".repeat(200_000)}`, { headers: { "X-API-Key": firstKey } }, (r) => {
        let body = "";
        r.on("data", (chunk) => (body += chunk));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body }));
      });
      req.on("error", reject);
    });
    expect(huge.status).toBe(431);
    expect(huge.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(huge.body) as { error: { code: string; message: string }; request_id: string };
    expect(body).toEqual({
      error: { code: "INVALID_INPUT", message: expect.stringContaining("131072 bytes") },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(huge.headers["x-request-id"]).toBe(body.request_id);
    // Malformed HTTP gets a 400 with the same body shape.
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(server.port, "127.0.0.1", () => sock.write("NOT HTTP AT ALL\r\n\r\n"));
      let data = "";
      sock.on("data", (d) => (data += d));
      sock.on("end", () => resolve(data));
      sock.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: { code: "INVALID_INPUT" } });
  });

  it("keeps accounts and keys across restarts, with keys created by the CLI in between", async () => {
    // SIGTERM: clean exit, lock released (the client above still holds an idle keep-alive connection).
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(lockFile(dir))).toBe(false);
    expect(server.stderr()).toMatch(/msg="shutting down" signal=SIGTERM/);

    const created = await runCli(["keys", "create", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const cliKey = JSON.parse(created.stdout).key as string;

    server = await startServer(env);
    expect(server.stdout()).not.toContain("First start");
    expect(keysIn(server.stdout())).toEqual([]);
    const first = await getAccount(server.url, firstKey);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ plan: "pro" });
    const second = await getAccount(server.url, cliKey);
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ plan: "free" });
    expect((await getAccount(server.url, `osk_${"x".repeat(40)}`)).status).toBe(401);

    // SIGINT (Ctrl-C) stops it the same way.
    expect(await server.stop("SIGINT")).toBe(0);
    expect(server.stderr()).toMatch(/msg="shutting down" signal=SIGINT/);
    expect(existsSync(lockFile(dir))).toBe(false);
  }, 60_000);
});

describe("graceful shutdown", () => {
  afterEach(killChildren);

  // The request's body is still unsent when the signal arrives. POST /v1/account answers 405 without
  // reading the body, so the server may already have answered: what this pins down is that the
  // signal never turns an accepted request into a reset. The Postgres group below holds a request
  // inside its handler across the signal.
  it("lets a request that is in flight when SIGTERM arrives complete", async () => {
    const dir = dataDir({ migrated: true });
    const server = await startServer({ PORT: "0", OSPREY_DATA_DIR: dir, OSPREY_SHUTDOWN_TIMEOUT_MS: SHUTDOWN_TIMEOUT_MS });
    const key = keysIn(server.stdout())[0] as string;
    const body = '{"name":"in flight"}';
    const req = http.request(`${server.url}/v1/account`, {
      method: "POST",
      agent: false,
      // 100-continue: the server answers "100 Continue" once it has taken the request on, so the
      // test knows the request reached it before sending the signal.
      headers: {
        "X-API-Key": key,
        "Content-Type": "application/json",
        "Content-Length": String(Buffer.byteLength(body)),
        Expect: "100-continue",
      },
    });
    const response = new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
      req.once("error", reject);
      req.once("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.once("end", () => resolve({ status: res.statusCode, text }));
        res.once("error", reject);
      });
    });
    response.catch(() => {});
    req.flushHeaders();
    req.write(body.slice(0, 8));
    await new Promise((resolve) => req.once("continue", resolve));

    const stopped = server.stop("SIGTERM");
    await server.waitForStderr(/msg="shutting down" signal=SIGTERM/);
    req.end(body.slice(8));

    const { status, text } = await response;
    expect(status).toBe(405);
    expect(JSON.parse(text)).toMatchObject({ error: { code: "NOT_FOUND" } });
    expect(await stopped).toBe(0);
    expect(existsSync(lockFile(dir))).toBe(false);
  }, 60_000);
});

describe("start-up errors", () => {
  // Concurrent: these processes never open the database.
  it.concurrent.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://x"],
    ["OSPREY_LOG_LEVEL", "loud"],
    ["OSPREY_ALLOW_PRIVATE_HOSTS", "good.example,bad host!"],
  ])("%s=%s stops start-up with one line naming the variable, before touching the data dir", async (name, value) => {
    const dir = path.join(dataDir(), "data");
    const result = await runCli(["serve"], { PORT: "0", OSPREY_DATA_DIR: dir, [name]: value });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^osprey: invalid configuration: ${name} `));
    if (name === "DATABASE_URL") expect(lines[0]).not.toContain("mysql://x");
    expect(existsSync(dir)).toBe(false);
  });

  it("a port already in use gives one clear line and exit 1, and releases the data dir", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const dir = dataDir({ migrated: true });
      const result = await runCli(["serve"], { PORT: String(port), OSPREY_DATA_DIR: dir }, { timeoutMs: 120_000 });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      // Start-up progress (info logs) comes first; the error is the last line.
      expect(result.stderr).toMatch(/msg="schema is current; no migrations to apply"/);
      expect(result.stderr.endsWith(`\nosprey: port ${port} on 127.0.0.1 is already in use (set PORT to another one)\n`)).toBe(
        true,
      );
      expect(readdirSync(dir)).not.toContain("osprey.lock");
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 150_000);
});

describe.runIf(TEST_DATABASE_URL)("osprey serve on Postgres (DATABASE_URL)", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let env: Record<string, string>;
  let server: RunningServer;
  beforeAll(async () => {
    // Not from the migrated template: the server applies the migrations at start-up.
    database = await createPostgresDatabase({ fromTemplate: false });
    env = { PORT: "0", OSPREY_DATA_DIR: dataDir(), DATABASE_URL: database.url, OSPREY_SHUTDOWN_TIMEOUT_MS: SHUTDOWN_TIMEOUT_MS };
    server = await startServer(env);
  });
  afterAll(async () => {
    await killChildren();
    await database?.drop();
  });

  it("migrates a fresh database, and keys created by the CLI beside it work at once", async () => {
    expect(server.stdout()).toMatch(new RegExp(`^ {2}database {4}postgres \\(.*/${database.name}\\)$`, "m"));
    const first = keysIn(server.stdout());
    expect(first).toHaveLength(1);
    expect((await getAccount(server.url, first[0] as string)).status).toBe(200);

    const created = await runCli(["keys", "create", "--plan", "starter", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const { key, account_id } = JSON.parse(created.stdout);
    const res = await getAccount(server.url, key);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: account_id, plan: "starter" });
  }, 60_000);

  it("lets a request blocked in the database when SIGTERM arrives complete", async () => {
    const created = await runCli(["keys", "create", "--json"], env);
    const { key, key_id } = JSON.parse(created.stdout);
    const client = new pg.Client({ connectionString: database.url });
    const monitor = new pg.Client({ connectionString: database.url });
    await Promise.all([client.connect(), monitor.connect()]);
    try {
      // The key has never been used, so authenticating it updates its row: hold that row's lock.
      await client.query("begin");
      await client.query("select id from api_keys where id = $1 for update", [key_id]);
      let failure: unknown = null;
      const pending = getAccount(server.url, key);
      pending.catch((err) => {
        failure = err;
      });
      // Polled outside the locking transaction: pg_stat_activity is a snapshot within a transaction.
      await waitFor(async () => {
        const { rows } = await monitor.query(
          "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike 'update%api_keys%'",
        );
        if (failure) throw new Error(`the request failed: ${failure}\n${server.stderr()}`);
        return rows.length > 0;
      });
      const stopped = server.stop("SIGTERM");
      await server.waitForStderr(/msg="shutting down" signal=SIGTERM/);
      let exited = false;
      void server.exited.then(() => {
        exited = true;
      });
      await client.query("rollback");
      expect(exited).toBe(false);
      const res = await pending;
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ plan: "free" });
      expect(await stopped).toBe(0);
    } finally {
      await Promise.all([client.end(), monitor.end()]);
    }
  }, 60_000);
});

/** Polls `check` until it holds (for conditions no process reports as an event). */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
