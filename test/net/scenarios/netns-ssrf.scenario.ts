import { createServer } from "node:http";
import { createRunBrowserPool } from "../../../containers/browser/run-browser.ts";
import { sendWebhook } from "../../../containers/webhooks/send.ts";
import { CANARY_SECRET, startCanaries } from "../../helpers/netns/canary.ts";
import { PUBLIC_ORIGIN } from "../../helpers/netns/netns.ts";
import { attempt, report } from "../../helpers/netns/scenario.ts";
import { startStubDns } from "../../helpers/netns/stub-dns.ts";
import { startServer, tempDir } from "../../helpers/process.ts";

/**
 * Issue 15's SSRF matrix, inside a network namespace (test/net/netns-ssrf.test.ts asserts on the
 * report). Canaries listen on the metadata, private and loopback addresses; a public stand-in
 * origin (93.184.216.34 on lo) serves pages that attack them. Every path that makes Osprey connect
 * somewhere is tried against every kind of target, and the report counts attempts per path and
 * canary connections (which must be 0), and whether any answer carried the canary's secret:
 *
 * - fetch: POST /fetch on the real server (literals, names resolving inward, a name with one
 *   public and one private answer, redirects inward, and DNS rebinding names);
 * - render: POST /fetch of a page that needs scripts, rendered in the server's Chromium, whose
 *   scripts attack every target (fetch, img, iframe, WebSocket, Worker);
 * - run browser: the pool automation runs use (createRunBrowserPool), a page whose scripts attack
 *   with fetch, XHR, img, iframe, WebSocket, Worker, SharedWorker, service worker and WebRTC (STUN
 *   to UDP canaries), plus direct navigations, with names that rebind from public to metadata
 *   between the browser guard's check and the connection;
 * - webhook: sendWebhook (the dispatcher's sender) to every https target.
 */

const ORIGIN_HOST = "origin.ssrf.example";
const dns = await startStubDns();
dns.set(ORIGIN_HOST, { A: [PUBLIC_ORIGIN.v4] });
dns.set("meta.ssrf.example", { A: ["169.254.169.254"] });
dns.set("ecs.ssrf.example", { A: ["169.254.170.2"] });
dns.set("private.ssrf.example", { A: ["10.0.0.1"] });
dns.set("lan.ssrf.example", { A: ["192.168.1.1"] });
dns.set("cgnat.ssrf.example", { A: ["100.64.0.1"] });
dns.set("loop.ssrf.example", { A: ["127.0.0.1"] });
dns.set("v6meta.ssrf.example", { AAAA: ["fd00:ec2::254"] });
dns.set("v6ula.ssrf.example", { AAAA: ["fd00::1"] });
dns.set("mixed.ssrf.example", { A: [PUBLIC_ORIGIN.v4, "169.254.169.254"] });
dns.set("mapped.ssrf.example", { AAAA: ["::ffff:169.254.169.254"] });

/** A fresh name that answers public `publicAnswers` times, then the metadata address (DNS rebinding). */
let rebinds = 0;
function rebindName(publicAnswers = 1, inward = "169.254.169.254"): string {
  const name = `rebind${++rebinds}.ssrf.example`;
  dns.set(name, { A: [...Array.from({ length: publicAnswers }, () => [PUBLIC_ORIGIN.v4]), [inward]] });
  return name;
}

const INWARD_HOSTS = ["169.254.169.254", "169.254.170.2", "10.0.0.1", "192.168.1.1", "172.16.0.1", "100.64.0.1"];
const canaries = await startCanaries([
  ...INWARD_HOSTS.flatMap((host) => [
    { host, port: 80 },
    { host, port: 443 },
  ]),
  { host: "fd00:ec2::254", port: 80 },
  { host: "fd00:ec2::254", port: 443 },
  { host: "fd00::1", port: 80 },
  { host: "127.0.0.1", port: 80 },
  { host: "127.0.0.1", port: 443 },
  { host: "::1", port: 80 },
  { host: "10.0.0.1", port: 3478, udp: true },
  { host: "169.254.169.254", port: 3478, udp: true },
]);

/** Targets every path tries: literal addresses, names that resolve inward, and odd spellings. */
const STATIC_TARGETS = [
  "169.254.169.254",
  "169.254.170.2",
  "10.0.0.1",
  "192.168.1.1",
  "172.16.0.1",
  "100.64.0.1",
  "127.0.0.1",
  "[::1]",
  "[fd00:ec2::254]",
  "[::ffff:169.254.169.254]",
  "0xa9fea9fe", // 169.254.169.254 in hex
  "2852039166", // and as one decimal number
  "localhost",
  "meta.ssrf.example",
  "ecs.ssrf.example",
  "private.ssrf.example",
  "lan.ssrf.example",
  "cgnat.ssrf.example",
  "loop.ssrf.example",
  "v6meta.ssrf.example",
  "v6ula.ssrf.example",
  "mixed.ssrf.example",
  "mapped.ssrf.example",
  "metadata.google.internal",
];

// The public stand-in origin: pages, redirects, and the attack pages whose scripts aim inward.
const origin = createServer((req, res) => {
  const url = new URL(req.url ?? "/", `http://${ORIGIN_HOST}`);
  if (url.pathname === "/redirect") {
    res.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end();
    return;
  }
  if (url.pathname === "/attack" || url.pathname === "/app") {
    const targets = JSON.parse(url.searchParams.get("t") ?? "[]") as string[];
    res.writeHead(200, { "content-type": "text/html" }).end(attackPage(targets, url.pathname === "/app"));
    return;
  }
  if (url.pathname.endsWith(".js")) {
    const targets = JSON.parse(url.searchParams.get("t") ?? "[]") as string[];
    res.writeHead(200, { "content-type": "text/javascript" }).end(workerScript(url.pathname, targets));
    return;
  }
  res
    .writeHead(200, { "content-type": "text/html" })
    .end("<html><body><article><h1>Public</h1><p>public page</p></article></body></html>");
});
await new Promise<void>((resolve) => origin.listen(80, PUBLIC_ORIGIN.v4, resolve));

/** Script shared by the attack pages: each target is tried every way a page can connect. */
function attackScript(targets: string[]): string {
  return `
  const T = ${JSON.stringify(targets)};
  const q = encodeURIComponent(JSON.stringify(T));
  const tries = [];
  const go = (p) => tries.push(Promise.resolve().then(p).then(() => "ok", () => "failed"));
  for (const h of T) {
    go(() => fetch("http://" + h + "/latest/meta-data/", { mode: "no-cors" }));
    go(() => fetch("https://" + h + "/", { mode: "no-cors" }));
    go(() => new Promise((res, rej) => { const x = new XMLHttpRequest(); x.open("GET", "http://" + h + "/x"); x.onload = res; x.onerror = rej; x.send(); }));
    go(() => new Promise((res, rej) => { const i = new Image(); i.onload = res; i.onerror = rej; i.src = "http://" + h + "/i.png"; }));
    go(() => new Promise((res) => { const f = document.createElement("iframe"); f.src = "http://" + h + "/frame"; f.onload = res; document.body.appendChild(f); setTimeout(res, 1500); }));
    go(() => new Promise((res, rej) => { try { const s = new WebSocket("ws://" + h + "/ws"); s.onopen = res; s.onerror = rej; } catch (e) { rej(e); } }));
    go(() => new Promise((res, rej) => { try { const s = new WebSocket("wss://" + h + "/ws"); s.onopen = res; s.onerror = rej; } catch (e) { rej(e); } }));
  }
  go(() => new Promise((res, rej) => { const w = new Worker("/worker.js?t=" + q); w.onmessage = res; w.onerror = rej; }));
  go(() => new Promise((res, rej) => { try { const w = new SharedWorker("/shared.js?t=" + q); w.port.onmessage = res; w.onerror = rej; } catch (e) { rej(e); } }));
  go(() => navigator.serviceWorker ? navigator.serviceWorker.register("/sw.js?t=" + q) : Promise.reject(new Error("no sw")));
  go(() => new Promise((res, rej) => {
    try {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: ["stun:10.0.0.1:3478", "stun:169.254.169.254:3478", "turn:10.0.0.1:3478?transport=udp"], username: "u", credential: "p" }] });
      pc.createDataChannel("x");
      pc.onicecandidate = (e) => { if (!e.candidate) res(); };
      pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(rej);
      setTimeout(res, 3000);
    } catch (e) { rej(e); }
  }));
  window.attackDone = Promise.allSettled(tries).then((r) => r.length);`;
}

function attackPage(targets: string[], needsRender: boolean): string {
  const body = needsRender
    ? `<div id="root"></div><script>document.getElementById("root").innerHTML = "<article><h1>Rendered</h1><p>" + "A paragraph only a browser can read. ".repeat(6) + "</p></article>";</script>`
    : "<h1>attack</h1>";
  return `<!doctype html><html><head><title>attack</title></head><body>${body}<script>${attackScript(targets)}</script></body></html>`;
}

function workerScript(path: string, targets: string[]): string {
  const hits = `Promise.allSettled(${JSON.stringify(targets)}.flatMap((h) => [fetch("http://" + h + "/w"), fetch("https://" + h + "/w"), new Promise((res, rej) => { const s = new WebSocket("ws://" + h + "/w"); s.onopen = res; s.onerror = rej; })]))`;
  if (path === "/shared.js")
    return `onconnect = (e) => { const port = e.ports[0]; ${hits}.then(() => port.postMessage("done")); };`;
  if (path === "/sw.js") return `self.addEventListener("install", (e) => e.waitUntil(${hits}));`;
  return `${hits}.then(() => postMessage("done"));`;
}

const secretSeen: string[] = [];
const paths: Record<string, { attempts: number; errors: string[] }> = {};
const count = (path: string, n: number) => {
  paths[path] ??= { attempts: 0, errors: [] };
  (paths[path] as { attempts: number }).attempts += n;
};
const fail = (path: string, what: string) => {
  paths[path] ??= { attempts: 0, errors: [] };
  paths[path]?.errors.push(what);
};

// --- fetch and render, through the real server ------------------------------------------------
const data = tempDir("osprey-netns-ssrf-");
const server = await startServer({ PORT: "0", OSPREY_DATA_DIR: data.dir, OSPREY_SHUTDOWN_TIMEOUT_MS: "2000" });
const key = /osk_[A-Za-z0-9]{40}/.exec(server.stdout())?.[0] ?? "";

async function fetchApi(urls: string[], path: string): Promise<void> {
  for (let i = 0; i < urls.length; i += 10) {
    const batch = urls.slice(i, i + 10);
    const r = await attempt(async () => {
      const res = await fetch(`${server.url}/fetch`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ urls: batch, format: "html" }),
        signal: AbortSignal.timeout(60_000),
      });
      return { status: res.status, text: await res.text() };
    });
    count(path, batch.length);
    if (!r.ok) fail(path, `request failed: ${r.message}`);
    else {
      if (r.value.status !== 200) fail(path, `status ${r.value.status}: ${r.value.text.slice(0, 200)}`);
      if (r.value.text.includes(CANARY_SECRET)) secretSeen.push(`${path}: ${batch.join(" ")}`);
    }
  }
}

const fetchUrls: string[] = [];
for (const h of STATIC_TARGETS) {
  fetchUrls.push(`http://${h}/latest/meta-data/`, `https://${h}/`);
  fetchUrls.push(`http://${ORIGIN_HOST}/redirect?to=${encodeURIComponent(`http://${h}/latest/meta-data/`)}`);
}
// Rebinding: the name answers public for the first lookup(s), then inward.
for (let i = 0; i < 4; i++) fetchUrls.push(`http://${rebindName(1)}/`, `http://${rebindName(2)}/`);
await fetchApi(fetchUrls, "fetch");

// A page that needs scripts: rendered in the server's Chromium; its scripts attack every target.
const renderTargets = [...STATIC_TARGETS, ...Array.from({ length: 6 }, () => rebindName(1)), rebindName(2)];
const renderUrl = `http://${ORIGIN_HOST}/app?t=${encodeURIComponent(JSON.stringify(renderTargets))}`;
await fetchApi([renderUrl], "render");
// Each target is tried by fetch, XHR, img, iframe, ws and wss, plus the workers and WebRTC.
count("render", renderTargets.length * 7 - 1);

// --- the run browser pool (what automation runs drive) -----------------------------------------
const pool = createRunBrowserPool({ executablePath: process.env.CHROME_PATH ?? "/usr/bin/chromium", allowPrivateHosts: [] });
const browserTargets = [...STATIC_TARGETS, ...Array.from({ length: 11 }, () => rebindName(1)), rebindName(2)];
try {
  const session = await pool.open();
  const page = session.activePage();
  const attack = await attempt(async () => {
    await page.goto(`http://${ORIGIN_HOST}/attack?t=${encodeURIComponent(JSON.stringify(browserTargets))}`, {
      waitUntil: "domcontentloaded",
      timeout: 20_000,
    });
    return page.evaluate(() => (window as unknown as { attackDone: Promise<number> }).attackDone);
  });
  if (!attack.ok) fail("run browser", `attack page: ${attack.message}`);
  count("run browser", browserTargets.length * 7 + 4);
  // Direct navigations, as the agent's navigate action makes them.
  for (const h of [...STATIC_TARGETS, rebindName(1)]) {
    for (const url of [`http://${h}/latest/meta-data/`, `https://${h}/`]) {
      count("run browser", 1);
      const nav = await attempt(() => page.goto(url, { timeout: 10_000 }));
      if (nav.ok) {
        const text = await page.content().catch(() => "");
        if (text.includes(CANARY_SECRET)) secretSeen.push(`run browser: ${url}`);
      }
    }
  }
  const html = await page.content().catch(() => "");
  if (html.includes(CANARY_SECRET)) secretSeen.push("run browser: attack page");
  paths["run browser"] = { ...(paths["run browser"] ?? { attempts: 0, errors: [] }), egress: session.egress() } as never;
  await session.close();
} catch (err) {
  fail("run browser", err instanceof Error ? err.message : String(err));
} finally {
  await pool.close();
}

// --- webhooks ------------------------------------------------------------------------------------
for (const h of [...STATIC_TARGETS, rebindName(1), rebindName(1)]) {
  count("webhook", 1);
  const r = await sendWebhook({ url: `https://${h}/hook`, headers: {}, body: "{}", timeoutMs: 5_000, allow: [] });
  if (r.kind === "response") {
    fail("webhook", `https://${h}/hook answered ${r.status}`);
    if (r.body.toString().includes(CANARY_SECRET)) secretSeen.push(`webhook: ${h}`);
  }
}

const alive = await attempt(async () => (await fetch(`${server.url}/v1/account`, { headers: { "x-api-key": key } })).status);
await server.stop();
data.cleanup();
const hits = canaries.hits().filter((h) => h.count > 0);
report({
  paths,
  attempts: Object.values(paths).reduce((n, p) => n + p.attempts, 0),
  canaryConnections: canaries.total(),
  hits,
  secretSeen,
  serverAlive: alive.ok ? alive.value : alive.message,
  dnsQueries: dns.queries().length,
});
await canaries.close();
await dns.close();
origin.close();
process.exit(0);
