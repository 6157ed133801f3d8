import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LogFields, Logger } from "../../functions/lib/logger.ts";
import { createIndexFeed, OPERATOR_SOURCE, toIndexDocument } from "../../functions/search/index-feed.ts";
import type { IndexDocument, IndexWriter } from "../../functions/search/local/document.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { MAX_INDEXED_CHARS, MAX_TITLE_CHARS } from "../../functions/search/local/prepare.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { article, html, type Origin, OSPREY_PARAGRAPHS, startOrigin } from "../helpers/origin.ts";
import { writePdf } from "../pdf/pdf-writer.ts";

const LONG = [...OSPREY_PARAGRAPHS];

function recordingLogger() {
  const lines: { level: string; msg: string; fields?: LogFields }[] = [];
  const at =
    (level: string) =>
    (msg: string, fields?: LogFields): void => {
      lines.push({ level, msg, ...(fields ? { fields } : {}) });
    };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

/** Records every batch, then hands it to `inner` (or answers "inserted" itself). */
function recordingWriter(inner?: IndexWriter) {
  const batches: IndexDocument[][] = [];
  const writer: IndexWriter = {
    async upsert(docs) {
      batches.push(docs);
      return inner ? inner.upsert(docs) : { inserted: docs.length, updated: 0, unchanged: 0, rejected: [] };
    },
    remove: async (url) => (inner ? inner.remove(url) : false),
    count: async () => (inner ? inner.count() : batches.flat().length),
  };
  return { writer, batches, docs: () => batches.flat() };
}

const doc = (url: string, text = "some text"): IndexDocument => ({ url, title: url, text });

describe("index feed", () => {
  it("offer's promise settles once that page is written, replaced and written, dropped, or failed (for callers that must await it)", async () => {
    const rec = recordingWriter();
    const feed = createIndexFeed(rec.writer, { logger: recordingLogger().logger, maxQueue: 2 });
    const first = feed.offer(doc("https://w.example/1", "old"), OPERATOR_SOURCE);
    const replaced = feed.offer(doc("https://w.example/1", "new"), OPERATOR_SOURCE);
    const second = feed.offer(doc("https://w.example/2"), OPERATOR_SOURCE);
    const third = feed.offer(doc("https://w.example/3"), OPERATOR_SOURCE); // the queue holds 2: /1 is dropped
    await Promise.all([first, replaced, second, third]);
    expect(rec.docs().map((d) => d.url)).toEqual(["https://w.example/2", "https://w.example/3"]);
    const failing = createIndexFeed(
      {
        upsert: async () => {
          throw new Error("down");
        },
        remove: async () => false,
        count: async () => 0,
      },
      { logger: recordingLogger().logger },
    );
    await failing.offer(doc("https://w.example/4"), OPERATOR_SOURCE); // resolves, never rejects
    expect(failing.stats().failed).toBe(1);
    // Written means written: the promise does not resolve before the upsert has run.
    const rec2 = recordingWriter();
    const feed2 = createIndexFeed(rec2.writer, { logger: recordingLogger().logger });
    await feed2.offer(doc("https://w.example/5"), OPERATOR_SOURCE);
    expect(rec2.docs().map((d) => d.url)).toEqual(["https://w.example/5"]);
  });

  it("upserts after the current turn, batched, the latest version of a URL once", async () => {
    const rec = recordingWriter();
    const feed = createIndexFeed(rec.writer, { logger: recordingLogger().logger, batchSize: 2 });
    feed.offer(doc("https://a.example/1", "old"), OPERATOR_SOURCE);
    feed.offer(doc("https://a.example/2"), OPERATOR_SOURCE);
    feed.offer(doc("https://a.example/1", "new"), OPERATOR_SOURCE);
    feed.offer(doc("https://a.example/3"), OPERATOR_SOURCE);
    expect(rec.batches).toEqual([]);
    await feed.whenIdle();
    expect(rec.batches.map((b) => b.length)).toEqual([2, 1]);
    expect(rec.docs().map((d) => [d.url, d.text])).toEqual([
      ["https://a.example/2", "some text"],
      ["https://a.example/1", "new"],
      ["https://a.example/3", "some text"],
    ]);
    expect(feed.stats()).toMatchObject({ offered: 4, inserted: 3, failed: 0, dropped: 0 });
  });

  it("keeps at most `concurrency` upserts in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const writer: IndexWriter = {
      async upsert(docs) {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return { inserted: docs.length, updated: 0, unchanged: 0, rejected: [] };
      },
      remove: async () => false,
      count: async () => 0,
    };
    const feed = createIndexFeed(writer, { logger: recordingLogger().logger, batchSize: 1, concurrency: 2 });
    for (let i = 0; i < 7; i++) feed.offer(doc(`https://a.example/${i}`), OPERATOR_SOURCE);
    await feed.whenIdle();
    expect(most).toBe(2);
    expect(feed.stats().inserted).toBe(7);
  });

  it("a page's index document holds at most what the index keeps, so the queue of 1,000 stays bounded", () => {
    const text = "word ".repeat(600_000);
    const d = toIndexDocument({
      finalUrl: "https://big.example/",
      metadata: { title: "T".repeat(5000), language: "en", publishedDate: null },
      text,
    });
    expect(d?.text.length).toBeLessThanOrEqual(MAX_INDEXED_CHARS);
    expect(d?.text.length).toBeGreaterThan(MAX_INDEXED_CHARS - 10);
    expect(d?.title.length).toBe(MAX_TITLE_CHARS);
  });

  it("writtenFor(account) settles once that account's fetched pages are written, not waiting on others'", async () => {
    const gates: Array<() => void> = [];
    const written: string[] = [];
    const writer: IndexWriter = {
      async upsert(docs) {
        await new Promise<void>((r) => gates.push(r));
        written.push(...docs.map((d) => d.url));
        return { inserted: docs.length, updated: 0, unchanged: 0, rejected: [] };
      },
      remove: async () => false,
      count: async () => 0,
    };
    const feed = createIndexFeed(writer, { logger: recordingLogger().logger, batchSize: 1 });
    const fetchedBy = (accountId: string) => ({ kind: "fetch" as const, accountId, publicPage: false });
    let settled = false;
    await feed.writtenFor("acct_a"); // nothing pending: at once
    void feed.offer(doc("https://b.example/1"), fetchedBy("acct_b"));
    void feed.offer(doc("https://a.example/1"), fetchedBy("acct_a"));
    void feed.offer(doc("https://o.example/1"), OPERATOR_SOURCE);
    const forA = feed.writtenFor("acct_a").then(() => (settled = true));
    const tick = () => new Promise((r) => setTimeout(r, 10));
    await tick();
    gates.shift()?.(); // b's page
    await tick();
    expect(settled).toBe(false);
    gates.shift()?.(); // a's page
    await forA;
    expect(written).toEqual(["https://b.example/1", "https://a.example/1"]);
    await feed.writtenFor("acct_b"); // b's page is written: at once, though the operator's is not yet
    gates.shift()?.();
    await feed.whenIdle();
  });

  it("logs a failed upsert and carries on; drops the oldest page when the queue is full", async () => {
    const { logger, lines } = recordingLogger();
    let calls = 0;
    const writer: IndexWriter = {
      async upsert(docs) {
        if (calls++ === 0) throw new Error("disk full");
        return { inserted: 0, updated: 0, unchanged: 0, rejected: docs.map((d) => ({ url: d.url, reason: "no text" })) };
      },
      remove: async () => false,
      count: async () => 0,
    };
    const feed = createIndexFeed(writer, { logger, batchSize: 1, maxQueue: 2 });
    feed.offer(doc("https://a.example/1"), OPERATOR_SOURCE);
    feed.offer(doc("https://a.example/2"), OPERATOR_SOURCE);
    feed.offer(doc("https://a.example/3"), OPERATOR_SOURCE);
    await feed.whenIdle();
    expect(feed.stats()).toMatchObject({ offered: 3, dropped: 1, failed: 1, rejected: 1 });
    expect(lines.find((l) => l.level === "warn")?.fields).toEqual({ url: "https://a.example/1" });
    expect(lines.find((l) => l.level === "error")?.msg).toBe("local index upsert failed");
    await feed.whenIdle();
  });
});

const newsPage = `<!doctype html><html lang="en"><head><title>Osprey numbers soar | Daily Osprey</title>
<meta property="og:type" content="article"><meta property="og:site_name" content="Daily Osprey">
<meta property="article:published_time" content="2026-11-20T08:30:00Z">
<script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "NewsArticle",
  headline: "Osprey numbers soar",
  datePublished: "2026-11-20T08:30:00Z",
  publisher: { "@type": "Organization", name: "Daily Osprey Media" },
  author: { "@type": "Person", name: "Reporter One" },
})}</script></head><body><nav><a href="/">Home</a></nav><article><h1>Osprey numbers soar</h1>${LONG.map((p) => `<p>${p}</p>`).join("")}</article></body></html>`;

const paperPage = `<!doctype html><html lang="en"><head><title>Diving behaviour of ospreys</title>
<meta name="citation_title" content="Diving behaviour of ospreys">
<meta name="citation_author" content="Doe, Jane"><meta name="citation_author" content="Roe, Richard">
<meta name="citation_journal_title" content="Journal of Raptor Research">
<meta name="citation_publication_date" content="2021/05/12">
<meta name="citation_pdf_url" content="/paper.pdf"></head>
<body><main><h1>Diving behaviour of ospreys</h1><h2>Abstract</h2>${LONG.map((p) => `<p>${p}</p>`).join("")}</main></body></html>`;

// POST /fetch feeds the real local index: the page's type and fields reach the writer after the response.
describe.each(driverCases(["pglite"]))("fetch → local index on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let origin: Origin;
  let key: string;
  let rec: ReturnType<typeof recordingWriter>;
  let feed: ReturnType<typeof createIndexFeed>;
  const u = (path: string) => `${origin.url}${path}`;

  beforeAll(async () => {
    db = await open();
    origin = await startOrigin({
      "/news": html(newsPage),
      "/paper": html(paperPage),
      "/plain": html(article("Plain page", LONG)),
      "/notes.txt": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("Field notes.\n\nOspreys seen at the lake.");
      },
      "/doc.pdf": (_req, res) => {
        res.writeHead(200, { "content-type": "application/pdf" });
        res.end(writePdf({ pages: [["Hello from a PDF page about ospreys."]], info: { title: "A PDF", author: "Ann Author" } }));
      },
      "/data.json": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"a":1}');
      },
      "/empty": html("<html><body><div></div></body></html>"),
      "/error": html("<p>server error</p>", {}, 503),
    });
    rec = recordingWriter(createLocalIndex({ db: db.db }).writer);
    feed = createIndexFeed(rec.writer, { logger: recordingLogger().logger });
    ctx = createTestContext(db.db, {
      fetch: {
        config: { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] },
        index: feed,
      },
    });
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await origin.close();
    await db.dispose();
  });

  it("upserts each successful page with its type and plain text, never failed or data URLs", async () => {
    const urls = ["/news", "/paper", "/plain", "/notes.txt", "/doc.pdf", "/data.json", "/empty", "/error"].map(u);
    const res = await ctx.postJson(key, "/fetch", { urls });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[]; errors: unknown[] };
    expect(body.results).toHaveLength(6);
    await feed.whenIdle();
    const byUrl = new Map(rec.docs().map((d) => [d.url, d]));
    expect([...byUrl.keys()].sort()).toEqual([u("/doc.pdf"), u("/news"), u("/notes.txt"), u("/paper"), u("/plain")]);

    expect(byUrl.get(u("/news"))).toMatchObject({
      title: "Osprey numbers soar",
      type: "news",
      publishedDate: "2026-11-20",
      publisher: "Daily Osprey Media",
      authors: ["Reporter One"],
      siteName: "Daily Osprey",
      language: "en",
    });
    expect(byUrl.get(u("/paper"))).toMatchObject({
      type: "research_paper",
      authors: ["Doe, Jane", "Roe, Richard"],
      venue: "Journal of Raptor Research",
      year: 2021,
      publishedDate: "2021-05-12",
      pdfUrl: u("/paper.pdf"),
    });
    const plain = byUrl.get(u("/plain"));
    expect(plain).toMatchObject({ title: "Plain page", type: "web", language: "en" });
    expect(plain?.text).toContain("Ospreys are large raptors");
    expect(plain?.text).not.toMatch(/^#|\*\*/m);
    expect(byUrl.get(u("/notes.txt"))).toMatchObject({ type: "web", text: "Field notes.\n\nOspreys seen at the lake." });
    expect(byUrl.get(u("/doc.pdf"))).toMatchObject({ type: "web", title: "A PDF" });
    expect(byUrl.get(u("/doc.pdf"))?.text).toContain("Hello from a PDF page");
    expect(feed.stats()).toMatchObject({ inserted: 5, failed: 0, rejected: 0 });
    expect(await rec.writer.count()).toBe(5);
  });

  it("does not index a selector-scoped fetch; a refetch of the same page is unchanged", async () => {
    const before = rec.docs().length;
    const scoped = await ctx.postJson(key, "/fetch", { urls: [u("/plain")], include_selectors: ["article"] });
    expect(scoped.status).toBe(200);
    await feed.whenIdle();
    expect(rec.docs().length).toBe(before);
    const again = await ctx.postJson(key, "/fetch", { urls: [u("/plain")], format: "html" });
    expect(again.status).toBe(200);
    await feed.whenIdle();
    expect(rec.docs().length).toBe(before + 1);
    expect(feed.stats()).toMatchObject({ inserted: 5, unchanged: 1 });
  });
});
