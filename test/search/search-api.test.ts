import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderError, type SearchHit, type SearchProvider, type SearchQuery } from "../../functions/search/types.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

type Behaviour = (q: SearchQuery) => SearchHit[] | Promise<SearchHit[]>;

/** A provider whose answer each test sets; it records what it was asked. */
function scripted(name: string, supports: (q: SearchQuery) => boolean = () => true) {
  const state = { calls: [] as SearchQuery[], behaviour: (() => []) as Behaviour };
  const provider: SearchProvider = {
    name,
    supports,
    async search(q) {
      state.calls.push(q);
      return { hits: await state.behaviour(q) };
    },
  };
  return { provider, state };
}

const hit = (url: string, rank: number, extra: Partial<SearchHit> = {}): SearchHit => ({
  url,
  title: `Title ${url}`,
  snippet: "",
  siteName: new URL(url).hostname,
  rank,
  ...extra,
});

interface Body {
  query: string;
  results: Record<string, unknown>[];
  total_results: number;
  page: number;
}

// GET {search_url} behaviour (spec 4.7, 5.7, 7.1, 8): merging, caching, degradation, access,
// rate limits; validation is in search-api-validation.test.ts, the usage listing in search-usage.test.ts.
describe.each(driverCases(["pglite", "pg"]))("search API on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let key: string;
  const a = scripted("alpha");
  const b = scripted("beta");
  const papers = scripted("papers", (q) => q.domainType === "research_paper");

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db, { search: { providers: [a.provider, b.provider, papers.provider], providerTimeoutMs: 200 } });
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await db.dispose();
  });
  beforeEach(() => {
    for (const s of [a.state, b.state, papers.state]) {
      s.calls.length = 0;
      s.behaviour = () => [];
    }
  });

  async function search(query: string, extra: Record<string, string> = {}, k = key) {
    return ctx.call(k, `/search?${new URLSearchParams({ query, ...extra })}`);
  }
  async function ok(query: string, extra: Record<string, string> = {}): Promise<{ res: Response; body: Body }> {
    const res = await search(query, extra);
    expect(res.status).toBe(200);
    return { res, body: (await res.json()) as Body };
  }

  it("interleaves providers by rank, de-duplicates by URL keeping the richest hit, and numbers positions", async () => {
    a.state.behaviour = () => [
      hit("https://two.example/a", 2),
      hit("https://one.example/", 1),
      hit("https://www.dup.example/page/#top", 3),
    ];
    b.state.behaviour = () => [
      hit("http://dup.example/page", 1, { snippet: "A much richer snippet about the page.", date: "2024-05-01" }),
      hit("https://three.example/", 2),
    ];
    const { res, body } = await ok("merge me");
    expect(body.results.map((r) => [r.position, r.url])).toEqual([
      [1, "https://one.example/"],
      [2, "http://dup.example/page"],
      [3, "https://two.example/a"],
      [4, "https://three.example/"],
    ]);
    expect(body.results[1]).toEqual({
      position: 2,
      site_name: "dup.example",
      title: "Title http://dup.example/page",
      snippet: "A much richer snippet about the page.",
      url: "http://dup.example/page",
      date: "2024-05-01",
    });
    expect(body.total_results).toBe(4);
    expect(papers.state.calls).toHaveLength(0);
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
  });

  it("numbers page N from N×10+1 and returns at most 10 results", async () => {
    a.state.behaviour = (q) => Array.from({ length: 10 }, (_, i) => hit(`https://a.example/${q.page}/${i}`, i + 1));
    b.state.behaviour = (q) => Array.from({ length: 10 }, (_, i) => hit(`https://b.example/${q.page}/${i}`, i + 1));
    const { body } = await ok("paged", { page: "2" });
    expect(body.page).toBe(2);
    expect(body.results.map((r) => r.position)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(body.results.slice(0, 2).map((r) => r.url)).toEqual(["https://a.example/2/0", "https://b.example/2/0"]);
  });

  it("filters again by domains and dates, whatever the providers return", async () => {
    a.state.behaviour = () => [
      hit("https://news.example.com/in", 1, { date: "2024-03-10", publisher: "Example News" }),
      hit("https://other.org/out", 2, { date: "2024-03-10" }),
      hit("https://ads.example.com/out", 3, { date: "2024-03-10" }),
      hit("https://example.com/old", 4, { date: "2023-12-31" }),
      hit("https://example.com/undated", 5),
    ];
    const { body } = await ok("filtered site:example.com -site:ads.example.com", {
      domain_type: "news",
      after_date: "2024-01-01",
      before_date: "2024-12-31",
    });
    expect(body.query).toBe("filtered");
    // An undated news hit cannot be shown to fall in the date range: it is dropped (a web hit would be kept).
    expect(body.results.map((r) => r.url)).toEqual(["https://news.example.com/in"]);
    expect(body.results[0]).toMatchObject({ publisher: "Example News", date: "2024-03-10" });
  });

  it("sends research_paper queries to the providers that support them, with their fields", async () => {
    papers.state.behaviour = () => [
      hit("https://doi.example/1", 1, {
        authors: ["A. Author"],
        venue: "J. Birds",
        year: 2020,
        citedByCount: 7,
        pdfUrl: "https://doi.example/1.pdf",
        publisher: "X",
      }),
      hit("https://doi.example/2", 2, { year: 1999 }),
    ];
    const { body } = await ok("papers", { domain_type: "research_paper", pub_year_min: "2000" });
    expect(a.state.calls).toHaveLength(1);
    expect(papers.state.calls[0]).toMatchObject({ domainType: "research_paper", pubYearMin: 2000 });
    expect(body.results).toEqual([
      {
        position: 1,
        site_name: "doi.example",
        title: "Title https://doi.example/1",
        snippet: "",
        url: "https://doi.example/1",
        authors: ["A. Author"],
        venue: "J. Birds",
        year: 2020,
        cited_by_count: 7,
        pdf_url: "https://doi.example/1.pdf",
      },
    ]);
  });

  it("answers a repeated request from the cache, without asking the providers", async () => {
    a.state.behaviour = () => [hit("https://cached.example/", 1)];
    const first = await ok("Cache  Me");
    const second = await ok("cache me");
    expect(a.state.calls).toHaveLength(1);
    expect(second.body.results).toEqual(first.body.results);
    expect(second.body.query).toBe("cache me");
    ctx.clock.advance(61_000);
    await ok("cache me");
    expect(a.state.calls).toHaveLength(2);
    const usage = (await (await ctx.call(key, "/search/usage?limit=3")).json()) as {
      items: { query: string; cached: boolean }[];
    };
    expect(usage.items.map((i) => [i.query, i.cached])).toEqual([
      ["cache me", false],
      ["cache me", true],
      ["Cache Me", false],
    ]);
  });

  it("degrades when a provider fails or times out, and does not cache the degraded answer", async () => {
    a.state.behaviour = () => {
      throw new ProviderError("alpha", "upstream 500", 500);
    };
    b.state.behaviour = () => [hit("https://survivor.example/", 1)];
    expect((await ok("degraded")).body.results.map((r) => r.url)).toEqual(["https://survivor.example/"]);
    a.state.behaviour = () => new Promise(() => {});
    expect((await ok("degraded")).body.results).toHaveLength(1);
    expect(b.state.calls).toHaveLength(2);
  });

  it("answers 503 SERVICE_BUSY when every provider fails", async () => {
    a.state.behaviour = () => {
      throw new ProviderError("alpha", "down", 502);
    };
    b.state.behaviour = () => {
      throw new Error("bug");
    };
    const res = await search("all down");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SERVICE_BUSY");
  });

  it("answers 403 FORBIDDEN when every provider fails and an upstream refused (403)", async () => {
    a.state.behaviour = () => {
      throw new ProviderError("alpha", "forbidden", 403);
    };
    b.state.behaviour = () => new Promise(() => {});
    const res = await search("refused");
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/upstream/),
    });
    a.state.behaviour = () => [hit("https://fine.example/", 1)];
    expect((await search("refused only by one")).status).toBe(200);
  });

  it("answers 402 when the account's Search API access is revoked", async () => {
    const { key: k, accountId } = await ctx.newKey({ plan: "starter" });
    await ctx.services.accounts.revoke(accountId, ["search_access"]);
    const res = await search("no access", {}, k);
    expect(res.status).toBe(402);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/^Search API access requires/) });
    expect(a.state.calls).toHaveLength(0);
  });

  it("limits each key to its plan's searchRpm (free: 30 per minute)", async () => {
    ctx.clock.set("2026-11-21T12:00:00.000Z");
    const { key: k } = await ctx.newKey({ plan: "free" });
    for (let i = 0; i < 30; i++) expect((await search(`rpm ${i}`, {}, k)).status).toBe(200);
    const res = await search("rpm over", {}, k);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(res.headers.get("x-ratelimit-limit")).toBe("30");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMIT_EXCEEDED");
    ctx.clock.advance(60_000);
    expect((await search("rpm again", {}, k)).status).toBe(200);
  });

  it("needs an API key", async () => {
    const res = await ctx.app.request("/search?query=x");
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("MISSING_API_KEY");
  });
});

describe.each(driverCases(["pglite"]))("search API disabled on $driver", ({ open }) => {
  let db: TestDatabase;
  afterAll(async () => {
    await db.dispose();
  });

  it("answers 404 NOT_FOUND on every search path, before validation", async () => {
    db = await open();
    const ctx = createTestContext(db.db, { search: { enabled: false } });
    const { key } = await ctx.newKey();
    for (const path of ["/search?query=x", "/search", "/search/usage", "/search/usage?limit=0"]) {
      const res = await ctx.call(key, path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/search API is not available/i);
    }
    expect((await ctx.app.request("/search?query=x")).status).toBe(401);
    expect((await ctx.app.request("/search/openapi.json")).status).toBe(200);
  });
});
