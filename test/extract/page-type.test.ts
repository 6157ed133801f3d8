import { describe, expect, it } from "vitest";
import { classifyPage, parseDay } from "../../functions/extract/page-type.ts";

const page = (head: string, body = "<p>Body text.</p>") => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const ld = (v: unknown) => `<script type="application/ld+json">${JSON.stringify(v)}</script>`;
const URL_ = "https://example.org/a/b";

describe("classifyPage", () => {
  it("types a page with scholarly citation_* tags as a research paper", () => {
    const t = classifyPage(
      page(`<meta name="citation_title" content="Fish-eating raptors">
<meta name="citation_author" content="Doe, Jane"><meta name="citation_author" content="Roe, Richard">
<meta name="citation_journal_title" content="Journal of Raptor Research">
<meta name="citation_publication_date" content="2021/05/12">
<meta name="citation_publisher" content="Raptor Society">
<meta name="citation_pdf_url" content="/papers/raptors.pdf">
<meta property="og:site_name" content="Raptor Journals">`),
      URL_,
    );
    expect(t).toEqual({
      type: "research_paper",
      authors: ["Doe, Jane", "Roe, Richard"],
      venue: "Journal of Raptor Research",
      year: 2021,
      publishedDate: "2021-05-12",
      publisher: "Raptor Society",
      pdfUrl: "https://example.org/papers/raptors.pdf",
      siteName: "Raptor Journals",
    });
  });

  it("takes the conference title as venue and a bare year from citation_date", () => {
    const t = classifyPage(
      page(`<meta name="citation_title" content="A paper"><meta name="citation_conference_title" content="NeurIPS">
<meta name="citation_date" content="2019">`),
      URL_,
    );
    expect(t).toEqual({ type: "research_paper", venue: "NeurIPS", year: 2019 });
  });

  it("needs more than a citation_title; a JSON-LD ScholarlyArticle is a paper too", () => {
    expect(classifyPage(page(`<meta name="citation_title" content="Lonely">`), URL_).type).toBe("web");
    const t = classifyPage(
      page(
        ld({
          "@type": "ScholarlyArticle",
          author: [{ "@type": "Person", name: "Ann Author" }],
          datePublished: "2020-02-03",
          isPartOf: { "@type": "Periodical", name: "Nature" },
        }),
      ),
      URL_,
    );
    expect(t).toEqual({
      type: "research_paper",
      authors: ["Ann Author"],
      venue: "Nature",
      year: 2020,
      publishedDate: "2020-02-03",
    });
  });

  it("types og:type=article with a date and a publisher as news", () => {
    const t = classifyPage(
      page(`<meta property="og:type" content="article"><meta property="og:site_name" content="Daily Osprey">
<meta property="article:published_time" content="2026-11-20T08:30:00+01:00">`),
      URL_,
    );
    expect(t).toEqual({ type: "news", publishedDate: "2026-11-20", publisher: "Daily Osprey", siteName: "Daily Osprey" });
  });

  it("reads a NewsArticle from a @graph with an array of types, its publisher and authors", () => {
    const t = classifyPage(
      page(
        ld({
          "@context": "https://schema.org",
          "@graph": [
            { "@type": "WebSite", name: "Site" },
            {
              "@type": ["Article", "NewsArticle"],
              datePublished: "2026-01-02T10:00:00Z",
              publisher: { "@type": "Organization", name: "The Wire" },
              author: [{ name: "A. Reporter" }, "B. Writer"],
            },
          ],
        }),
      ),
      URL_,
    );
    expect(t).toEqual({
      type: "news",
      publishedDate: "2026-01-02",
      publisher: "The Wire",
      authors: ["A. Reporter", "B. Writer"],
    });
  });

  it("is web when a news candidate lacks a date or a publisher, or states neither", () => {
    const noDate = page(`<meta property="og:type" content="article"><meta property="og:site_name" content="Blog">`);
    const noPublisher = page(ld({ "@type": "NewsArticle", datePublished: "2026-01-02" }));
    const plain = page("<title>Plain</title>");
    const website = page(`<meta property="og:type" content="website"><meta property="og:site_name" content="Shop">`);
    expect(classifyPage(noDate, URL_)).toEqual({ type: "web", siteName: "Blog" });
    expect(classifyPage(noPublisher, URL_)).toEqual({ type: "web" });
    expect(classifyPage(plain, URL_)).toEqual({ type: "web" });
    expect(classifyPage(website, URL_)).toEqual({ type: "web", siteName: "Shop" });
  });

  it("ignores malformed JSON-LD", () => {
    const t = classifyPage(page(`<script type="application/ld+json">{ not json</script>`), URL_);
    expect(t).toEqual({ type: "web" });
  });
});

describe("parseDay", () => {
  it("reads the common citation date shapes", () => {
    expect(parseDay("2021/5/7")).toEqual({ date: "2021-05-07", year: 2021 });
    expect(parseDay("2021-05")).toEqual({ year: 2021 });
    expect(parseDay("2021")).toEqual({ year: 2021 });
    expect(parseDay("2026-11-20T08:30:00Z")).toEqual({ date: "2026-11-20", year: 2026 });
    expect(parseDay("March 3, 2020")).toEqual({ date: "2020-03-03", year: 2020 });
    expect(parseDay("someday")).toEqual({});
    expect(parseDay(undefined)).toEqual({});
  });
});
