import http from "node:http";
import type net from "node:net";
import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WsClient from "ws";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { startCanary } from "../helpers/proxy-client.ts";
import { type SessionServer, startSessionServer } from "../helpers/session-server.ts";
import { chromeAvailable } from "../helpers/test-session.ts";
import { startUpstreamProxy, type UpstreamProxyFixture } from "../helpers/upstream-proxy.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

/**
 * Remote browser sessions end to end (issue [2 of 6], spec 2.4, 3.2, 4.5): the real server, the real
 * session host with its warm pool and egress proxy, and the two client libraries users connect
 * with. Pages come from a loopback origin the tests start (exempted from the address policy by
 * host:port, as OSPREY_ALLOW_PRIVATE_HOSTS does); every other loopback port is refused, so a
 * canary on one proves what the browser could not reach.
 */

const hasChrome = chromeAvailable("browser session CDP tests");

interface Session {
  session_id: string;
  status: string;
  mode: string;
  cdp_url: string;
  live_view_url: string;
  end_reason: string | null;
  duration_ms: number | null;
  proxy_trg_rx_bytes: number | null;
  proxy_trg_tx_bytes: number | null;
}

/** An origin that counts every byte it writes and reads, per connection, once the connection closes. */
async function startCountingOrigin() {
  let written = 0;
  let read = 0;
  const open = new Set<net.Socket>();
  const big = "x".repeat(200_000);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/big") {
      res.writeHead(200, { "content-type": "text/html" });
      return void res.end(`<!doctype html><title>big</title><body><pre>${big}</pre></body>`);
    }
    if (path === "/cookie") {
      res.writeHead(200, { "content-type": "text/html", "set-cookie": "who=first; Max-Age=3600; Path=/" });
      return void res.end("<title>cookie</title><body>set</body>");
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>origin</title><body><h1 id="h">hello ${path}</h1></body>`);
  });
  server.on("connection", (s: net.Socket) => {
    open.add(s);
    s.once("close", () => {
      open.delete(s);
      written += s.bytesWritten;
      read += s.bytesRead;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    /** Bytes so far, open connections included. */
    bytes: () => {
      let w = written;
      let r = read;
      for (const s of open) {
        w += s.bytesWritten;
        r += s.bytesRead;
      }
      return { written: w, read: r };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A raw CDP client: one command, its answer. */
async function rawCdp(url: string, headers: Record<string, string> = {}) {
  const ws = new WsClient(url, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  let id = 0;
  return {
    ws,
    send(method: string, params: Record<string, unknown> = {}): Promise<{ result?: unknown; error?: { message: string } }> {
      const mine = ++id;
      ws.send(JSON.stringify({ id: mine, method, params }));
      return new Promise((resolve) => {
        const on = (data: WsClient.RawData) => {
          const msg = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
          if (msg.id !== mine) return;
          ws.off("message", on);
          resolve(msg);
        };
        ws.on("message", on);
      });
    },
    closed: new Promise<number>((resolve) => ws.once("close", (code) => resolve(code))),
  };
}

/** The status an upgrade is refused with (or "open"). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number | "open"> {
  return new Promise((resolve) => {
    const ws = new WsClient(url, { headers });
    ws.once("open", () => {
      ws.terminate();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", () => {});
  });
}

describe.skipIf(!hasChrome).each(driverCases(["pglite", "pg"]))("remote browser sessions over CDP on $driver", ({ open }) => {
  let db: TestDatabase;
  let srv: SessionServer;
  let origin: Awaited<ReturnType<typeof startCountingOrigin>>;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let keyA: string;
  let keyB: string;

  const create = async (key: string, body: unknown = {}) => {
    const res = await srv.ctx.postJson(key, "/browser", body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as Session;
  };
  const get = async (key: string, id: string) => (await (await srv.ctx.call(key, `/browser/${id}`)).json()) as Session;
  const del = (key: string, id: string) => srv.ctx.call(key, `/browser/${id}`, { method: "DELETE" });

  beforeAll(async () => {
    db = await open();
    origin = await startCountingOrigin();
    canary = await startCanary();
    srv = await startSessionServer(db.db, {
      allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }],
      host: { warmPool: 2 },
    });
    ({ key: keyA } = await srv.ctx.newKey({ plan: "pro" }));
    ({ key: keyB } = await srv.ctx.newKey({ plan: "pro" }));
    await srv.host.pool.filled();
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await origin?.close();
    await canary?.close();
    await db?.dispose();
  });

  it("puppeteer-core drives a session; DELETE ends it and the usage record has its duration and the bytes the origin served (within 5 %)", async () => {
    const s = await create(keyA, { viewport: { width: 1024, height: 700 } });
    expect(s.cdp_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/browser\/bs_[0-9a-z]+\/cdp\?token=[A-Za-z0-9]{32}$/);
    const before = origin.bytes();
    const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    await page.goto(`${origin.url}/big`);
    expect(await page.title()).toBe("big");
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([1024, 700]);
    expect((await get(keyA, s.session_id)).status).toBe("running");

    const disconnected = new Promise<void>((resolve) => browser.once("disconnected", () => resolve()));
    expect((await del(keyA, s.session_id)).status).toBe(204);
    await disconnected;
    // Idempotent (spec 3.2): still 204 once ended.
    expect((await del(keyA, s.session_id)).status).toBe(204);

    const ended = await get(keyA, s.session_id);
    expect(ended).toMatchObject({ status: "ended", end_reason: "deleted", cdp_url: null, live_view_url: null });
    expect(ended.duration_ms).toBeGreaterThan(0);
    const served = origin.bytes();
    const rx = ended.proxy_trg_rx_bytes ?? 0;
    const tx = ended.proxy_trg_tx_bytes ?? 0;
    const originWrote = served.written - before.written;
    const originRead = served.read - before.read;
    expect(originWrote).toBeGreaterThan(200_000);
    expect(Math.abs(rx - originWrote) / originWrote).toBeLessThan(0.05);
    expect(Math.abs(tx - originRead) / originRead).toBeLessThan(0.05);

    const usage = (await (await srv.ctx.call(keyA, `/browser/usage?session_id=${s.session_id}`)).json()) as {
      items: Record<string, unknown>[];
    };
    expect(usage.items).toHaveLength(1);
    expect(usage.items[0]).toMatchObject({
      session_id: s.session_id,
      status: "ended",
      mode: "light",
      proxy_trg_rx_bytes: rx,
      proxy_trg_tx_bytes: tx,
      duration_ms: ended.duration_ms,
    });
    expect(Object.keys(usage.items[0] ?? {}).sort()).toEqual(
      [
        "created_at",
        "duration_ms",
        "end_time",
        "mode",
        "proxy_trg_rx_bytes",
        "proxy_trg_tx_bytes",
        "session_id",
        "start_time",
        "status",
        "sub_user_id",
        "updated_at",
        "user_id",
      ].sort(),
    );
  }, 60_000);

  it("playwright-core's connectOverCDP drives a session, and a context it creates is held to the session's egress proxy", async () => {
    const s = await create(keyA);
    const browser = await chromium.connectOverCDP(s.cdp_url);
    const context = browser.contexts()[0];
    if (!context) throw new Error("no default context");
    const page = await context.newPage();
    await page.goto(`${origin.url}/pw`);
    expect(await page.textContent("#h")).toBe("hello /pw");

    // A new context (Target.createBrowserContext) goes through the same proxy: the origin works, the canary is refused.
    const fresh = await browser.newContext();
    const p2 = await fresh.newPage();
    await p2.goto(`${origin.url}/fresh`);
    expect(await p2.textContent("#h")).toBe("hello /fresh");
    expect(
      await p2.evaluate(
        (u) =>
          fetch(u).then(
            () => "reached",
            () => "refused",
          ),
        `http://127.0.0.1:${canary.port}/`,
      ),
    ).toBe("refused");
    await expect(p2.goto(`http://127.0.0.1:${canary.port}/`)).rejects.toThrow();
    expect(canary.connections()).toBe(0);
    // Playwright's own proxy option for a context is refused rather than silently replaced.
    await expect(browser.newContext({ proxy: { server: "http://127.0.0.1:1" } })).rejects.toThrow(/proxy/);

    // Playwright's close() of a CDP-connected browser only disconnects: the session stays open for
    // another client until DELETE (or its inactivity timeout).
    await browser.close();
    expect((await get(keyA, s.session_id)).status).toBe("running");
    expect((await del(keyA, s.session_id)).status).toBe(204);
    expect((await get(keyA, s.session_id)).end_reason).toBe("deleted");
  }, 60_000);

  it("two accounts' sessions run at once in separate processes and cannot see or reach each other", async () => {
    const [a, b] = await Promise.all([create(keyA), create(keyB)]);
    const [ba, bb] = await Promise.all([
      puppeteer.connect({ browserWSEndpoint: a.cdp_url, defaultViewport: null }),
      puppeteer.connect({ browserWSEndpoint: b.cdp_url, defaultViewport: null }),
    ]);
    const pa = await ba.newPage();
    await pa.goto(`${origin.url}/cookie`);
    await pa.evaluate(() => localStorage.setItem("secret", "of-a"));
    const pb = await bb.newPage();
    await pb.goto(`${origin.url}/other`);
    expect(await pb.evaluate(() => [document.cookie, localStorage.getItem("secret")])).toEqual(["", null]);
    expect((await bb.pages()).map((p) => p.url())).not.toContain(`${origin.url}/cookie`);
    const browserPid = async (b: typeof ba) =>
      (await (await b.target().createCDPSession()).send("SystemInfo.getProcessInfo")).processInfo.find(
        (p) => p.type === "browser",
      )?.id;
    expect(await browserPid(ba)).not.toBe(await browserPid(bb));

    // Another account: 404 for the session, its DELETE and its CDP URL with that account's key.
    expect((await srv.ctx.call(keyB, `/browser/${a.session_id}`)).status).toBe(404);
    expect((await del(keyB, a.session_id)).status).toBe(404);
    const bare = a.cdp_url.split("?")[0] as string;
    expect(await upgradeStatus(bare, { "x-api-key": keyB })).toBe(404);
    // B's token does not open A's session; no credential is a 401; a wrong key is a 401.
    expect(await upgradeStatus(`${bare}?token=${b.cdp_url.split("token=")[1]}`)).toBe(404);
    expect(await upgradeStatus(bare)).toBe(401);
    expect(await upgradeStatus(bare, { "x-api-key": "osk_nope" })).toBe(401);
    // The owner's key works without the token.
    expect(await upgradeStatus(bare, { "x-api-key": keyA })).toBe("open");

    await ba.disconnect();
    await bb.disconnect();
    await Promise.all([del(keyA, a.session_id), del(keyB, b.session_id)]);
  }, 60_000);

  it("refuses CDP methods that reach past the session's browser, and Browser.close ends the session", async () => {
    const s = await create(keyA);
    const cdp = await rawCdp(s.cdp_url);
    for (const [method, params] of [
      ["Browser.crash", {}],
      ["Target.exposeDevToolsProtocol", { targetId: "x" }],
      ["Target.setRemoteLocations", { locations: [{ host: "169.254.169.254", port: 80 }] }],
      ["Tethering.bind", { port: 9999 }],
      ["DOM.setFileInputFiles", { files: ["/etc/passwd"] }],
      ["Target.createBrowserContext", { proxyServer: "http://127.0.0.1:1" }],
      ["Target.createTarget", { url: "file:///etc/passwd" }],
      ["Extensions.loadUnpacked", { path: "/tmp" }],
      [
        "Input.dispatchDragEvent",
        { type: "drop", x: 1, y: 1, data: { items: [], files: ["/etc/passwd"], dragOperationsMask: 1 } },
      ],
      ["Tracing.start", { tracingBackend: "system" }],
    ] as const) {
      const answer = await cdp.send(method, params);
      expect(answer.error?.message, method).toMatch(/not allowed in an Osprey session/);
    }
    // A download the client allows lands in the session's own directory, whatever path it names.
    expect((await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: "/etc" })).error).toBeUndefined();
    // Ordinary commands pass.
    const version = await cdp.send("Browser.getVersion");
    expect((version.result as { product: string }).product).toMatch(/Chrome/);
    const created = await cdp.send("Target.createBrowserContext");
    expect((created.result as { browserContextId: string }).browserContextId).toBeTruthy();

    const answer = await cdp.send("Browser.close");
    expect(answer.error).toBeUndefined();
    expect(await cdp.closed).toBe(4000);
    const ended = await waitFor(async () => {
      const row = await get(keyA, s.session_id);
      return row.status === "ended" ? row : null;
    });
    expect(ended.end_reason).toBe("browser_close");
  }, 60_000);

  it("the egress proxy refuses private, loopback and metadata targets to every kind of page request; a canary gets nothing", async () => {
    const s = await create(keyA);
    const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
    const page = await browser.newPage();
    await page.goto(`${origin.url}/attack`);
    const targets = [
      `http://127.0.0.1:${canary.port}/`,
      `http://localhost:${canary.port}/`,
      `http://[::ffff:127.0.0.1]:${canary.port}/`,
      `http://2130706433:${canary.port}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "http://192.168.1.1/",
      "http://[::1]/",
    ];
    const outcomes = await page.evaluate(async (urls) => {
      const out: string[] = [];
      for (const u of urls) {
        try {
          const r = await fetch(u, { mode: "no-cors" });
          out.push(`fetched ${u} ${r.type}`);
        } catch {
          out.push("refused");
        }
        await new Promise<void>((resolve) => {
          const ws = new WebSocket(u.replace(/^http/, "ws"));
          ws.onopen = () => {
            out.push(`ws open ${u}`);
            ws.close();
            resolve();
          };
          ws.onerror = () => resolve();
        });
        await new Promise<void>((resolve) => {
          const img = new Image();
          img.onload = () => {
            out.push(`img ${u}`);
            resolve();
          };
          img.onerror = () => resolve();
          img.src = u;
        });
      }
      return out;
    }, targets);
    expect(
      outcomes.every((o) => o === "refused"),
      outcomes.join("\n"),
    ).toBe(true);
    for (const u of targets) await expect(page.goto(u)).rejects.toThrow();
    expect(canary.connections()).toBe(0);
    await browser.disconnect();
    await del(keyA, s.session_id);
  }, 90_000);

  it("never reuses a browser: cookies, storage and permissions of one session are gone in the next, on another process", async () => {
    const first = await create(keyA);
    const b1 = await puppeteer.connect({ browserWSEndpoint: first.cdp_url, defaultViewport: null });
    const p1 = await b1.newPage();
    await p1.goto(`${origin.url}/cookie`);
    await p1.evaluate(() => {
      localStorage.setItem("k", "v");
      sessionStorage.setItem("k", "v");
    });
    await b1.defaultBrowserContext().overridePermissions(origin.url, ["geolocation"]);
    const pid1 = (await (await b1.target().createCDPSession()).send("SystemInfo.getProcessInfo")).processInfo.find(
      (p) => p.type === "browser",
    )?.id;
    await b1.disconnect();
    await del(keyA, first.session_id);

    const second = await create(keyA);
    const b2 = await puppeteer.connect({ browserWSEndpoint: second.cdp_url, defaultViewport: null });
    const p2 = await b2.newPage();
    await p2.goto(`${origin.url}/check`);
    expect(
      await p2.evaluate(async () => [
        document.cookie,
        localStorage.getItem("k"),
        sessionStorage.getItem("k"),
        (await navigator.permissions.query({ name: "geolocation" })).state,
      ]),
    ).toEqual(["", null, null, "prompt"]);
    const pid2 = (await (await b2.target().createCDPSession()).send("SystemInfo.getProcessInfo")).processInfo.find(
      (p) => p.type === "browser",
    )?.id;
    expect(pid1).toBeTruthy();
    expect(pid2).not.toBe(pid1);
    if (pid1) expect(await processGone(pid1)).toBe(true);
    await b2.disconnect();
    await del(keyA, second.session_id);
  }, 60_000);

  it("the live view shows the session's page while it is open, and nothing once it ended", async () => {
    const s = await create(keyA);
    const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    await page.goto(`${origin.url}/live`);
    const path = new URL(s.live_view_url).pathname;
    const html = await srv.ctx.app.request(path);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-security-policy")).toContain("default-src 'none'");
    const frame = await waitFor(async () => {
      const r = await srv.ctx.app.request(`${path}/frame`);
      return r.status === 200 ? r : null;
    });
    expect(frame.headers.get("content-type")).toBe("image/jpeg");
    expect((await frame.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    await browser.disconnect();
    await del(keyA, s.session_id);
    expect((await srv.ctx.app.request(path)).status).toBe(404);
    expect((await srv.ctx.app.request(`${path}/frame`)).status).toBe(404);
  }, 60_000);
});

describe.skipIf(!hasChrome).each(driverCases(["pglite"]))(
  "stealth sessions behind a managed country proxy on $driver",
  ({ open }) => {
    let db: TestDatabase;
    let srv: SessionServer;
    let origin: Awaited<ReturnType<typeof startCountingOrigin>>;
    let upstream: UpstreamProxyFixture;
    let custom: UpstreamProxyFixture;
    let key: string;

    beforeAll(async () => {
      db = await open();
      origin = await startCountingOrigin();
      upstream = await startUpstreamProxy({ user: "osprey", password: "p@ss word" });
      custom = await startUpstreamProxy({ user: "me", password: "mine" });
      srv = await startSessionServer(db.db, {
        // The caller's own proxy is judged like any destination: exempted here so it may be on loopback.
        allowPrivateHosts: [
          { host: "127.0.0.1", port: origin.port },
          { host: "127.0.0.1", port: custom.port },
        ],
        // An operator's proxy is trusted, wherever it is (here on loopback).
        browser: { countryProxies: { DE: upstream.urlWithCredentials() } },
        host: { warmPool: 1 },
      });
      ({ key } = await srv.ctx.newKey({ plan: "pro" }));
    }, 60_000);

    afterAll(async () => {
      await srv?.close();
      await upstream?.close();
      await custom?.close();
      await origin?.close();
      await db?.dispose();
    });

    const open2 = async (seed: string) => {
      const res = await srv.ctx.postJson(key, "/browser", {
        mode: "stealth",
        fingerprint_seed: seed,
        proxy_config: { type: "managed", country_code: "DE" },
      });
      expect(res.status).toBe(201);
      const s = (await res.json()) as Session;
      const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
      const page = await browser.newPage();
      await page.goto(`${origin.url}/stealth`);
      const seen = await page.evaluate(() => ({
        webdriver: navigator.webdriver,
        ua: navigator.userAgent,
        tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
        lang: navigator.language,
        screen: [screen.width, screen.height],
      }));
      await browser.disconnect();
      await srv.ctx.call(key, `/browser/${s.session_id}`, { method: "DELETE" });
      return { s, seen };
    };

    it("sends every request through the country's upstream with its credentials, with Germany's timezone and locale and no headless tells", async () => {
      const { s, seen } = await open2("seed-one");
      expect(s.mode).toBe("stealth");
      const via = upstream.requests.filter((r) => r.target.includes(`127.0.0.1:${origin.port}`));
      expect(via.length).toBeGreaterThan(0);
      expect(via.every((r) => r.proxyAuthorization === `Basic ${Buffer.from("osprey:p@ss word").toString("base64")}`)).toBe(true);
      expect(seen.webdriver).toBe(false);
      expect(seen.ua).not.toContain("HeadlessChrome");
      expect(seen.tz).toBe("Europe/Berlin");
      expect(seen.lang).toBe("de-DE");
      const usage = (await (await srv.ctx.call(key, `/browser/${s.session_id}`)).json()) as Session;
      expect(usage.proxy_trg_rx_bytes).toBeGreaterThan(0);
    }, 60_000);

    it("the same seed gives the same fingerprint in a new process; another seed another screen or agent", async () => {
      const a = await open2("seed-two");
      const b = await open2("seed-two");
      expect(b.seen).toEqual(a.seen);
      const seeds = ["x1", "x2", "x3", "x4", "x5"];
      const others = [];
      for (const seed of seeds) others.push((await open2(seed)).seen);
      expect(others.some((o) => JSON.stringify(o) !== JSON.stringify(a.seen))).toBe(true);
    }, 120_000);

    it("a custom proxy_config sends the session's traffic through the caller's proxy, whose URL is never shown", async () => {
      const url = custom.urlWithCredentials();
      const res = await srv.ctx.postJson(key, "/browser", { proxy_config: { type: "custom", url } });
      expect(res.status).toBe(201);
      const s = (await res.json()) as Session & { proxy: unknown };
      expect(s.proxy).toEqual({ type: "custom", country_code: null });
      expect(JSON.stringify(s)).not.toContain("mine");
      const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
      const page = await browser.newPage();
      await page.goto(`${origin.url}/custom`);
      expect(await page.title()).toBe("origin");
      expect(custom.requests.some((r) => r.target.includes(`127.0.0.1:${origin.port}`))).toBe(true);
      expect(custom.requests.every((r) => r.proxyAuthorization === `Basic ${Buffer.from("me:mine").toString("base64")}`)).toBe(
        true,
      );
      await browser.disconnect();
      await srv.ctx.call(key, `/browser/${s.session_id}`, { method: "DELETE" });
    }, 60_000);
  },
);
