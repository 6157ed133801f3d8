import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it, vi } from "vitest";
import { tokenize } from "../../functions/search/analyze.ts";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { cutText, MAX_INDEXED_CHARS, MAX_TITLE_CHARS } from "../../functions/search/local/prepare.ts";
import { bm25Page, DEFAULT_BM25, queryTerms, TERM_WEIGHTING } from "../../functions/search/local/ranking.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases } from "../helpers/databases.ts";
import { expectConsistent, indexedDatabase, referenceScores, rows } from "../helpers/search-index.ts";

const dialect = new PgDialect();

const clock = { now: () => new Date("2026-06-15T12:00:00Z") };
const signal = new AbortController().signal;
/** The searching account (the documents here are all global, as imports are). */
const viewer = { accountId: "acct_local_index" };
const query = (text: string, o: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  location: "US",
  language: "en",
  includeDomains: [],
  excludeDomains: [],
  domainType: "web",
  page: 0,
  ...o,
});

const CORPUS: IndexDocument[] = [
  { url: "https://a.example.com/1", title: "Cats", text: "The cat chased another cat around the garden." },
  { url: "https://b.example.org/2", title: "Dogs and cats", text: "Dogs are loyal. A cat is independent." },
  { url: "https://example.org/3", title: "Gardening", text: "Planting tomatoes in a sunny garden bed, with compost." },
  {
    url: "https://news.site.net/4",
    title: "Cat show",
    text: "The national cat show opened today.",
    type: "news",
    publishedDate: "2026-06-15",
  },
  {
    url: "https://news.site.net/5",
    title: "Garden show",
    text: "Garden cats at the show.",
    type: "news",
    publishedDate: "2026-01-10T08:00:00Z",
  },
  {
    url: "https://papers.example/6",
    title: "Feline genetics",
    text: "Cat coat genetics.",
    type: "research_paper",
    year: 2019,
    authors: ["A. Author"],
  },
  { url: "https://papers.example/7", title: "Feline behaviour", text: "Cat play behaviour.", type: "research_paper", year: 2023 },
];

describe("query term weights", () => {
  it("weigh a term the query spells with a digit, once per distinct term", () => {
    const { terms, factors } = queryTerms(query("IL-6 raises il 6 levels in 2 cohorts"), ["en"]);
    const d = TERM_WEIGHTING.digit;
    expect(Object.fromEntries(terms.map((t, i) => [t, factors[i]]))).toEqual({ il: 1, 6: d, rais: 1, level: 1, 2: d, cohort: 1 });
  });
});

describe.each(driverCases(["pglite", "pg", "neon"]))("local index on $driver", ({ open }) => {
  const ix = indexedDatabase(open, clock);

  it("upserts: insert, unchanged on the same content, update on changed text, rejects bad documents", async () => {
    expect(await ix.index.writer.upsert(CORPUS)).toEqual({ inserted: 7, updated: 0, unchanged: 0, rejected: [] });
    await expectConsistent(ix.database.db);
    const again = await ix.index.writer.upsert([{ ...(CORPUS[0] as IndexDocument), url: "HTTPS://A.EXAMPLE.COM:443/1#top" }]);
    expect(again).toEqual({ inserted: 0, updated: 0, unchanged: 1, rejected: [] });
    const changed = await ix.index.writer.upsert([
      { url: "https://example.org/3", title: "Gardening", text: "Planting roses in a shady garden." },
      { url: "ftp://x.example/", title: "x", text: "y" },
      { url: "https://empty.example/", title: "", text: "" },
    ]);
    expect(changed.updated).toBe(1);
    expect(changed.rejected.map((r) => r.url)).toEqual(["ftp://x.example/", "https://empty.example/"]);
    await expectConsistent(ix.database.db);
    const [tomato] = await rows(ix.database.db, sql`select * from search_terms where term = 'tomato'`);
    expect(tomato).toBeUndefined();
    await ix.index.writer.upsert([{ url: "https://example.org/3", title: "Gardening", text: CORPUS[2]?.text as string }]);
    expect(await ix.index.writer.count()).toBe(7);
  });

  it("removes by URL and keeps df and stats exact", async () => {
    await ix.index.writer.upsert([{ url: "https://tmp.example/x", title: "Temporary", text: "zebra cat" }]);
    expect(await ix.index.writer.remove("https://TMP.example/x#a")).toBe(true);
    expect(await ix.index.writer.remove("https://tmp.example/x")).toBe(false);
    expect(await rows(ix.database.db, sql`select * from search_terms where term = 'zebra'`)).toEqual([]);
    await expectConsistent(ix.database.db);
  });

  it("concurrent upserts of overlapping batches keep df and stats exact", async () => {
    const batch = (n: number) =>
      Array.from({ length: 30 }, (_, i) => ({
        url: `https://c.example/${(i + n * 15) % 45}`,
        title: `doc ${i}`,
        text: `word${i % 7} shared ${n}`,
      }));
    await Promise.all([ix.index.writer.upsert(batch(0)), ix.index.writer.upsert(batch(1)), ix.index.writer.upsert(batch(2))]);
    await expectConsistent(ix.database.db);
    for (let i = 0; i < 45; i++) await ix.index.writer.remove(`https://c.example/${i}`);
    await expectConsistent(ix.database.db);
  }, 30_000);

  it("BM25 scores equal the reference formula", async () => {
    for (const text of ["cat garden", "cat cat show", "feline genetics", "2 cats, 3 dogs"]) {
      const expected = referenceScores(CORPUS, text);
      const got = new Map<string, number>();
      for (const domainType of ["web", "news", "research_paper"] as const) {
        for (const r of await bm25Page(ix.database.db, query(text, { domainType }), viewer, clock, DEFAULT_BM25, 100)) {
          got.set(r.url, Number(r.score));
        }
      }
      expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [url, s] of expected) expect(got.get(url)).toBeCloseTo(s, 4);
    }
    // A term the query repeats counts once.
    const scores = async (text: string) =>
      (await bm25Page(ix.database.db, query(text), viewer, clock, DEFAULT_BM25, 100)).map((r) => [r.url, r.score]);
    expect(await scores("cat cat show cats")).toEqual(await scores("cat show"));
  });

  it("a term row without its cf (written by code from before migration 0014) or with a df of 0 ranks without error", async () => {
    const [before] = await rows<{ df: number; cf: number }>(
      ix.database.db,
      sql`select df, cf from search_terms where term = 'garden'`,
    );
    const search = () => bm25Page(ix.database.db, query("cat garden"), viewer, clock, DEFAULT_BM25, 100);
    const full = await search();
    try {
      // No cf: the term weighs its plain idf (the burstiness factor never falls below 1).
      await ix.database.db.execute(sql`update search_terms set cf = 0 where term = 'garden'`);
      const plain = await search();
      expect(plain.map((r) => r.url).sort()).toEqual(full.map((r) => r.url).sort());
      // A df of 0 would divide by zero in the burstiness factor: the term then adds nothing.
      await ix.database.db.execute(sql`update search_terms set df = 0 where term = 'garden'`);
      expect((await search()).length).toBeGreaterThan(0);
    } finally {
      await ix.database.db.execute(
        sql`update search_terms set df = ${Number(before?.df)}, cf = ${Number(before?.cf)} where term = 'garden'`,
      );
    }
    expect(await search()).toEqual(full);
  });

  it("ranks by score, returns snippets with the query terms, site names and metadata", async () => {
    const r = await ix.index.provider.search(query("cat"), signal, viewer);
    expect(r.hits.map((h) => h.url)).toEqual(["https://a.example.com/1", "https://b.example.org/2"]);
    expect(r.hits[0]).toMatchObject({ rank: 1, siteName: "a.example.com", title: "Cats" });
    for (const h of r.hits) expect(h.snippet.toLowerCase()).toContain("cat");
    const paper = await ix.index.provider.search(query("genetics", { domainType: "research_paper" }), signal, viewer);
    expect(paper.hits[0]).toMatchObject({ year: 2019, authors: ["A. Author"] });
    expect((await ix.index.provider.search(query("the of"), signal, viewer)).hits).toEqual([]);
  });

  it("filters: type, include/exclude domains with subdomains, dates, recency, years", async () => {
    const urls = async (text: string, o: Partial<SearchQuery>) =>
      (await ix.index.provider.search(query(text, o), signal, viewer)).hits.map((h) => h.url).sort();
    expect(await urls("cat", { includeDomains: ["example.com"] })).toEqual(["https://a.example.com/1"]);
    expect(await urls("cat", { excludeDomains: ["example.com"] })).toEqual(["https://b.example.org/2"]);
    expect(await urls("cat", { includeDomains: ["ample.com"] })).toEqual([]);
    expect(await urls("show", { domainType: "news" })).toEqual(["https://news.site.net/4", "https://news.site.net/5"]);
    expect(await urls("show", { domainType: "news", afterDate: "2026-02-01" })).toEqual(["https://news.site.net/4"]);
    expect(await urls("show", { domainType: "news", beforeDate: "2026-01-10" })).toEqual(["https://news.site.net/5"]);
    expect(await urls("show", { domainType: "news", recencyMinutes: 24 * 60 })).toEqual(["https://news.site.net/4"]);
    expect(await urls("cat", { domainType: "research_paper", pubYearMin: 2020 })).toEqual(["https://papers.example/7"]);
    expect(await urls("cat", { domainType: "research_paper", pubYearMax: 2020 })).toEqual(["https://papers.example/6"]);
  });

  it("pages of PAGE_SIZE, in a stable order", async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      url: `https://paging.example/${i}`,
      title: "pagetest",
      text: `pagetest ${"x ".repeat(i)}`,
    }));
    await ix.index.writer.upsert(many);
    const pages = [];
    for (let page = 0; page < 3; page++)
      pages.push((await ix.index.provider.search(query("pagetest", { page }), signal, viewer)).hits);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    const all = pages.flat().map((h) => h.url);
    expect(new Set(all).size).toBe(25);
    expect(pages[1]?.[0]?.rank).toBe(11);
    expect(all[0]).toBe("https://paging.example/0"); // shortest document first
    // A common term's postings are read best impact first, at most maxPostingsPerTerm of them.
    const capped = await bm25Page(ix.database.db, query("pagetest"), viewer, clock, { ...DEFAULT_BM25, maxPostingsPerTerm: 3 });
    expect(capped.map((r) => r.url)).toEqual(all.slice(0, 3));
  });

  it("documents without a declared language are analysed in the one detected; CJK text is searchable", async () => {
    await ix.index.writer.upsert([
      {
        url: "https://fr.example/chats",
        title: "Les chats",
        text: "Les chats dorment beaucoup et ils aiment la chaleur du soleil pendant que les enfants jouent dans le jardin avec leurs amis.",
      },
      { url: "https://zh.example/tokyo", title: "东京", text: "东京都是日本的首都，也是世界上人口最多的城市之一。" },
    ]);
    const [lang] = await rows<{ language: string }>(
      ix.database.db,
      sql`select language from search_documents where url = 'https://fr.example/chats'`,
    );
    expect(lang?.language).toBe("fr");
    // French stemming on both sides: "chat" finds "chats", "dormir" does not but "dorment" does.
    const hit = async (text: string, language: string) =>
      (await ix.index.provider.search(query(text, { language }), signal, viewer)).hits.map((h) => h.url);
    expect(await hit("chat", "fr")).toContain("https://fr.example/chats");
    expect(await hit("日本首都", "zh")).toEqual(["https://zh.example/tokyo"]);
    expect(await hit("人口", "zh")).toEqual(["https://zh.example/tokyo"]);
    expect(await hit("大阪", "zh")).toEqual([]);
  });

  it("a document whose text is one CJK run of 150,000 characters (no space or stop) is indexed and found", async () => {
    // Its bigrams were spread into one push() call, past the stack's limit: the upsert threw.
    const run = Array.from({ length: 75_000 }, (_, i) => (i === 70_000 ? "鱼鹰" : "河水")).join("");
    expect(await ix.index.writer.upsert([{ url: "https://zh.example/river", title: "河", text: run }])).toMatchObject({
      inserted: 1,
      rejected: [],
    });
    const hits = (await ix.index.provider.search(query("鱼鹰", { language: "zh" }), signal, viewer)).hits;
    expect(hits.map((h) => h.url)).toEqual(["https://zh.example/river"]);
    expect(tokenize(run)).toHaveLength(149_999);
  });

  it("reads and keeps a document's first million characters of text (cut at a space) and its title's first thousand", async () => {
    // 3 MB of distinct tokens (a log, a list of ids), with a word near the start and one near the end.
    const ids = Array.from({ length: 300_000 }, (_, i) => `id${(i * 2654435761) % 4294967296}x`);
    ids[10] = "ospreyhead";
    ids[299_990] = "ospreytail";
    const text = ids.join(" ");
    const started = performance.now();
    expect(
      await ix.index.writer.upsert([{ url: "https://log.example/dump", title: `Dump ${"t".repeat(5000)}`, text }]),
    ).toMatchObject({ inserted: 1, rejected: [] });
    // The whole text took about 5 s here, and most of a GB of the embedded database, which never gives memory back.
    expect(performance.now() - started).toBeLessThan(15_000);
    const found = async (word: string) => (await ix.index.provider.search(query(word), signal, viewer)).hits.map((h) => h.url);
    expect(await found("ospreyhead")).toEqual(["https://log.example/dump"]);
    expect(await found("ospreytail")).toEqual([]);
    const [row] = await rows<{ body: number; title: number }>(
      ix.database.db,
      sql`select length(body) as body, length(title) as title from search_documents where url = 'https://log.example/dump'`,
    );
    expect(Number(row?.body)).toBeLessThanOrEqual(MAX_INDEXED_CHARS);
    expect(Number(row?.body)).toBeGreaterThan(MAX_INDEXED_CHARS - 20);
    expect(Number(row?.title)).toBeLessThanOrEqual(MAX_TITLE_CHARS);
    // Cut at a space, not inside a token; never inside a surrogate pair.
    expect(text.slice(0, Number(row?.body) + 1)).toMatch(/x $/);
    expect(cutText(`${"a".repeat(9)}😀b`, 10)).toBe("a".repeat(9));
  });

  it("a search is one statement that checks the languages it assumed, and ranks again when they changed", async () => {
    const papers = (text: string) =>
      bm25Page(ix.database.db, query(text, { domainType: "research_paper" }), viewer, clock, DEFAULT_BM25);
    expect((await papers("feline")).length).toBe(2); // the papers are English: [en] is assumed from here on
    const execute = vi.spyOn(ix.database.db, "execute");
    const transaction = vi.spyOn(ix.database.db, "transaction");
    // Statements that rank: on PGlite one runs as a transaction of its own under a generic plan
    // (functions/db/generic-plan.ts), after a PREPARE the first time its shape is seen.
    const ranking = {
      mockClear: () => {
        execute.mockClear();
        transaction.mockClear();
      },
      count: () =>
        execute.mock.calls.filter(([q]) => !dialect.sqlToQuery(q as SQL).sql.startsWith("prepare ")).length +
        transaction.mock.calls.length,
    };
    try {
      expect((await papers("genetics")).map((r) => r.url)).toEqual(["https://papers.example/6"]);
      expect(ranking.count()).toBe(1);
      // A Spanish paper: "gatos" is "gato" in English and "gat" in Spanish, so the assumed [en]
      // misses it and the statement's own read of the languages ([en, es]) ranks it again.
      await ix.index.writer.upsert([
        {
          url: "https://papers.example/es",
          title: "Gatos",
          text: "Los gatos duermen mucho.",
          type: "research_paper",
          language: "es",
        },
      ]);
      ranking.mockClear();
      expect((await papers("gatos")).map((r) => r.url)).toEqual(["https://papers.example/es"]);
      expect(ranking.count()).toBe(2);
      ranking.mockClear();
      expect((await papers("gatos")).map((r) => r.url)).toEqual(["https://papers.example/es"]);
      expect(ranking.count()).toBe(1);
      // Its language gone, the English analysis alone again (an empty page still reads the languages).
      await ix.index.writer.remove("https://papers.example/es");
      expect(await papers("gatos")).toEqual([]);
      ranking.mockClear();
      expect((await papers("feline")).length).toBe(2);
      expect(ranking.count()).toBe(1);
    } finally {
      execute.mockRestore();
      transaction.mockRestore();
    }
  });

  it("domain filters match a host or its subdomains, with LIKE's wildcards taken literally", async () => {
    await ix.index.writer.upsert([
      { url: "https://a_b.example/1", title: "wildcard host", text: "underscored" },
      { url: "https://axb.example/2", title: "wildcard host", text: "underscored" },
      { url: "https://deep.sub.a_b.example/3", title: "wildcard host", text: "underscored" },
      { url: "https://nota_b.example/4", title: "wildcard host", text: "underscored" },
    ]);
    const urls = async (o: Partial<SearchQuery>) =>
      (await ix.index.provider.search(query("underscored", o), signal, viewer)).hits.map((h) => h.url).sort();
    expect(await urls({ includeDomains: ["a_b.example"] })).toEqual(["https://a_b.example/1", "https://deep.sub.a_b.example/3"]);
    expect(await urls({ excludeDomains: ["a_b.example"] })).toEqual(["https://axb.example/2", "https://nota_b.example/4"]);
  });

  it("a narrowing filter applies before the per-term cap, so a small slice is not starved", async () => {
    // 20 web pages with strong postings for "crowded", then 2 news items and a page on another
    // host with weaker ones: with a cap of 3, the unfiltered best 3 are all web pages of one host.
    const strong = Array.from({ length: 20 }, (_, i) => ({
      url: `https://crowd.example/${i}`,
      title: "crowded crowded",
      text: "crowded crowded crowded",
    }));
    const weak = [
      {
        url: "https://wire.example/n1",
        title: "Today",
        text: `crowded ${"filler ".repeat(40)}`,
        type: "news" as const,
        publishedDate: "2026-06-01",
      },
      {
        url: "https://wire.example/n2",
        title: "Later",
        text: `crowded ${"filler ".repeat(50)}`,
        type: "news" as const,
        publishedDate: "2026-06-02",
      },
      { url: "https://quiet.example/p", title: "Quiet", text: `crowded ${"filler ".repeat(30)}` },
    ];
    await ix.index.writer.upsert([...strong, ...weak]);
    const cap = { ...DEFAULT_BM25, maxPostingsPerTerm: 3 };
    const urls = async (o: Partial<SearchQuery>) =>
      (await bm25Page(ix.database.db, query("crowded", o), viewer, clock, cap)).map((r) => r.url);
    expect(await urls({ domainType: "news" })).toEqual(["https://wire.example/n1", "https://wire.example/n2"]);
    expect(await urls({ includeDomains: ["quiet.example"] })).toEqual(["https://quiet.example/p"]);
    expect(await urls({ excludeDomains: ["crowd.example"] })).toEqual(["https://quiet.example/p"]);
    expect(await urls({ domainType: "news", afterDate: "2026-06-02" })).toEqual(["https://wire.example/n2"]);
    // Unfiltered web queries keep the fast path: the 3 best postings, all of the crowded host.
    expect((await urls({})).every((u) => u.startsWith("https://crowd.example/"))).toBe(true);
    // The same ranking as an uncapped query, for the filtered slice.
    const exact = await bm25Page(ix.database.db, query("crowded", { domainType: "news" }), viewer, clock, DEFAULT_BM25);
    const capped = await bm25Page(ix.database.db, query("crowded", { domainType: "news" }), viewer, clock, cap);
    expect(capped.map((r) => [r.url, r.score])).toEqual(exact.map((r) => [r.url, r.score]));
  });
});
