import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { braveFreshness, createBraveProvider } from "../../functions/search/providers/brave.ts";
import { providersFromEnv } from "../../functions/search/providers/from-config.ts";
import { createOpenAlexProvider } from "../../functions/search/providers/openalex.ts";
import { createSearxngProvider, searxngUrl } from "../../functions/search/providers/searxng.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { FIXTURE_NOW, OPENALEX_ABSTRACT } from "../helpers/search-upstream-fixtures.ts";
import { searchQuery as query, startBrave, startOpenAlex, startSearxng, type UpstreamStub } from "../helpers/search-upstreams.ts";

/** Parameter and result mapping of the three upstream providers against local stand-ins (errors: providers-errors.test.ts). */

const KEY = "brv-secret-key-123";
const now = () => FIXTURE_NOW;
const signal = () => new AbortController().signal;
let searxng: UpstreamStub;
let brave: UpstreamStub;
let openalex: UpstreamStub;
beforeAll(async () => {
  [searxng, brave, openalex] = await Promise.all([startSearxng(), startBrave(KEY), startOpenAlex()]);
});
afterAll(() => Promise.all([searxng.close(), brave.close(), openalex.close()]));

describe("SearXNG", () => {
  const provider = () => createSearxngProvider({ baseUrl: searxng.url, now });

  it("maps the query onto /search?format=json", async () => {
    await provider().search(query(), signal());
    const req = searxng.last();
    expect(req.path).toBe("/search");
    expect(Object.fromEntries(req.params)).toEqual({
      q: "osprey",
      format: "json",
      categories: "general",
      language: "en",
      pageno: "1",
    });

    const q = query({
      domainType: "news",
      includeDomains: ["example.com"],
      excludeDomains: ["blog.example.com"],
      page: 2,
      language: "fr",
      recencyMinutes: 60,
    });
    await provider().search(q, signal());
    expect(Object.fromEntries(searxng.last().params)).toEqual({
      q: "osprey site:example.com -site:blog.example.com",
      format: "json",
      categories: "news",
      language: "fr",
      pageno: "3",
      time_range: "day",
    });
    await provider().search(query({ includeDomains: ["a.com", "b.org"] }), signal());
    expect(searxng.last().params.get("q")).toBe("osprey (site:a.com OR site:b.org)");
  });

  it("picks the narrowest time_range that contains the request", () => {
    const range = (over: Partial<SearchQuery>) =>
      searxngUrl(new URL(searxng.url), query(over), FIXTURE_NOW).searchParams.get("time_range");
    expect(range({ recencyMinutes: 1440 })).toBe("day");
    expect(range({ recencyMinutes: 2 * 1440 })).toBe("week");
    expect(range({ recencyMinutes: 20 * 1440 })).toBe("month");
    expect(range({ recencyMinutes: 29 * 1440 })).toBe("year");
    expect(range({ recencyMinutes: 400 * 1440 })).toBeNull();
    expect(range({ afterDate: "2026-03-10" })).toBe("week");
    expect(range({ afterDate: "2026-01-01", beforeDate: "2026-01-31" })).toBe("year");
    expect(range({ beforeDate: "2026-01-31" })).toBeNull();
  });

  it("sends credentials in the base URL as Basic auth, not in the URL", async () => {
    const base = searxng.url.replace("http://", "http://osprey:p%40ss@");
    await createSearxngProvider({ baseUrl: `${base}/searx/`, now })
      .search(query(), signal())
      .catch(() => undefined);
    const req = searxng.last();
    expect(req.path).toBe("/searx/search");
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from("osprey:p@ss").toString("base64")}`);
  });

  it("maps results: plain snippets, site names without www., calendar dates, upstream rank", async () => {
    const { hits, total } = await provider().search(query(), signal());
    expect(total).toBe(184000);
    expect(hits.map((h) => h.url)).toEqual([
      "https://en.wikipedia.org/wiki/Osprey",
      "https://www.audubon.org/field-guide/bird/osprey",
      "https://blog.example.com/osprey-nest",
      "https://www.example.com/osprey-cam",
      "https://notexample.com/osprey",
    ]);
    expect(hits[0]).toEqual({
      url: "https://en.wikipedia.org/wiki/Osprey",
      title: "Osprey - Wikipedia",
      snippet: "The osprey (Pandion haliaetus) is a fish-eating bird of prey & raptor.",
      siteName: "en.wikipedia.org",
      rank: 1,
    });
    expect(hits[1]).toMatchObject({
      siteName: "audubon.org",
      snippet: `Ospreys "hover" over water's surface.`,
      date: "2026-03-10",
    });
    expect(hits[3]).toMatchObject({ siteName: "example.com", date: "2026-03-14", rank: 4 });
    expect(hits.every((h) => h.publisher === undefined)).toBe(true);

    const news = await provider().search(query({ domainType: "news", page: 1 }), signal());
    expect(news.total).toBeUndefined();
    expect(news.hits[0]).toMatchObject({ siteName: "bbc.co.uk", publisher: "bbc.co.uk", date: "2026-03-15", rank: 11 });
  });

  it("post-filters hosts and dates the upstream ignored", async () => {
    const inc = await provider().search(
      query({ includeDomains: ["example.com"], excludeDomains: ["blog.example.com"] }),
      signal(),
    );
    expect(inc.hits.map((h) => h.url)).toEqual(["https://www.example.com/osprey-cam"]);
    const exc = await provider().search(query({ excludeDomains: ["wikipedia.org", "audubon.org"] }), signal());
    expect(exc.hits.map((h) => h.siteName)).toEqual(["blog.example.com", "example.com", "notexample.com"]);
    // web: undated pages stay, dated ones outside the bounds go
    const web = await provider().search(query({ afterDate: "2026-03-01" }), signal());
    expect(web.hits.map((h) => h.siteName)).toEqual(["en.wikipedia.org", "audubon.org", "example.com", "notexample.com"]);
    // news: the last day only, undated items dropped
    const news = await provider().search(query({ domainType: "news", recencyMinutes: 1440 }), signal());
    expect(news.hits.map((h) => h.url)).toEqual(["https://www.bbc.co.uk/news/osprey-returns"]);
  });

  it("serves web and news only", () => {
    expect(provider().supports(query({ domainType: "research_paper" }))).toBe(false);
    expect(provider().supports(query({ domainType: "news", page: 10 }))).toBe(true);
  });
});

describe("Brave", () => {
  const provider = () => createBraveProvider({ apiKey: KEY, baseUrl: brave.url, now });

  it("maps the query onto /res/v1/web/search with the subscription token", async () => {
    await provider().search(query({ excludeDomains: ["pinterest.com"] }), signal());
    const req = brave.last();
    expect(req.path).toBe("/res/v1/web/search");
    expect(req.headers["x-subscription-token"]).toBe(KEY);
    expect(req.headers.accept).toBe("application/json");
    expect(Object.fromEntries(req.params)).toEqual({
      q: "osprey -site:pinterest.com",
      country: "US",
      search_lang: "en",
      count: "10",
      offset: "0",
      result_filter: "web",
    });

    await provider().search(query({ domainType: "news", location: "GB", page: 3, recencyMinutes: 3 * 1440 }), signal());
    const news = brave.last();
    expect(news.path).toBe("/res/v1/news/search");
    expect(Object.fromEntries(news.params)).toMatchObject({ country: "GB", search_lang: "en-gb", offset: "3", freshness: "pw" });
    expect(news.params.has("result_filter")).toBe(false);

    await provider().search(query({ language: "ja", location: "JP" }), signal());
    expect(brave.last().params.get("search_lang")).toBe("jp");
    await provider().search(query({ language: "sw", location: "KE" }), signal());
    expect(brave.last().params.get("country")).toBe("ALL");
    expect(brave.last().params.has("search_lang")).toBe(false);
  });

  it("maps recency and dates to freshness", () => {
    const f = (over: Partial<SearchQuery>) => braveFreshness(query(over), FIXTURE_NOW);
    expect(f({})).toBeUndefined();
    expect(f({ recencyMinutes: 60 })).toBe("pd");
    expect(f({ recencyMinutes: 3 * 1440 })).toBe("pw");
    expect(f({ recencyMinutes: 20 * 1440 })).toBe("pm");
    expect(f({ recencyMinutes: 200 * 1440 })).toBe("py");
    expect(f({ recencyMinutes: 730 * 1440 })).toBe("2024-03-15to2026-03-15");
    expect(f({ afterDate: "2026-01-01", beforeDate: "2026-02-01" })).toBe("2026-01-01to2026-02-01");
    expect(f({ afterDate: "2026-03-01" })).toBe("2026-03-01to2026-03-16");
    expect(f({ beforeDate: "2020-12-31" })).toBe("1970-01-01to2020-12-31");
  });

  it("serves web and news for pages 0 to 9 (offset is a page index)", () => {
    expect(provider().supports(query({ page: 9 }))).toBe(true);
    expect(provider().supports(query({ page: 10 }))).toBe(false);
    expect(provider().supports(query({ domainType: "research_paper" }))).toBe(false);
  });

  it("maps web results: <strong> and entities stripped, page_age or relative age as the date", async () => {
    const { hits } = await provider().search(query(), signal());
    expect(hits[0]).toEqual({
      url: "https://en.wikipedia.org/wiki/Osprey",
      title: "Osprey - Wikipedia",
      snippet: "The osprey (Pandion haliaetus) 'fish hawk' & sea hawk…",
      siteName: "en.wikipedia.org",
      date: "2026-03-01",
      rank: 1,
    });
    expect(hits[1]).toMatchObject({ snippet: "Docs <v2>", date: "2026-03-13", siteName: "docs.example.com" });
    expect(hits[2]).toMatchObject({ siteName: "other.org" });
    expect(hits[2]?.date).toBeUndefined();
  });

  it("maps news results with a publisher and post-filters hosts and dates", async () => {
    const { hits } = await provider().search(query({ domainType: "news", page: 1 }), signal());
    expect(hits[0]).toEqual({
      url: "https://www.bbc.co.uk/news/osprey-returns",
      title: "Ospreys return",
      snippet: "Ospreys return in the news",
      siteName: "bbc.co.uk",
      date: "2026-03-15",
      publisher: "bbc.co.uk",
      rank: 11,
    });
    expect(hits[1]).toMatchObject({ date: "2026-03-13", publisher: "news.example.com" });
    const recent = await provider().search(query({ domainType: "news", afterDate: "2026-03-01" }), signal());
    expect(recent.hits.map((h) => h.siteName)).toEqual(["bbc.co.uk", "news.example.com"]);
    const site = await provider().search(query({ includeDomains: ["example.com"], beforeDate: "2025-01-01" }), signal());
    expect(site.hits.map((h) => h.url)).toEqual(["https://old.example.com/osprey"]);
  });
});

describe("OpenAlex", () => {
  const provider = (apiKey?: string) => createOpenAlexProvider({ baseUrl: openalex.url, apiKey, mailto: "ops@example.org" });
  const paper = (over: Partial<SearchQuery> = {}) => query({ domainType: "research_paper", ...over });

  it("maps the query onto /works with year bounds as a publication_year filter", async () => {
    await provider("oa-key").search(paper({ pubYearMin: 2016, pubYearMax: 2020, page: 1 }), signal());
    expect(openalex.last().path).toBe("/works");
    expect(Object.fromEntries(openalex.last().params)).toEqual({
      search: "osprey",
      filter: "publication_year:2016-2020",
      "per-page": "10",
      page: "2",
      api_key: "oa-key",
      mailto: "ops@example.org",
    });
    await provider().search(paper({ pubYearMin: 2016 }), signal());
    expect(openalex.last().params.get("filter")).toBe("publication_year:>2015");
    expect(openalex.last().params.has("api_key")).toBe(false);
    await provider().search(paper({ pubYearMax: 2020 }), signal());
    expect(openalex.last().params.get("filter")).toBe("publication_year:<2021");
  });

  it("serves research papers only", () => {
    expect(provider().supports(paper())).toBe(true);
    expect(provider().supports(query())).toBe(false);
    expect(provider().supports(query({ domainType: "news" }))).toBe(false);
  });

  it("maps works: authors, venue, year, citations, PDF, snippet rebuilt from the inverted abstract", async () => {
    const { hits, total } = await provider().search(paper(), signal());
    expect(total).toBe(2345);
    expect(hits).toHaveLength(3);
    expect(hits[0]).toMatchObject({
      url: "https://doi.org/10.7717/peerj.4375",
      title: "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles",
      siteName: "doi.org",
      date: "2018-02-13",
      authors: ["Heather Piwowar", "Jason Priem", "Stefanie Haustein"],
      venue: "PeerJ",
      year: 2018,
      citedByCount: 1129,
      pdfUrl: "https://peerj.com/articles/4375.pdf",
      rank: 1,
    });
    const snippet = hits[0]?.snippet ?? "";
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(321);
    expect(OPENALEX_ABSTRACT.startsWith(snippet.slice(0, -1))).toBe(true);
    expect(hits[1]).toMatchObject({
      url: "https://arxiv.org/abs/2107.00001",
      title: "Ospreys on arXiv",
      snippet: "",
      venue: "arXiv (Cornell University)",
      pdfUrl: "https://arxiv.org/pdf/2107.00001",
      authors: ["Ada Lovelace"],
      citedByCount: 4,
    });
    expect(hits[2]).toMatchObject({ url: "https://openalex.org/W1500000002", snippet: "Old paper", authors: [], year: 2015 });
    expect(hits[2]?.venue).toBeUndefined();
  });

  it("post-filters year bounds and hosts the upstream ignored", async () => {
    const years = await provider().search(paper({ pubYearMin: 2016, pubYearMax: 2020 }), signal());
    expect(years.hits.map((h) => h.year)).toEqual([2018]);
    const arxiv = await provider().search(paper({ includeDomains: ["arxiv.org"] }), signal());
    expect(arxiv.hits.map((h) => h.url)).toEqual(["https://arxiv.org/abs/2107.00001"]);
  });
});

describe("providersFromEnv", () => {
  it("turns on what is configured, in a stable order", async () => {
    expect(providersFromEnv({})).toEqual([]);
    expect(providersFromEnv({ searxngUrl: " ", braveApiKey: "" })).toEqual([]);
    const all = providersFromEnv({ searxngUrl: searxng.url, braveApiKey: KEY, braveUrl: brave.url, openalexUrl: openalex.url });
    expect(all.map((p) => p.name)).toEqual(["searxng", "brave", "openalex"]);
    const before = brave.requests.length;
    await all[1]?.search(query(), signal());
    expect(brave.requests.length).toBe(before + 1);
    expect(providersFromEnv({ openalexApiKey: "k" }).map((p) => p.name)).toEqual(["openalex"]);
  });
});
