import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChromiumRenderer } from "../../containers/browser/chromium-pool.ts";
import type { Renderer } from "../../functions/fetch/renderer.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { html, type Origin, startOrigin } from "../helpers/origin.ts";

const CHROMIUM = process.env.CHROME_PATH || "/usr/bin/chromium";
const SENTENCE = "This paragraph exists only after the script ran, so only a browser can read it. ";
const APP = `<html><head><title>App shell</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<article><h1>Rendered heading</h1><p>' + ${JSON.stringify(SENTENCE)}.repeat(4) + '</p></article>';</script></body></html>`;

// An app shell the markup checks do not take for one: its mount point has no usual name, and the
// site's header and footer carry enough text to look server-rendered (needs-render.ts says no).
const FOOTER = `<footer><h2>Shop worldwide</h2><ul>${[
  "Deutsch",
  "Español",
  "Français",
  "Italiano",
  "Nederlands",
  "Polski",
  "Português",
  "Türkçe",
]
  .map((l) => `<li><a href="/${l}">Store in ${l}: help, returns and delivery for this country</a></li>`)
  .join("")}</ul></footer>`;
const SHELL = (script: string) =>
  `<html><head><title>Shop</title></head><body><header><a href="/">Shop</a></header><div id="item-detail-mount"></div>${FOOTER}${script}</body></html>`;
const FILL = `<script>document.getElementById('item-detail-mount').innerHTML = '<article><h1>Ceramic mug</h1><p>' + ${JSON.stringify(SENTENCE)}.repeat(4) + '</p></article>';</script>`;

interface FetchBody {
  results: { url: string; text: string; title: string | null }[];
  errors: { url: string; error: string; message?: string }[];
}

// Spec 4.6 "Rendering": script-only pages go through Chromium; conditional requests on them are
// refused; without a browser the fast path still answers and the render path fails per URL.
describe.each(driverCases(["pglite"]))("fetch rendering on $driver", ({ open }) => {
  let db: TestDatabase;
  let origin: Origin;
  let forbidden: Origin;
  let renderer: Renderer;
  let withBrowser: TestContext;
  let without: TestContext;

  beforeAll(async () => {
    db = await open();
    forbidden = await startOrigin({ "/beacon": html("x") });
    origin = await startOrigin({
      "/app": html(APP),
      "/leaky": html(
        `<html><body><div id="app"></div><script>fetch('http://127.0.0.1:${forbidden.port}/beacon').catch(()=>{});document.getElementById('app').innerHTML='<p>'+${JSON.stringify(SENTENCE)}.repeat(4)+'</p>';</script></body></html>`,
      ),
      "/shell": html(SHELL(FILL)),
      "/footer-only": html(SHELL("")),
      "/idle-shell": html(SHELL("<script>window.loaded = true;</script>")),
      "/cached-shell": html(SHELL(FILL)),
      "/static": html(`<html><body><article><h1>Static</h1><p>${SENTENCE.repeat(4)}</p></article></body></html>`),
    });
    const config = { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] };
    renderer = existsSync(CHROMIUM)
      ? createChromiumRenderer({ executablePath: CHROMIUM, maxConcurrency: 1, egress: config })
      : (await import("../../functions/fetch/renderer.ts")).unavailableRenderer("no chromium");
    withBrowser = createTestContext(db.db, { fetch: { config, renderer } });
    without = createTestContext(db.db, { fetch: { config } });
  });
  afterAll(async () => {
    await renderer.close();
    await origin.close();
    await forbidden.close();
    await db.dispose();
  });

  async function post(ctx: TestContext, body: Record<string, unknown>): Promise<FetchBody> {
    const { key } = await ctx.newKey();
    const res = await ctx.postJson(key, "/fetch", body);
    expect(res.status).toBe(200);
    return (await res.json()) as FetchBody;
  }

  it.skipIf(!existsSync(CHROMIUM))("renders a script-only page in Chromium and extracts what the script wrote", async () => {
    const body = await post(withBrowser, { urls: [`${origin.url}/app`, `${origin.url}/static`], ttl: 0 });
    expect(body.errors).toEqual([]);
    const app = body.results.find((r) => r.url === `${origin.url}/app`);
    expect(app?.text).toContain("Rendered heading");
    expect(app?.text).toContain("only a browser can read it");
  });

  it.skipIf(!existsSync(CHROMIUM))("applies the address policy to the requests the page makes", async () => {
    const body = await post(withBrowser, { urls: [`${origin.url}/leaky`], ttl: 0 });
    expect(body.results[0]?.text).toContain("only a browser can read it");
    expect(forbidden.hits.size).toBe(0);
  });

  it("refuses conditional requests on pages that need rendering (conditional_unsupported)", async () => {
    const body = await post(withBrowser, { urls: [`${origin.url}/app`], if_none_match: '"abc"' });
    expect(body.errors).toEqual([expect.objectContaining({ error: "conditional_unsupported" })]);
  });

  it("without a browser, static pages still work and script-only pages fail with a clear message", async () => {
    const body = await post(without, { urls: [`${origin.url}/app`, `${origin.url}/static`], ttl: 0 });
    expect(body.results.map((r) => r.url)).toEqual([`${origin.url}/static`]);
    expect(body.errors[0]).toMatchObject({ url: `${origin.url}/app`, error: "empty_content" });
    expect(body.errors[0]?.message).toMatch(/needs JavaScript/);
  });

  it("a page with no main content in its markup but scripts is rendered and read again; without scripts or a browser it is empty_content", async () => {
    const { needsRendering } = await import("../../functions/fetch/needs-render.ts");
    expect(needsRendering(SHELL(FILL), "text/html")).toBe(false);
    const before = origin.hits.get("/footer-only") ?? 0;
    if (existsSync(CHROMIUM)) {
      const body = await post(withBrowser, { urls: [`${origin.url}/shell`, `${origin.url}/footer-only`], ttl: 0 });
      expect(body.results).toHaveLength(1);
      expect(body.results[0]?.text).toContain("Ceramic mug");
      expect(body.results[0]?.text).toContain("only a browser can read it");
      expect(body.results[0]?.text).not.toContain("Shop worldwide");
      // The footer is not taken for the page; a page without scripts is not rendered (one request only).
      expect(body.errors).toEqual([expect.objectContaining({ url: `${origin.url}/footer-only`, error: "empty_content" })]);
      expect((origin.hits.get("/footer-only") ?? 0) - before).toBe(1);
    }
    const plain = await post(without, { urls: [`${origin.url}/shell`], ttl: 0 });
    expect(plain.results).toEqual([]);
    expect(plain.errors).toEqual([expect.objectContaining({ url: `${origin.url}/shell`, error: "empty_content" })]);
  });

  it.skipIf(!existsSync(CHROMIUM))("a shell whose script writes nothing is rendered once and stays empty_content", async () => {
    const before = origin.hits.get("/idle-shell") ?? 0;
    const body = await post(withBrowser, { urls: [`${origin.url}/idle-shell`], ttl: 0 });
    expect(body.results).toEqual([]);
    expect(body.errors).toEqual([expect.objectContaining({ url: `${origin.url}/idle-shell`, error: "empty_content" })]);
    // One request from the fetch, one from the browser: no second render, no loop.
    expect((origin.hits.get("/idle-shell") ?? 0) - before).toBe(2);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    "a shell rendered once is served from the cache as rendered, without a second render",
    async () => {
      const url = `${origin.url}/cached-shell`;
      const first = await post(withBrowser, { urls: [url], ttl: 0 });
      expect(first.results[0]?.text).toContain("Ceramic mug");
      const before = origin.hits.get("/cached-shell") ?? 0;
      const again = (await post(withBrowser, { urls: [url] })) as FetchBody & { results: { cached?: boolean }[] };
      expect(again.results[0]?.text).toContain("Ceramic mug");
      expect(again.results[0]?.cached).toBe(true);
      expect(origin.hits.get("/cached-shell") ?? 0).toBe(before);
    },
  );
});
