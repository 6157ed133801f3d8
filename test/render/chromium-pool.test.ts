import { execFileSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import { existsSync, readlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChromiumRenderer, createChromiumRenderer } from "../../containers/browser/chromium-pool.ts";
import type { RenderRequest, RenderResult } from "../../functions/fetch/renderer.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";
import { closedPort, html, type Origin, startOrigin } from "./origin.ts";

const hasChrome = chromeAvailable("render tests");
/** These renders load loopback origins the tests start: the egress proxy exempts 127.0.0.1 (any port). */
const LOOPBACK = {
  allowPrivateHosts: [{ host: "127.0.0.1", port: null }],
  // A name that now resolves to loopback: exempt only as the literal 127.0.0.1, so the proxy refuses it.
  resolver: async (host: string) =>
    host === "rebind.example.com" ? [{ address: "127.0.0.1", family: 4 }] : lookup(host, { all: true }),
};

/** Processes whose command line mentions `needle` (pgrep exits 1 when there are none). */
function processesMatching(needle: string): string[] {
  try {
    return execFileSync("pgrep", ["-f", needle], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

const expectOk = (r: RenderResult) => {
  if (!r.ok) throw new Error(`expected a rendered page, got ${r.error}: ${r.detail}`);
  return r;
};

describe.skipIf(!hasChrome)("Chromium renderer", () => {
  let site: Origin;
  let forbidden: Origin;
  let renderer: ChromiumRenderer;
  const gate = { open: false, release: () => {} };
  const released = new Promise<void>((resolve) => {
    gate.release = () => {
      gate.open = true;
      resolve();
    };
  });
  /** The address policy under test: everything but the forbidden origin's port. */
  const isAllowed = async (url: string) => new URL(url).port !== String(forbidden.port);
  const req = (path: string, extra: Partial<RenderRequest> = {}): RenderRequest => ({
    url: site.url(path),
    timeoutMs: 15_000,
    isAllowed,
    ...extra,
  });

  beforeAll(async () => {
    forbidden = await startOrigin({
      "/secret.js": (_q, res) => res.end("document.body.dataset.leak = 'yes'"),
      "/secret": html("<p>internal admin page</p>"),
    });
    const F = forbidden.url("").replace(/\/$/, "");
    site = await startOrigin({
      "/scripted": html(`<!doctype html><html><head><title>t</title></head><body><div id="root"></div>
        <script>
          alert("A dialog nobody answers must not stop the render");
          fetch("/api/items").then((r) => r.json()).then((items) => {
            document.getElementById("root").innerHTML =
              "<h1>Rendered by script</h1><ul>" + items.map((i) => "<li>" + i + "</li>").join("") + "</ul>";
          });
        </script></body></html>`),
      "/api/items": (_q, res) => res.writeHead(200, { "content-type": "application/json" }).end('["alpha","beta"]'),
      "/redirect": (_q, res) => res.writeHead(302, { location: "/landing" }).end(),
      "/landing": html("<p>landed</p>"),
      "/to-forbidden": (_q, res) => res.writeHead(302, { location: forbidden.url("/secret") }).end(),
      "/js-to-forbidden": html(`<p>bye</p><script>location.href = ${JSON.stringify(forbidden.url("/secret"))}</script>`),
      // Every way a page can reach an address, each aimed at the forbidden origin.
      "/mixed": html(`<p id="p">kept</p><img src="/logo.png">
        <link rel="preconnect" href="${F}"><link rel="prefetch" href="${F}/prefetch">
        <style>@import url(${F}/import.css); body { background: url(${F}/bg.png) }</style>
        <script src="${F}/secret.js"></script>
        <iframe src="${F}/secret"></iframe>
        <iframe srcdoc="<script>fetch('${F}/srcdoc')</script>"></iframe>
        <a id="a" href="${F}/popup-link" target="_blank">x</a>
        <script>
          const blocked = (f) => { try { f(); } catch {} };
          fetch("${F}/fetch").catch(() => { document.getElementById("p").textContent = "kept, fetch blocked"; });
          new Worker(URL.createObjectURL(new Blob(["fetch('" + location.origin + "/from-worker'); fetch('${F}/worker')"])));
          blocked(() => new SharedWorker(URL.createObjectURL(new Blob(["fetch('${F}/shared-worker')"]))));
          blocked(() => new EventSource("${F}/events"));
          blocked(() => new WebSocket("${F.replace("http", "ws")}/ws"));
          blocked(() => navigator.sendBeacon("${F}/beacon", "x"));
          blocked(() => navigator.serviceWorker.register("/sw.js"));
          blocked(() => window.open("${F}/popup"));
          document.getElementById("a").click();
        </script>`),
      "/hang": () => {},
      "/long-poll": html(`<p id="p"></p><script>
        document.getElementById("p").textContent = "written before the long poll";
        fetch("/hang");
      </script>`),
      "/spin": html("<p>spinning</p><script>for (;;) {}</script>"),
      "/gate": (_q, res) => {
        const send = () => html("<p>gated</p>")(_q, res);
        if (gate.open) send();
        else void released.then(send);
      },
      "/missing": html("<p>gone</p>", 404),
      // A script builds 2 MB of DOM: the render returns what the cap allows, cut in the page.
      "/huge-dom": html(`<!doctype html><html><body><div id="r"></div>
        <script>document.getElementById("r").innerHTML = ("<p>" + "x".repeat(1000) + "</p>").repeat(2000);</script></body></html>`),
    });
    renderer = createChromiumRenderer({ egress: LOOPBACK, executablePath: CHROME, maxConcurrency: 2 });
  });

  afterAll(async () => {
    gate.release();
    await renderer?.close();
    await site?.close();
    await forbidden?.close();
  });

  it("returns the DOM that scripts wrote, with the final URL and status", async () => {
    const r = expectOk(await renderer.render(req("/scripted")));
    expect(r.html).toContain("<h1>Rendered by script</h1>");
    expect(r.html).toContain("<li>beta</li>");
    expect(r.finalUrl).toBe(site.url("/scripted"));
    expect(r.status).toBe(200);
    expect(renderer.description).toBe(`chromium at ${CHROME}`);
    expect(renderer.available).toBe(true);
  });

  it("follows redirects and reports the landing page; a 404 document is a rendered page with its status", async () => {
    const r = expectOk(await renderer.render(req("/redirect")));
    expect(r.finalUrl).toBe(site.url("/landing"));
    expect(r.status).toBe(200);
    expect(r.html).toContain("landed");
    expect(expectOk(await renderer.render(req("/missing"))).status).toBe(404);
  });

  it("never requests what the policy refuses: subresources, redirect hops, script navigations, the URL itself", async () => {
    const page = expectOk(await renderer.render(req("/mixed")));
    expect(page.html).toContain("kept, fetch blocked");
    expect(page.html).not.toContain("data-leak");
    await site.waitForHits("/from-worker", 1); // the page's scripts (and its worker) did run
    expect(await renderer.render(req("/to-forbidden"))).toMatchObject({ ok: false, error: "invalid_redirect_url" });
    expect(await renderer.render(req("/js-to-forbidden"))).toMatchObject({ ok: false, error: "invalid_redirect_url" });
    expect(await renderer.render({ ...req("/"), url: forbidden.url("/secret") })).toMatchObject({
      ok: false,
      error: "invalid_url",
    });
    expect(await renderer.render(req("/x", { url: "file:///etc/passwd" }))).toMatchObject({ ok: false, error: "invalid_url" });
    expect(forbidden.hits).toEqual([]);
    expect(forbidden.connections()).toBe(0); // not even a preconnect
    expect(site.hits).not.toContain("/logo.png"); // images are never fetched
  });

  it("connects only to addresses its egress proxy judged, whatever the URL check said (DNS rebinding)", async () => {
    // The URL check passes (as it would have when the name still answered a public address); the
    // proxy resolves the name again, gets loopback, and refuses: the site is never reached.
    const before = site.connections();
    const rebound = await renderer.render(
      req("/landing", { url: `http://rebind.example.com:${site.port}/landing`, isAllowed: async () => true }),
    );
    expect(rebound).toMatchObject({ ok: false, error: "target_unreachable" });
    expect(site.connections()).toBe(before);
    expect(expectOk(await renderer.render(req("/landing"))).html).toContain("landed");
  });

  it("gives up a hanging or spinning page at its deadline; a closed port is target_unreachable", async () => {
    const started = Date.now();
    const r = await renderer.render(req("/hang", { timeoutMs: 1500 }));
    const elapsed = Date.now() - started;
    expect(r).toMatchObject({ ok: false, error: "timeout" });
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(2500);
    // A page whose script never yields: its deadline still holds, and other renders go on.
    const [spin, other] = await Promise.all([
      renderer.render(req("/spin", { timeoutMs: 1500 })),
      renderer.render(req("/landing")),
    ]);
    expect(spin).toMatchObject({ ok: false, error: "timeout" });
    expect(expectOk(other).html).toContain("landed");
    const port = await closedPort();
    const down = await renderer.render(req("/", { url: `http://127.0.0.1:${port}/` }));
    expect(down).toMatchObject({ ok: false, error: "target_unreachable" });
  });

  it("runs at most maxConcurrency renders at once; the third waits and then succeeds", async () => {
    const all = Promise.all([1, 2, 3].map((i) => renderer.render(req(`/gate?i=${i}`))));
    await site.waitForHits("/gate", 2);
    expect(renderer.inspect()).toMatchObject({ active: 2, queued: 1 });
    gate.release();
    const results = await all;
    for (const r of results) expect(expectOk(r).html).toContain("gated");
    expect(site.hits.filter((h) => h === "/gate")).toHaveLength(3);
  });

  it("honours the caller's signal while queued or rendering", async () => {
    const cancelled = { ok: false, error: "timeout", detail: "the render was cancelled by the caller" };
    const hangs = site.hits.filter((h) => h === "/hang").length;
    const running = [new AbortController(), new AbortController()];
    const pending = running.map((c) => renderer.render(req("/hang", { signal: c.signal })));
    await site.waitForHits("/hang", hangs + 2);
    const queuedController = new AbortController();
    const queued = renderer.render(req("/landing", { signal: queuedController.signal }));
    // It queues within the same turn of the event loop (its policy check is an immediate promise).
    await new Promise((resolve) => setImmediate(resolve));
    expect(renderer.inspect().queued).toBe(1);
    queuedController.abort();
    expect(await queued).toEqual(cancelled);
    expect(renderer.inspect().queued).toBe(0);
    for (const c of running) c.abort();
    expect(await Promise.all(pending)).toEqual([cancelled, cancelled]);
  });

  it("stops waiting for a quiet network after settleMaxMs and returns what the page shows", async () => {
    const quick = createChromiumRenderer({ egress: LOOPBACK, executablePath: CHROME, maxConcurrency: 1, settleMaxMs: 300 });
    try {
      const r = expectOk(await quick.render(req("/long-poll")));
      expect(r.html).toContain("written before the long poll");
    } finally {
      await quick.close();
    }
  });

  it("returns at most maxHtmlChars of the serialised DOM, doctype first, as page.content() writes it", async () => {
    const capped = createChromiumRenderer({ egress: LOOPBACK, executablePath: CHROME, maxConcurrency: 1, maxHtmlChars: 50_000 });
    try {
      const r = expectOk(await capped.render(req("/huge-dom")));
      expect(r.html).toHaveLength(50_000);
      expect(r.html.startsWith('<!DOCTYPE html><html><head></head><body><div id="r"><p>xxx')).toBe(true);
      // Below the cap the page comes whole, as before.
      expect(expectOk(await capped.render(req("/landing"))).html).toBe("<html><head></head><body><p>landed</p></body></html>");
    } finally {
      await capped.close();
    }
    // The default cap is the fetch's body limit: 2 MB come back whole.
    expect(expectOk(await renderer.render(req("/huge-dom"))).html.length).toBeGreaterThan(2_000_000);
  });

  it("closes every page and context after each render", async () => {
    for (const path of ["/landing", "/scripted", "/to-forbidden"]) await renderer.render(req(path));
    await renderer.whenIdle();
    const browser = renderer.inspect().browser;
    if (!browser) throw new Error("expected a running browser");
    // The default context with its first tab, and the one spare context made ready for the next
    // render: nothing a render used is left, however many ran before.
    expect(browser.browserContexts()).toHaveLength(2);
    expect(await browser.pages()).toHaveLength(2);
    expect(renderer.inspect()).toMatchObject({ active: 0, queued: 0 });
  });
});

describe.skipIf(!hasChrome)("Chromium renderer lifecycle", () => {
  let site: Origin;
  const isAllowed = async () => true;
  beforeAll(async () => {
    site = await startOrigin({ "/": html("<p>hello</p>") });
  });
  afterAll(async () => {
    await site?.close();
  });

  /** Renders once and returns the browser that did it, with a promise of its disconnection. */
  async function renderAndWatch(renderer: ChromiumRenderer) {
    expectOk(await renderer.render({ url: site.url("/"), timeoutMs: 15_000, isAllowed }));
    const state = renderer.inspect();
    const { browser, pid, userDataDir } = state;
    if (!browser || !pid || !userDataDir) throw new Error("expected a running browser");
    const disconnected = new Promise<void>((resolve) => browser.once("disconnected", () => resolve()));
    // Chromium's singleton socket lives in its own temp dir, outside the profile.
    const socketDir = path.dirname(readlinkSync(path.join(userDataDir, "SingletonSocket")));
    return { pid, userDataDir, socketDir, launches: state.launches, disconnected };
  }

  it("relaunches a browser that crashed or stopped answering; close() ends every process and profile", async () => {
    const renderer = createChromiumRenderer({
      egress: LOOPBACK,
      executablePath: CHROME,
      maxConcurrency: 1,
      watchdogIntervalMs: 200,
      watchdogTimeoutMs: 1000,
    });
    try {
      const crashed = await renderAndWatch(renderer);
      process.kill(crashed.pid, "SIGKILL");
      await crashed.disconnected;

      const hung = await renderAndWatch(renderer);
      expect(hung.launches).toBe(2);
      process.kill(hung.pid, "SIGSTOP"); // alive but silent: only the watchdog can notice
      await hung.disconnected;

      const last = await renderAndWatch(renderer);
      expect(last.launches).toBe(3);
      await renderer.close();
      for (const { userDataDir, socketDir } of [crashed, hung, last]) {
        expect(existsSync(userDataDir)).toBe(false);
        expect(existsSync(socketDir)).toBe(false);
        expect(processesMatching(userDataDir)).toEqual([]);
      }
      expect(await renderer.render({ url: site.url("/"), timeoutMs: 1000, isAllowed })).toMatchObject({
        ok: false,
        error: "render_unavailable",
      });
    } finally {
      await renderer.close();
    }
  });

  it("closes an idle browser and starts a fresh one on demand", async () => {
    const renderer = createChromiumRenderer({ egress: LOOPBACK, executablePath: CHROME, idleCloseMs: 100 });
    try {
      const idle = await renderAndWatch(renderer);
      await idle.disconnected;
      expect(renderer.inspect().browser).toBeNull();
      expect((await renderAndWatch(renderer)).launches).toBe(2);
    } finally {
      await renderer.close();
    }
  });

  it("reports a missing executable as render_unavailable without trying to launch", async () => {
    const renderer = createChromiumRenderer({ egress: LOOPBACK, executablePath: "/nonexistent/chromium" });
    expect(renderer.available).toBe(false);
    expect(renderer.description).toContain("/nonexistent/chromium");
    expect(await renderer.render({ url: site.url("/"), timeoutMs: 1000, isAllowed })).toMatchObject({
      ok: false,
      error: "render_unavailable",
    });
    expect(renderer.inspect().launches).toBe(0);
    await renderer.close();
  });
});
