/**
 * Upstream answers in the providers' real JSON formats, built from their documentation (SearXNG search API
 * with format=json, Brave Web/News Search API, OpenAlex works). Dates are relative to FIXTURE_NOW.
 */

/** The clock the fixtures' dates are written against. */
export const FIXTURE_NOW = new Date("2026-03-15T12:00:00Z");

const sxResult = (url: string, title: string, content: string, publishedDate: string | null, engine: string) => {
  const u = new URL(url);
  return {
    url,
    title,
    content,
    publishedDate,
    thumbnail: null,
    engine,
    template: "default.html",
    parsed_url: [u.protocol.slice(0, -1), u.host, u.pathname, "", u.search.slice(1), ""],
    img_src: "",
    priority: "",
    engines: [engine, "brave"],
    positions: [1, 3],
    score: 2.5,
    category: "general",
  };
};

export const searxngWeb = {
  query: "osprey",
  number_of_results: 184000,
  results: [
    sxResult(
      "https://en.wikipedia.org/wiki/Osprey",
      "Osprey - Wikipedia",
      "The <b>osprey</b> (Pandion haliaetus) is a fish-eating bird of prey &amp; raptor.",
      null,
      "wikipedia",
    ),
    sxResult(
      "https://www.audubon.org/field-guide/bird/osprey",
      "Osprey | Audubon Field Guide",
      "Ospreys &quot;hover&quot; over water&#39;s surface.",
      "2026-03-10T00:00:00",
      "duckduckgo",
    ),
    sxResult("https://blog.example.com/osprey-nest", "Osprey nest report", "Our nest cam.", "2025-06-01T08:00:00", "google"),
    sxResult("https://www.example.com/osprey-cam", "Osprey cam", "Live.", "2026-03-14T21:30:00-05:00", "bing"),
    sxResult("https://notexample.com/osprey", "Not example", "Lookalike host.", null, "google"),
    { title: "A result without a URL", content: "dropped", engine: "wikidata" },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: ["osprey bird", "osprey nest"],
  unresponsive_engines: [["qwant", "timeout"]],
};

export const searxngNews = {
  query: "osprey",
  number_of_results: 0,
  results: [
    {
      ...sxResult(
        "https://www.bbc.co.uk/news/osprey-returns",
        "Ospreys return",
        "First pair back.",
        "2026-03-15T09:00:00",
        "bing news",
      ),
      category: "news",
    },
    {
      ...sxResult("https://news.example.com/osprey-week", "Osprey week", "A week ago.", "2026-03-09T10:00:00", "google news"),
      category: "news",
    },
    {
      ...sxResult("https://www.reuters.com/osprey-feb", "February ospreys", "Old.", "2026-02-01T10:00:00", "reuters"),
      category: "news",
    },
    { ...sxResult("https://apnews.com/osprey-undated", "Undated item", "No date.", null, "wikinews"), category: "news" },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [],
};

const metaUrl = (url: string) => {
  const u = new URL(url);
  return { scheme: "https", netloc: u.host.replace(/^www\./, ""), hostname: u.hostname, favicon: "", path: "› page" };
};

const braveWebResult = (url: string, title: string, description: string, extra: Record<string, unknown>) => ({
  type: "search_result",
  title,
  url,
  is_source_local: false,
  is_source_both: false,
  description,
  language: "en",
  family_friendly: true,
  meta_url: metaUrl(url),
  ...extra,
});

export const braveWeb = {
  type: "search",
  query: { original: "osprey", show_strict_warning: false, is_navigational: false, country: "us", more_results_available: true },
  mixed: { type: "mixed", main: [{ type: "web", index: 0, all: false }], top: [], side: [] },
  web: {
    type: "search",
    family_friendly: true,
    results: [
      braveWebResult(
        "https://en.wikipedia.org/wiki/Osprey",
        "<strong>Osprey</strong> - Wikipedia",
        "The <strong>osprey</strong> (Pandion haliaetus) &#x27;fish hawk&#x27; &amp; sea hawk…",
        { page_age: "2026-03-01T10:00:00", age: "March 1, 2026", profile: { name: "Wikipedia", long_name: "en.wikipedia.org" } },
      ),
      braveWebResult("https://docs.example.com/osprey", "Osprey docs", "Docs &lt;v2&gt;", {
        age: "2 days ago",
        profile: { name: "Example Docs" },
      }),
      braveWebResult("https://www.other.org/osprey", "Osprey elsewhere", "Undated.", {}),
      braveWebResult("https://old.example.com/osprey", "Old osprey", "Dated 2024.", { page_age: "2024-05-18T09:11:05" }),
    ],
  },
};

const braveNewsResult = (url: string, title: string, extra: Record<string, unknown>) => ({
  type: "news_result",
  title,
  url,
  description: `<strong>${title}</strong> in the news`,
  meta_url: metaUrl(url),
  thumbnail: { src: "https://imgs.search.brave.com/x.jpg" },
  ...extra,
});

export const braveNews = {
  type: "news",
  query: { original: "osprey" },
  results: [
    braveNewsResult("https://www.bbc.co.uk/news/osprey-returns", "Ospreys return", {
      age: "3 hours ago",
      page_age: "2026-03-15T09:00:00",
    }),
    braveNewsResult("https://news.example.com/osprey", "Osprey chicks", { age: "2 days ago" }),
    braveNewsResult("https://www.reuters.com/osprey-jan", "January ospreys", {
      age: "January 10, 2026",
      page_age: "2026-01-10T12:00:00",
    }),
    braveNewsResult("https://apnews.com/osprey", "Undated ospreys", {}),
  ],
};

const inverted = (text: string) => {
  const index: Record<string, number[]> = {};
  text.split(" ").forEach((word, i) => {
    index[word] = [...(index[word] ?? []), i];
  });
  return index;
};

export const OPENALEX_ABSTRACT =
  "Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for large-scale, up-to-date, and reproducible studies assessing the prevalence and characteristics of OA. We address this need using oaDOI, an open online service that determines OA status for 67 million articles. We find that at least 28% of the scholarly literature is OA (19M in total) and that this proportion is growing, driven particularly by growth in Gold and Hybrid.";

export const openAlexWorks = {
  meta: { count: 2345, db_response_time_ms: 31, page: 1, per_page: 10, groups_count: null },
  results: [
    {
      id: "https://openalex.org/W2741809807",
      doi: "https://doi.org/10.7717/peerj.4375",
      title: "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles",
      display_name: "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles",
      publication_year: 2018,
      publication_date: "2018-02-13",
      type: "article",
      primary_location: {
        is_oa: true,
        landing_page_url: "https://doi.org/10.7717/peerj.4375",
        pdf_url: "https://peerj.com/articles/4375.pdf",
        source: { id: "https://openalex.org/S1983995261", display_name: "PeerJ", issn_l: "2167-8359", type: "journal" },
        license: "cc-by",
        version: "publishedVersion",
      },
      best_oa_location: {
        is_oa: true,
        landing_page_url: "https://peerj.com/articles/4375",
        pdf_url: "https://peerj.com/articles/4375.pdf",
      },
      authorships: [
        {
          author_position: "first",
          author: { id: "https://openalex.org/A5048491430", display_name: "Heather Piwowar" },
          institutions: [],
        },
        {
          author_position: "middle",
          author: { id: "https://openalex.org/A5023888391", display_name: "Jason Priem" },
          institutions: [],
        },
        {
          author_position: "last",
          author: { id: "https://openalex.org/A5000000003", display_name: "Stefanie Haustein" },
          institutions: [],
        },
      ],
      cited_by_count: 1129,
      abstract_inverted_index: inverted(OPENALEX_ABSTRACT),
    },
    {
      id: "https://openalex.org/W3200000001",
      doi: null,
      title: "Ospreys on arXiv",
      display_name: "Ospreys on <i>arXiv</i>",
      publication_year: 2021,
      publication_date: "2021-07-01",
      primary_location: {
        is_oa: true,
        landing_page_url: "https://arxiv.org/abs/2107.00001",
        pdf_url: null,
        source: { display_name: "arXiv (Cornell University)", type: "repository" },
      },
      best_oa_location: {
        is_oa: true,
        landing_page_url: "https://arxiv.org/abs/2107.00001",
        pdf_url: "https://arxiv.org/pdf/2107.00001",
      },
      authorships: [{ author_position: "first", author: { display_name: "Ada Lovelace" }, institutions: [] }],
      cited_by_count: 4,
      abstract_inverted_index: null,
    },
    {
      id: "https://openalex.org/W1500000002",
      doi: null,
      display_name: "An old paper without a landing page",
      publication_year: 2015,
      publication_date: "2015-01-01",
      primary_location: null,
      best_oa_location: null,
      authorships: [],
      cited_by_count: 0,
      abstract_inverted_index: { Old: [0], paper: [1] },
    },
  ],
  group_by: [],
};
