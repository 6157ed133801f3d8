import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchProvider, SearchQuery } from "../../functions/search/types.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

interface ErrorBody {
  error: { code: string; message: string; details?: { code: string; path: (string | number)[]; message: string }[] };
}

// GET {search_url} parameter validation (spec 4.7 rules 1-5, 8, 9.3): every violation is a 400
// INVALID_INPUT whose details point at the offending parameter; what passes reaches the providers
// as the executed query.
describe.each(driverCases(["pglite"]))("search API validation on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let key: string;
  const seen: SearchQuery[] = [];
  const recorder: SearchProvider = {
    name: "recorder",
    supports: () => true,
    async search(q) {
      seen.push(q);
      return { hits: [] };
    },
  };

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db, { search: { providers: [recorder], cacheTtlMs: 0 } });
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await db.dispose();
  });

  const qs = (params: Record<string, string>) => `/search?${new URLSearchParams(params)}`;

  async function executed(params: Record<string, string>): Promise<{ query: SearchQuery; body: Record<string, unknown> }> {
    const before = seen.length;
    const res = await ctx.call(key, qs(params));
    expect(res.status).toBe(200);
    expect(seen.length).toBe(before + 1);
    return { query: seen[seen.length - 1] as SearchQuery, body: (await res.json()) as Record<string, unknown> };
  }

  const bad: { name: string; params: Record<string, string>; path: (string | number)[] }[] = [
    { name: "missing query", params: {}, path: ["query"] },
    { name: "blank query", params: { query: "   " }, path: ["query"] },
    { name: "query of only -site: operators", params: { query: "-site:a.com" }, path: ["query"] },
    { name: "site: without a domain", params: { query: "x site:not_a_host" }, path: ["query"] },
    { name: "purpose of 2001 characters", params: { query: "x", purpose: "p".repeat(2001) }, path: ["purpose"] },
    { name: "page 11", params: { query: "x", page: "11" }, path: ["page"] },
    { name: "page -1", params: { query: "x", page: "-1" }, path: ["page"] },
    { name: "page 1.5", params: { query: "x", page: "1.5" }, path: ["page"] },
    { name: "page abc", params: { query: "x", page: "abc" }, path: ["page"] },
    { name: "recency 0", params: { query: "x", recency_minutes: "0" }, path: ["recency_minutes"] },
    { name: "recency 5256001", params: { query: "x", recency_minutes: "5256001" }, path: ["recency_minutes"] },
    {
      name: "pub_year_min -1",
      params: { query: "x", domain_type: "research_paper", pub_year_min: "-1" },
      path: ["pub_year_min"],
    },
    {
      name: "pub_year_max 10000",
      params: { query: "x", domain_type: "research_paper", pub_year_max: "10000" },
      path: ["pub_year_max"],
    },
    { name: "2024-02-30", params: { query: "x", after_date: "2024-02-30" }, path: ["after_date"] },
    { name: "2023-02-29", params: { query: "x", before_date: "2023-02-29" }, path: ["before_date"] },
    { name: "2024-1-05", params: { query: "x", after_date: "2024-1-05" }, path: ["after_date"] },
    { name: "after > before", params: { query: "x", after_date: "2024-03-02", before_date: "2024-03-01" }, path: ["after_date"] },
    {
      name: "recency + after_date",
      params: { query: "x", recency_minutes: "60", after_date: "2024-03-01" },
      path: ["after_date"],
    },
    {
      name: "recency + before_date",
      params: { query: "x", recency_minutes: "60", before_date: "2024-03-01" },
      path: ["before_date"],
    },
    {
      name: "research + after_date",
      params: { query: "x", domain_type: "research_paper", after_date: "2024-01-01" },
      path: ["after_date"],
    },
    {
      name: "research + recency",
      params: { query: "x", domain_type: "research_paper", recency_minutes: "5" },
      path: ["recency_minutes"],
    },
    { name: "years with web", params: { query: "x", pub_year_min: "2000" }, path: ["pub_year_min"] },
    { name: "years with news", params: { query: "x", domain_type: "news", pub_year_max: "2000" }, path: ["pub_year_max"] },
    {
      name: "pub_year_min > pub_year_max",
      params: { query: "x", domain_type: "research_paper", pub_year_min: "2021", pub_year_max: "2020" },
      path: ["pub_year_min"],
    },
    { name: "unknown domain_type", params: { query: "x", domain_type: "images" }, path: ["domain_type"] },
    { name: "location XX", params: { query: "x", location: "XX" }, path: ["location"] },
    { name: "location USA", params: { query: "x", location: "USA" }, path: ["location"] },
    { name: "location EU (not a country)", params: { query: "x", location: "EU" }, path: ["location"] },
    { name: "language xx", params: { query: "x", language: "xx" }, path: ["language"] },
    { name: "language english", params: { query: "x", language: "english" }, path: ["language"] },
    {
      name: "include entry with a scheme",
      params: { query: "x", include_domains: "a.com,https://b.com" },
      path: ["include_domains", 1],
    },
    { name: "include empty entry", params: { query: "x", include_domains: "a.com,,b.com" }, path: ["include_domains", 1] },
    { name: "exclude bare word", params: { query: "x", exclude_domains: "localhost" }, path: ["exclude_domains", 0] },
    { name: "exclude with a path", params: { query: "x", exclude_domains: "a.com/x" }, path: ["exclude_domains", 0] },
    { name: "unknown parameter", params: { query: "x", q: "y" }, path: [] },
  ];

  it.each(bad)("$name → 400 INVALID_INPUT at $path", async ({ params, path }) => {
    const before = seen.length;
    const res = await ctx.call(key, qs(params));
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("INVALID_INPUT");
    expect(body.error.details?.map((d) => d.path)).toContainEqual(path);
    expect(seen.length).toBe(before);
  });

  it("accepts the bounds of every range", async () => {
    const cases: Record<string, string>[] = [
      { query: "x", page: "0" },
      { query: "x", page: "10" },
      { query: "x", recency_minutes: "1" },
      { query: "x", recency_minutes: "5256000" },
      { query: "x", domain_type: "research_paper", pub_year_min: "0", pub_year_max: "9999" },
      { query: "x", domain_type: "research_paper", pub_year_min: "2020", pub_year_max: "2020" },
      { query: "x", after_date: "2024-02-29", before_date: "2024-02-29" },
      { query: "x", purpose: "p".repeat(2000) },
    ];
    for (const params of cases) {
      await executed(params);
    }
  });

  it("passes the typed parameters through to the providers", async () => {
    const { query, body } = await executed({
      query: "ospreys",
      page: "3",
      domain_type: "news",
      after_date: "2024-01-01",
      before_date: "2024-06-30",
      include_domains: " Example.COM , *.docs.rs,bücher.de",
      exclude_domains: "ads.example.com",
    });
    expect(query).toMatchObject({
      text: "ospreys",
      page: 3,
      domainType: "news",
      afterDate: "2024-01-01",
      beforeDate: "2024-06-30",
      includeDomains: ["example.com", "docs.rs", "xn--bcher-kva.de"],
      excludeDomains: ["ads.example.com"],
    });
    expect(body).toEqual({ query: "ospreys", results: [], total_results: 0, page: 3 });
  });

  describe("rule 1: location and language pairing", () => {
    it.each<{ params: Record<string, string>; location: string; language: string }>([
      { params: { location: "BR" }, location: "BR", language: "pt" },
      { params: { location: "GB" }, location: "GB", language: "en" },
      { params: { location: "de" }, location: "DE", language: "de" },
      { params: { language: "ja" }, location: "JP", language: "ja" },
      { params: { language: "fr" }, location: "FR", language: "fr" },
      { params: { language: "DE" }, location: "DE", language: "de" },
      { params: { location: "CA", language: "fr" }, location: "CA", language: "fr" },
      { params: {}, location: "US", language: "en" },
    ])("$params → $location/$language", async ({ params, location, language }) => {
      const { query } = await executed({ query: "pairing", ...params });
      expect(query).toMatchObject({ location, language });
    });
  });

  describe("site: operators (deprecated, still working)", () => {
    it("are removed from the executed query and merged into the domain lists", async () => {
      const { query, body } = await executed({
        query: 'ospreys SITE:Audubon.org  nesting -site:"spam.example" site:audubon.org',
        include_domains: "allaboutbirds.org",
        exclude_domains: "ads.example",
      });
      expect(query.text).toBe("ospreys nesting");
      expect(query.includeDomains).toEqual(["allaboutbirds.org", "audubon.org"]);
      expect(query.excludeDomains).toEqual(["ads.example", "spam.example"]);
      expect(body.query).toBe("ospreys nesting");
    });

    it("leave words that only contain site: alone", async () => {
      const { query } = await executed({ query: "website:design site:https://example.org/path" });
      expect(query.text).toBe("website:design");
      expect(query.includeDomains).toEqual(["example.org"]);
    });

    it("a query of only a site: operator searches that domain", async () => {
      const { query } = await executed({ query: "site:example.org" });
      expect(query).toMatchObject({ text: "", includeDomains: ["example.org"] });
    });
  });
});
