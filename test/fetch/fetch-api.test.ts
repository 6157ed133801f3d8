import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { article, html, type Origin, OSPREY_PARAGRAPHS, startOrigin } from "../helpers/origin.ts";
import { writePdf } from "../pdf/pdf-writer.ts";

interface FetchBody {
  results: Record<string, unknown>[];
  errors: { url: string; error: string; status?: number; unmatched_selectors?: string[]; candidate_selectors?: string[] }[];
  request_id?: string;
}

const LONG = [...OSPREY_PARAGRAPHS];

// POST {fetch_url} end to end (spec 4.6, 7.4) against real origin servers on 127.0.0.1, which the
// test exempts from the address policy by port, exactly as OSPREY_ALLOW_PRIVATE_HOSTS would.
describe.each(driverCases(["pglite", "pg"]))("fetch API on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let origin: Origin;
  let forbidden: Origin;
  let key: string;
  let u: (path: string) => string;

  beforeAll(async () => {
    db = await open();
    origin = await startOrigin({
      "/article": html(article("Ospreys", LONG), { "cache-control": "max-age=600" }),
      "/nocache": html(article("Fresh", LONG)),
      "/flagged": html(article("Flagged", LONG)),
      "/flagged.txt": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("A plain text note about ospreys and their nests.");
      },
      "/og": html(
        `<html lang="fr"><head><title>Tag title</title><meta property="og:title" content="OG title"><meta property="og:description" content="OG desc"><meta name="description" content="Meta desc"></head><body><article><p>${LONG.join(" ")}</p><p>Biologists who followed tagged birds for a decade describe in the <a href="/next">next chapter</a> how the young cross the Sahara alone, a journey <a href="https://other.example/x#frag">another study</a> confirmed; the <a href="/next">next chapter</a> also maps their wintering grounds in West Africa.<img src="/i.png" alt="An osprey"><img src="data:image/png;base64,AAAA" alt="inline"></p></article></body></html>`,
      ),
      "/gone": html("<p>gone</p>", {}, 410),
      "/error": html("<p>server error</p>", {}, 503),
      "/challenge": html(
        "<html><head><title>Just a moment...</title></head><body><div id='cf'>Checking your browser</div><script src='/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1'></script></body></html>",
      ),
      "/empty": html("<html><body><div></div></body></html>"),
      "/image": (_req, res) => {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      },
      "/data.json": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"a":1,"b":[true,null]}');
      },
      "/notes.txt": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("First paragraph.\n\nSecond paragraph.");
      },
      "/table.csv": (_req, res) => {
        res.writeHead(200, { "content-type": "text/csv" });
        res.end("a,b\n1,2\n");
      },
      "/doc.pdf": (_req, res) => {
        res.writeHead(200, { "content-type": "application/pdf" });
        res.end(writePdf({ pages: [["Hello from a PDF page."]], info: { title: "A PDF", author: "Ann Author" } }));
      },
      "/gz": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
        res.end(gzipSync(article("Zipped", LONG)));
      },
      "/validators": (req, res) => {
        if (req.headers["if-none-match"] === '"v1"') {
          res.writeHead(304, { etag: '"v1"' });
          res.end();
          return;
        }
        res.writeHead(200, { "content-type": "text/html", etag: '"v1"', "last-modified": "Sat, 21 Nov 2026 09:00:00 GMT" });
        res.end(article("Validated", LONG));
      },
      "/to-private": (_req, res) => {
        res.writeHead(302, { location: `http://127.0.0.1:${forbidden.port}/secret` });
        res.end();
      },
      "/hang": () => {},
      // A template that never closes its wrappers: 5,000 deep (nesting.ts caps it as a browser does).
      "/deep": html(
        `<html><head><title>Deep</title></head><body><article><p>${LONG.join(" ")}</p>${"<div><span>".repeat(5000)}<p>The innermost paragraph.</p>${"</span></div>".repeat(5000)}</article></body></html>`,
      ),
      // Nested 300 deep, under the parser's cap: a selector's chain runs over every level.
      "/deep300": html(
        `<html><head><title>Deep</title></head><body><article><p>${LONG.join(" ")}</p>${"<div><span>".repeat(150)}<p>${LONG[1]} The innermost paragraph.</p>${"</span></div>".repeat(150)}</article></body></html>`,
      ),
      // Pages that were lost before (a stack overflow in the markdown table writer; a parse and
      // walks whose time grew with the square of the depth, past the extractor's task timeout).
      "/big-table": html(
        `<html><head><title>Postcodes</title></head><body><article><h1>Postcodes</h1><p>${LONG.join(" ")}</p><table><tr><th>Code</th><th>Town</th></tr>${Array.from({ length: 150_000 }, (_, i) => `<tr><td>${i}</td><td>Town ${i}</td></tr>`).join("")}</table></article></body></html>`,
      ),
      "/unclosed": html(
        `<html><head><title>Unclosed</title></head><body><article><h1>Unclosed</h1><p>${LONG.join(" ")}</p>${"<div>".repeat(200_000)}<p>${LONG[1]} The innermost paragraph.</p>`,
      ),
      "/sections": html(
        `<html><body><nav id="nav"><a href="/a">A</a></nav><main id="main"><section class="one"><p>${LONG[0]}</p></section><div class="ad">Buy now</div><section class="two"><p>${LONG[1]}</p></section></main></body></html>`,
      ),
    });
    forbidden = await startOrigin({ "/secret": html("<p>secret</p>") });
    u = (path) => `${origin.url}${path}`;
    ctx = createTestContext(db.db, {
      fetch: { config: { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] } },
    });
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await origin.close();
    await forbidden.close();
    await db.dispose();
  });

  async function fetchApi(body: Record<string, unknown>, apiKey = key): Promise<{ res: Response; body: FetchBody }> {
    const res = await ctx.postJson(apiKey, "/fetch", body);
    expect(res.status).toBe(200);
    return { res, body: (await res.json()) as FetchBody };
  }

  it("turns an article into Markdown with its metadata, boilerplate removed", async () => {
    const { res, body } = await fetchApi({ urls: [u("/article")] });
    expect(body.errors).toEqual([]);
    expect(body.request_id).toBeUndefined();
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const r = body.results[0] as Record<string, unknown>;
    expect(r).toMatchObject({
      url: u("/article"),
      final_url: u("/article"),
      title: "Ospreys",
      description: "About Ospreys",
      language: "en",
      format: "markdown",
    });
    expect(r.text).toContain("Ospreys are large raptors");
    expect(r.text).not.toContain("Copyright 2026");
    expect(r).not.toHaveProperty("links");
    expect(typeof r.latency_ms).toBe("number");
  });

  it("prefers og:title and og:description; links and image_links are absolute, de-duplicated, no data: URLs", async () => {
    const { body } = await fetchApi({ urls: [u("/og")], links: true, image_links: true, format: "html" });
    const r = body.results[0] as Record<string, unknown>;
    expect(r).toMatchObject({ title: "OG title", description: "OG desc", language: "fr", format: "html" });
    expect(r.links).toEqual([u("/next"), "https://other.example/x#frag"]);
    expect(r.image_links).toEqual([u("/i.png")]);
    expect(String(r.text)).toMatch(/^<|<p>/);
  });

  it("a page nested thousands of elements deep is read like any other, not reported unreachable", async () => {
    for (const format of ["markdown", "json"]) {
      const { body } = await fetchApi({ urls: [u("/deep")], format });
      expect(body.errors).toEqual([]);
      expect(JSON.stringify(body.results[0]?.text)).toContain("Ospreys are large raptors");
      expect(JSON.stringify(body.results[0]?.text)).toContain("The innermost paragraph.");
    }
  });

  it("format json returns a document tree", async () => {
    const { body } = await fetchApi({ urls: [u("/article")], format: "json" });
    const text = body.results[0]?.text as { type: string; children: unknown[] };
    expect(text.type).toBe("document");
    expect(text.children.length).toBeGreaterThan(0);
  });

  it("gives each URL its own outcome: per-URL codes beside results, request_id in the body", async () => {
    const { res, body } = await fetchApi({
      urls: [
        u("/article"),
        u("/gone"),
        u("/error"),
        u("/challenge"),
        u("/empty"),
        u("/image"),
        `http://127.0.0.1:${forbidden.port}/secret`,
        u("/to-private"),
      ],
    });
    expect(body.results.map((r) => r.url)).toEqual([u("/article")]);
    const byUrl = Object.fromEntries(body.errors.map((e) => [e.url, e]));
    expect(byUrl[u("/gone")]).toMatchObject({ error: "page_not_found", status: 410 });
    expect(byUrl[u("/error")]).toMatchObject({ error: "target_http_error", status: 503 });
    expect(byUrl[u("/challenge")]).toMatchObject({ error: "bot_blocked" });
    expect(byUrl[u("/challenge")]).not.toHaveProperty("status");
    expect(byUrl[u("/empty")]).toMatchObject({ error: "empty_content" });
    expect(byUrl[u("/image")]).toMatchObject({ error: "empty_content" });
    expect(byUrl[`http://127.0.0.1:${forbidden.port}/secret`]).toMatchObject({ error: "invalid_url" });
    expect(byUrl[u("/to-private")]).toMatchObject({ error: "invalid_redirect_url" });
    expect(forbidden.hits.size).toBe(0);
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("a closed port is target_unreachable and a hanging origin times out alone", async () => {
    const closed = await startOrigin();
    await closed.close();
    const c2 = createTestContext(db.db, {
      fetch: { config: { allowPrivateHosts: [{ host: "127.0.0.1", port: null }], fetchNeverExpireHosts: [] } },
    });
    const { key: k2 } = await c2.newKey();
    const res = await c2.postJson(k2, "/fetch", {
      urls: [`${closed.url}/x`, u("/hang"), u("/nocache")],
      per_url_timeout_ms: 1500,
    });
    const body = (await res.json()) as FetchBody;
    expect(body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ url: `${closed.url}/x`, error: "target_unreachable" }),
        expect.objectContaining({ url: u("/hang"), error: "timeout" }),
      ]),
    );
    expect(body.results.map((r) => r.url)).toEqual([u("/nocache")]);
  });

  it("handles JSON, plain text, CSV, PDF and gzip bodies", async () => {
    const { body } = await fetchApi({ urls: [u("/data.json"), u("/notes.txt"), u("/table.csv"), u("/doc.pdf"), u("/gz")] });
    expect(body.errors).toEqual([]);
    const byUrl = Object.fromEntries(body.results.map((r) => [r.url, r]));
    expect(byUrl[u("/data.json")]?.text).toBe('{"a":1,"b":[true,null]}');
    expect(byUrl[u("/notes.txt")]?.text).toBe("First paragraph.\n\nSecond paragraph.");
    expect(byUrl[u("/table.csv")]?.text).toBe("a,b\n1,2\n");
    expect(byUrl[u("/doc.pdf")]).toMatchObject({ title: "A PDF", author: "Ann Author" });
    expect(byUrl[u("/doc.pdf")]?.text).toContain("Hello from a PDF page.");
    expect(byUrl[u("/gz")]?.title).toBe("Zipped");
  });

  it("selectors on a page nested 300 deep answer at once: a long chain, and a costly pseudo-class named as too costly", async () => {
    // A chain of 12 descendant steps over 150 nested divs ran for hours in css-select's right-to-left walk.
    const chain = await fetchApi({ urls: [u("/deep300")], include_selectors: [`article ${"div ".repeat(12)}p`] });
    expect(chain.res.status).toBe(200);
    expect(chain.body.errors, JSON.stringify(chain.body.errors).slice(0, 500)).toEqual([]);
    expect(String(chain.body.results[0]?.text)).toContain("The innermost paragraph.");
    expect(String(chain.body.results[0]?.text)).not.toContain("Ospreys are large raptors");
    // The same chain inside :not() is css-select's: past the page's budget the URL answers timeout,
    // naming it (not a stalled worker, not a 500, and not the page with the exclusion unapplied).
    const costly = await fetchApi({ urls: [u("/deep300")], exclude_selectors: [`p:not(section ${"div ".repeat(12)}p)`] });
    expect(costly.res.status).toBe(200);
    expect(costly.body.results).toEqual([]);
    expect(costly.body.errors).toEqual([
      { url: u("/deep300"), error: "timeout", message: expect.stringContaining("was too costly to match on this page") },
    ]);
  });

  it("reads a table of 150,000 rows and a page of 200,000 unclosed <div>s (each was lost before)", async () => {
    const { body } = await fetchApi({ urls: [u("/big-table"), u("/unclosed")] });
    expect(body.errors, JSON.stringify(body.errors).slice(0, 500)).toEqual([]);
    const table = String(body.results.find((r) => String(r.url).endsWith("/big-table"))?.text);
    expect(table).toContain("| Code | Town |");
    expect(table).toContain("| 149999 | Town 149999 |");
    expect(String(body.results.find((r) => String(r.url).endsWith("/unclosed"))?.text)).toContain("The innermost paragraph.");
  }, 60_000);

  it("selectors: scoped verbatim content, partial misses, no match, and PDF/CSV refusal (rules 3–8)", async () => {
    const partial = await fetchApi({
      urls: [u("/sections")],
      include_selectors: [".two", ".one", ".missing"],
      exclude_selectors: [".ad", ".none"],
    });
    const r = partial.body.results[0] as Record<string, unknown>;
    expect(r.unmatched_selectors).toEqual([".missing"]);
    const text = String(r.text);
    expect(text.indexOf("Ospreys are large")).toBeLessThan(text.indexOf("They nest"));
    expect(text).not.toContain("Buy now");
    expect(text).not.toContain("[A]");

    const none = await fetchApi({ urls: [u("/sections")], include_selectors: [".nothing", "#nope"] });
    expect(none.body.errors[0]).toMatchObject({ error: "selector_not_matched", unmatched_selectors: [".nothing", "#nope"] });
    expect(none.body.errors[0]?.candidate_selectors?.length).toBeGreaterThan(0);
    expect(none.body.errors[0]?.candidate_selectors?.length).toBeLessThanOrEqual(10);

    const files = await fetchApi({ urls: [u("/doc.pdf"), u("/table.csv")], exclude_selectors: ["p"] });
    expect(files.body.errors.map((e) => e.error)).toEqual(["selector_unsupported", "selector_unsupported"]);
  });

  it("forwards validators verbatim, reports 304 as not_modified, returns the origin's validators when asked", async () => {
    const first = await fetchApi({ urls: [u("/validators")], include_etag_and_last_modified: true });
    expect(first.body.results[0]).toMatchObject({ etag: '"v1"', last_modified: "Sat, 21 Nov 2026 09:00:00 GMT" });
    const plain = await fetchApi({ urls: [u("/validators")] });
    expect(plain.body.results[0]).not.toHaveProperty("etag");
    const again = await fetchApi({ urls: [u("/validators")], if_none_match: '"v1"' });
    expect(again.body.results[0]).toMatchObject({ not_modified: true, text: "" });
    expect(origin.lastHeaders.get("/validators")?.["if-none-match"]).toBe('"v1"');
  });

  it("serves from the cache by ttl: omitted accepts any entry, 0 goes live unless the origin's max-age covers it", async () => {
    await fetchApi({ urls: [u("/nocache")], ttl: 0 });
    const before = origin.hits.get("/nocache") ?? 0;
    await fetchApi({ urls: [u("/nocache")] });
    expect(origin.hits.get("/nocache")).toBe(before);
    ctx.clock.advance(5_000);
    await fetchApi({ urls: [u("/nocache")], ttl: 60 });
    expect(origin.hits.get("/nocache")).toBe(before);
    await fetchApi({ urls: [u("/nocache")], ttl: 0 });
    expect(origin.hits.get("/nocache")).toBe(before + 1);

    await fetchApi({ urls: [u("/article")], ttl: 0 });
    const articleHits = origin.hits.get("/article") ?? 0;
    ctx.clock.advance(60_000);
    await fetchApi({ urls: [u("/article")], ttl: 0 }); // max-age=600 covers a 60 s old entry
    expect(origin.hits.get("/article")).toBe(articleHits);
    ctx.clock.advance(600_000);
    await fetchApi({ urls: [u("/article")], ttl: 30 });
    expect(origin.hits.get("/article")).toBe(articleHits + 1);
  });

  it("says whether a result came from the cache (cached, cached_at), for HTML and other documents", async () => {
    for (const path of ["/flagged", "/flagged.txt"]) {
      const first = await fetchApi({ urls: [u(path)], ttl: 0 });
      expect(first.body.results[0]).toMatchObject({ cached: false, cached_at: null });
      const fetchedAt = ctx.clock.now().toISOString();
      const hits = origin.hits.get(path) ?? 0;
      ctx.clock.advance(5_000);
      const second = await fetchApi({ urls: [u(path)], ttl: 60 });
      expect(origin.hits.get(path)).toBe(hits);
      expect(second.body.results[0]).toMatchObject({ cached: true, cached_at: fetchedAt });
      const omitted = await fetchApi({ urls: [u(path)] });
      expect(omitted.body.results[0]).toMatchObject({ cached: true, cached_at: fetchedAt });
      // Past the tolerance: live again, and the new entry's time from then on.
      ctx.clock.advance(60_000);
      const live = await fetchApi({ urls: [u(path)], ttl: 30 });
      expect(origin.hits.get(path)).toBe(hits + 1);
      expect(live.body.results[0]).toMatchObject({ cached: false, cached_at: null });
      const after = await fetchApi({ urls: [u(path)] });
      expect(after.body.results[0]).toMatchObject({ cached: true, cached_at: ctx.clock.now().toISOString() });
    }
    // Validators and conditional requests always go live.
    const validated = await fetchApi({ urls: [u("/flagged")], include_etag_and_last_modified: true });
    expect(validated.body.results[0]).toMatchObject({ cached: false, cached_at: null });
  });

  it("the cache is shared by URL across accounts (fetches carry no credentials) and says so to each", async () => {
    const { key: a } = await ctx.newKey();
    const { key: b } = await ctx.newKey();
    const path = "/flagged?tenants";
    const fromA = await fetchApi({ urls: [u(path)], ttl: 0 }, a);
    expect(fromA.body.results[0]).toMatchObject({ cached: false, cached_at: null });
    const fetchedAt = ctx.clock.now().toISOString();
    ctx.clock.advance(1_000);
    const hits = origin.hits.get(path) ?? 0;
    const fromB = await fetchApi({ urls: [u(path)] }, b);
    expect(origin.hits.get(path)).toBe(hits);
    expect(fromB.body.results[0]).toMatchObject({ cached: true, cached_at: fetchedAt });
    // B's own live fetch is live for B; each account's usage lists only its own fetches.
    const liveB = await fetchApi({ urls: [u(path)], ttl: 0 }, b);
    expect(liveB.body.results[0]).toMatchObject({ cached: false });
    const usageA = (await (await ctx.call(a, "/fetch/usage")).json()) as { total: number };
    const usageB = (await (await ctx.call(b, "/fetch/usage")).json()) as { total: number };
    expect([usageA.total, usageB.total]).toEqual([1, 2]);
  });

  it("records one usage row per URL, grouped by request_id, listed newest first for the account only", async () => {
    const { key: own } = await ctx.newKey();
    const { res } = await fetchApi({ urls: [u("/article"), u("/gone")] }, own);
    const requestId = res.headers.get("x-request-id");
    const list = await ctx.call(own, "/fetch/usage");
    const page = (await list.json()) as { items: Record<string, unknown>[]; total: number; has_more: boolean };
    expect(page.total).toBe(2);
    expect(page.items.every((i) => i.request_id === requestId)).toBe(true);
    const ok = page.items.find((i) => i.status === "completed");
    expect(ok).toMatchObject({
      url: u("/article"),
      title: "Ospreys",
      format: "markdown",
      request_origin: "api",
      error: null,
      links_count: 0,
    });
    expect(ok?.text_length).toBeGreaterThan(100);
    expect(ok).not.toHaveProperty("text");
    expect(page.items.find((i) => i.status === "failed")).toMatchObject({
      url: u("/gone"),
      error: "page_not_found",
      text_length: null,
    });
    const failed = (await (await ctx.call(own, "/fetch/usage?status=failed")).json()) as { items: unknown[] };
    expect(failed.items).toHaveLength(1);
    const future = (await (await ctx.call(own, "/fetch/usage?start_after=2099-01-01T00:00:00Z")).json()) as { total: number };
    expect(future.total).toBe(0);
  });
});
