import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { type EgressProxy, startEgressProxy } from "../../containers/browser/egress-proxy.ts";
import { createRunBrowserPool } from "../../containers/browser/run-browser.ts";
import type { RunBrowserPool } from "../../containers/browser/run-session.ts";
import { html, type Origin, startOrigin } from "../helpers/origin.ts";
import { connectVia, getOver, startCanary, viaProxy } from "../helpers/proxy-client.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";

/**
 * The egress proxy (issue 15, "agent browsers reach internal addresses"): it resolves names itself,
 * judges the address it will connect to and connects to that address, for plain requests, CONNECT
 * tunnels and upgrades; refusals are immediate network errors. Then Chromium behind it: WebSockets,
 * Workers, SharedWorkers and service workers reach nothing the policy refuses, and what is allowed
 * still works and is counted. The rebinding and metadata-address cases need addresses this host
 * does not have: they run in a network namespace (test/net/netns-ssrf.test.ts).
 */

const hasChrome = chromeAvailable("egress proxy tests");

describe("egress proxy", () => {
  let site: Origin;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let proxy: EgressProxy;
  const refused: string[] = [];
  const PAGE = "x".repeat(50_000);

  beforeAll(async () => {
    site = await startOrigin({ "/page": html(PAGE), "/echo-host": (req, res) => res.end(String(req.headers.host)) });
    canary = await startCanary();
    proxy = await startEgressProxy({
      allowPrivateHosts: [{ host: "127.0.0.1", port: site.port }],
      resolver: async (host) => {
        if (host === "site.example.com") return [{ address: "127.0.0.1", family: 4 }];
        if (host === "nowhere.example.com") throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
        return [{ address: "93.184.216.34", family: 4 }];
      },
      onRefused: (destination) => refused.push(destination),
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await site?.close();
    await canary?.close();
  });

  it("forwards an allowed plain request, keeps the Host header, reuses the connection and counts its bytes", async () => {
    const before = proxy.counters();
    const r = await viaProxy(proxy, `${site.url}/page`);
    expect(r?.status).toBe(200);
    expect(r?.body).toContain(PAGE);
    expect((await viaProxy(proxy, `${site.url}/echo-host`))?.body).toBe(`127.0.0.1:${site.port}`);
    const after = proxy.counters();
    // One connection to the judged address, kept alive for the second request.
    expect(after.connections - before.connections).toBe(1);
    // What the origin sent (body plus headers) arrived through the proxy, and nothing much more.
    expect(after.rxBytes - before.rxBytes).toBeGreaterThan(PAGE.length);
    expect(after.rxBytes - before.rxBytes).toBeLessThan(PAGE.length * 1.05);
    expect(after.txBytes - before.txBytes).toBeGreaterThan(0);
  });

  it("refuses loopback, private and metadata destinations with a network error, before connecting", async () => {
    const targets = [
      `http://127.0.0.1:${canary.port}/`,
      `http://localhost:${canary.port}/`,
      `http://[::1]:${canary.port}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "http://metadata.google.internal/",
      "http://0x7f000001/",
      // The name resolves to loopback (the site's own address, but only the literal is exempt).
      `http://site.example.com:${site.port}/page`,
    ];
    for (const url of targets) expect(await viaProxy(proxy, url), url).toBeNull();
    expect(canary.connections()).toBe(0);
    expect(refused.length).toBeGreaterThanOrEqual(targets.length);
  });

  it("refuses every CONNECT the policy refuses and tunnels the ones it allows", async () => {
    for (const authority of [
      `127.0.0.1:${canary.port}`,
      `localhost:${canary.port}`,
      "169.254.169.254:443",
      "[fd00:ec2::254]:80",
    ]) {
      const r = await connectVia(proxy, authority);
      expect(r.status, authority).toBe(403);
      r.socket.destroy();
    }
    expect(canary.connections()).toBe(0);
    const ok = await connectVia(proxy, `127.0.0.1:${site.port}`);
    expect(ok.status).toBe(200);
    expect(await getOver(ok.socket, `127.0.0.1:${site.port}`, "/echo-host")).toContain(`127.0.0.1:${site.port}`);
  });

  it("answers unresolvable names, dead ports and malformed requests at once", async () => {
    const dns = await connectVia(proxy, "nowhere.example.com:443");
    expect(dns.status).toBe(502);
    dns.socket.destroy();
    const closed = await startCanary();
    const port = closed.port;
    await closed.close();
    const tight = await startEgressProxy({ allowPrivateHosts: [{ host: "127.0.0.1", port }] });
    try {
      expect(await viaProxy(tight, `http://127.0.0.1:${port}/`)).toBeNull();
      const down = await connectVia(tight, `127.0.0.1:${port}`);
      expect(down.status).toBe(502);
      down.socket.destroy();
    } finally {
      await tight.close();
    }
    for (const authority of ["no-port", "a b:80", "[::1:80", "host:99999999", "user@host:80"]) {
      const r = await connectVia(proxy, authority).catch(() => null);
      if (r) {
        expect(r.status, authority).toBe(403);
        r.socket.destroy();
      }
    }
    // The proxy serves no pages of its own.
    const own = await new Promise<number>((resolve) =>
      http.get({ host: "127.0.0.1", port: proxy.port, path: "/", agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }),
    );
    expect(own).toBe(400);
    // A raw garbage line does not hurt it.
    const raw = net.connect(proxy.port, "127.0.0.1");
    raw.on("error", () => {});
    raw.end("\u0000\u0001garbage\r\n\r\n");
    expect((await viaProxy(proxy, `${site.url}/echo-host`))?.status).toBe(200);
  });
});

describe.skipIf(!hasChrome)("Chromium behind the egress proxy", () => {
  let site: Origin;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let wsServer: http.Server;
  let wsPort: number;
  let pool: RunBrowserPool;

  beforeAll(async () => {
    canary = await startCanary();
    const C = `127.0.0.1:${canary.port}`;
    wsServer = http.createServer();
    const wss = new WebSocketServer({ server: wsServer });
    wss.on("connection", (ws) => ws.on("message", (m) => ws.send(`echo:${String(m)}`)));
    await new Promise<void>((resolve) => wsServer.listen(0, "127.0.0.1", resolve));
    wsPort = (wsServer.address() as net.AddressInfo).port;
    const js = (body: string) => (_req: http.IncomingMessage, res: http.ServerResponse) =>
      res.writeHead(200, { "content-type": "text/javascript" }).end(body);
    site = await startOrigin({
      // Every way a page script opens a connection, each aimed at the canary; one allowed WebSocket.
      "/attack": html(`<h1>attack</h1><script>
        const results = {};
        const settle = (name, p) => p.then((v) => (results[name] = "ok:" + v), (e) => (results[name] = "failed"));
        const ws = (url) => new Promise((res, rej) => { const s = new WebSocket(url); s.onopen = () => { s.send("hi"); }; s.onmessage = (m) => res(m.data); s.onerror = () => rej(new Error("ws")); });
        settle("ws_canary", ws("ws://${C}/"));
        settle("ws_localhost", ws("ws://localhost:${canary.port}/"));
        settle("ws_allowed", ws("ws://127.0.0.1:${wsPort}/"));
        settle("fetch_canary", fetch("http://${C}/x").then((r) => r.text()));
        settle("fetch_metadata", fetch("http://169.254.169.254/latest/meta-data/").then((r) => r.text()));
        settle("worker", new Promise((res, rej) => { const w = new Worker("/worker.js"); w.onmessage = (m) => res(m.data); w.onerror = rej; }));
        settle("shared_worker", new Promise((res, rej) => { const w = new SharedWorker("/shared.js"); w.port.onmessage = (m) => res(m.data); w.onerror = rej; }));
        settle("service_worker", navigator.serviceWorker.register("/sw.js").then(() => "registered"));
        window.results = results;
      </script>`),
      "/worker.js": js(
        `Promise.allSettled([fetch("http://${C}/w"), new Promise((res, rej) => { const s = new WebSocket("ws://${C}/"); s.onopen = res; s.onerror = rej; })]).then((r) => postMessage(r.map((x) => x.status).join(",")));`,
      ),
      "/shared.js": js(
        `onconnect = (e) => { const port = e.ports[0]; fetch("http://${C}/s").then(() => port.postMessage("fetched"), () => port.postMessage("refused")); };`,
      ),
      "/sw.js": js(`self.addEventListener("install", (e) => e.waitUntil(fetch("http://${C}/sw").catch(() => null)));`),
    });
    pool = createRunBrowserPool({
      executablePath: CHROME,
      allowPrivateHosts: [
        { host: "127.0.0.1", port: site.port },
        { host: "127.0.0.1", port: wsPort },
      ],
    });
  });
  afterAll(async () => {
    await pool?.close();
    await site?.close();
    await canary?.close();
    await new Promise<void>((resolve) => (wsServer ? wsServer.close(() => resolve()) : resolve()));
  });

  it("WebSockets, Workers, SharedWorkers and service workers reach nothing the policy refuses", async () => {
    const s = await pool.open();
    try {
      const page = s.activePage();
      await page.goto(`${site.url}/attack`);
      await page.waitForFunction(() => Object.keys((window as unknown as { results: object }).results).length >= 8, {
        timeout: 15_000,
      });
      const results = await page.evaluate(() => (window as unknown as { results: Record<string, string> }).results);
      expect(results.ws_allowed).toBe("ok:echo:hi");
      expect(results.ws_canary).toBe("failed");
      expect(results.ws_localhost).toBe("failed");
      expect(results.fetch_canary).toBe("failed");
      expect(results.fetch_metadata).toBe("failed");
      expect(results.worker).toBe("ok:rejected,rejected");
      expect(results.shared_worker).toBe("ok:refused");
      expect(canary.connections()).toBe(0);
      // The allowed traffic went through the session's own proxy, and is counted there.
      const egress = s.egress();
      expect(egress.connections).toBeGreaterThan(0);
      expect(egress.rxBytes).toBeGreaterThan(0);
      expect(egress.refused).toBeGreaterThan(0);
      expect(s.blocked().some((b) => b.url.includes(String(canary.port)))).toBe(true);
    } finally {
      await s.close();
    }
    expect(canary.connections()).toBe(0);
  });
});
