import { describe, expect, it } from "vitest";
import { detectLanguage, normalizeLanguage } from "../../../functions/extract/language.ts";
import { extractMetadata, normalizeDate } from "../../../functions/extract/metadata.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

const meta = (head: string, body = "", htmlAttrs = "") =>
  extractMetadata(parseDocument(`<!doctype html><html ${htmlAttrs}><head>${head}</head><body>${body}</body></html>`));

describe("title", () => {
  it("prefers og:title over <title>", () => {
    expect(meta('<title>Tag title | Site</title><meta property="og:title" content="OG title">').title).toBe("OG title");
  });
  it("falls back to twitter:title, then JSON-LD headline", () => {
    expect(meta('<meta name="twitter:title" content="Tweet title"><title>x</title>').title).toBe("Tweet title");
    const ld = '<script type="application/ld+json">{"@type":"NewsArticle","headline":"LD headline"}</script>';
    expect(meta(`${ld}<title>Other</title>`).title).toBe("LD headline");
  });
  it("trims a site-name suffix from <title>", () => {
    expect(meta("<title>How rivers carve canyons | Geology Weekly</title>").title).toBe("How rivers carve canyons");
    expect(meta('<title>Short - Example</title><meta property="og:site_name" content="Example">').title).toBe("Short");
  });
  it("keeps a colon that belongs to the title", () => {
    expect(meta("<title>Review: the new phone</title>").title).toBe("Review: the new phone");
  });
  it("trims the site name from og:title only when it is the known site name", () => {
    const head = '<meta property="og:title" content="Big story | Daily News"><meta property="og:site_name" content="Daily News">';
    expect(meta(head).title).toBe("Big story");
    expect(meta('<meta property="og:title" content="Cats - Dogs">').title).toBe("Cats - Dogs");
    // A short part after a pipe is a site name even when the page does not say so.
    expect(meta('<meta property="og:title" content="Ten ways to bake bread | Crumbs">').title).toBe("Ten ways to bake bread");
  });
  it("cuts the title at the page's own headline", () => {
    const head = '<meta property="og:title" content="Quickstart — Flask Documentation (3.1.x)">';
    expect(meta(head, "<h1>Quickstart</h1>").title).toBe("Quickstart");
  });
  it("uses the h1 when nothing else names the page", () => {
    expect(meta("", "<h1>Heading only</h1>").title).toBe("Heading only");
  });
  it("is null when absent", () => {
    expect(meta("", "<p>text</p>").title).toBeNull();
  });
});

describe("description", () => {
  it("prefers og:description over meta description", () => {
    const head = '<meta name="description" content="plain"><meta property="og:description" content="og">';
    expect(meta(head).description).toBe("og");
    expect(meta('<meta name="description" content="plain">').description).toBe("plain");
    expect(meta("").description).toBeNull();
  });
});

describe("author", () => {
  it("reads meta author, then article:author, then JSON-LD", () => {
    expect(meta('<meta name="author" content="Ada Lovelace">').author).toBe("Ada Lovelace");
    expect(meta('<meta property="article:author" content="Grace Hopper">').author).toBe("Grace Hopper");
    const ld =
      '<script type="application/ld+json">{"@graph":[{"@type":"WebSite","name":"S"},{"@type":"Article","author":[{"@type":"Person","name":"A One"},{"name":"B Two"}]}]}</script>';
    expect(meta(ld).author).toBe("A One, B Two");
  });
  it("ignores profile URLs in article:author and uses a byline instead", () => {
    const author = meta(
      '<meta property="article:author" content="https://facebook.com/x">',
      '<p class="byline">By Jane Doe</p>',
    ).author;
    expect(author).toBe("Jane Doe");
  });
  it("reads rel=author links", () => {
    expect(meta("", '<a rel="author" href="/u/1">Sam Writer</a>').author).toBe("Sam Writer");
  });
  it("is null when absent", () => {
    expect(meta("", "<p>x</p>").author).toBeNull();
  });
});

describe("published date", () => {
  it("prefers article:published_time, keeps ISO 8601 as given", () => {
    const head =
      '<meta property="article:published_time" content="2024-03-05T10:00:00+01:00"><meta name="date" content="2020-01-01">';
    expect(meta(head).publishedDate).toBe("2024-03-05T10:00:00+01:00");
  });
  it("reads JSON-LD datePublished and DC.date", () => {
    expect(
      meta('<script type="application/ld+json">{"@type":"BlogPosting","datePublished":"2023-07-01"}</script>').publishedDate,
    ).toBe("2023-07-01");
    expect(meta('<meta name="DC.date" content="2022-02-02">').publishedDate).toBe("2022-02-02");
  });
  it("falls back to <time datetime> in the article", () => {
    expect(meta("", '<article><time datetime="2021-12-24T08:00:00Z">Dec 24</time><p>x</p></article>').publishedDate).toBe(
      "2021-12-24T08:00:00Z",
    );
  });
  it("converts other parseable dates to ISO 8601", () => {
    expect(normalizeDate("Tue, 05 Mar 2024 10:00:00 GMT")).toBe("2024-03-05T10:00:00.000Z");
    expect(normalizeDate("not a date")).toBeNull();
  });
});

describe("language", () => {
  it("normalises the html lang attribute to a primary code", () => {
    expect(meta("", "", 'lang="en-US"').language).toBe("en");
    expect(meta('<meta property="og:locale" content="pt_BR">').language).toBe("pt");
    expect(meta('<meta http-equiv="content-language" content="de-AT">').language).toBe("de");
  });
  it("normalizeLanguage rejects non-codes", () => {
    expect(normalizeLanguage("und")).toBeNull();
    expect(normalizeLanguage("")).toBeNull();
    expect(normalizeLanguage("FR-ca")).toBe("fr");
  });
  it("detects the language of undeclared text", () => {
    const en =
      "The river runs through the valley and the people who live there have built their homes on both of its banks for as long as anyone can remember.";
    const de =
      "Der Fluss fließt durch das Tal und die Menschen, die dort leben, haben ihre Häuser an beiden Ufern gebaut, so lange sich jeder erinnern kann, und das ist auch gut so.";
    const fr =
      "La rivière traverse la vallée et les gens qui vivent là ont construit leurs maisons sur les deux rives depuis que tout le monde peut s'en souvenir, et pour une bonne raison.";
    expect(detectLanguage(en)).toBe("en");
    expect(detectLanguage(de)).toBe("de");
    expect(detectLanguage(fr)).toBe("fr");
    expect(detectLanguage("東京は日本の首都であり、多くの人々が住んでいます。ここには美しい公園や寺院がたくさんあります。")).toBe(
      "ja",
    );
    expect(detectLanguage("Привет")).toBeNull();
  });
});
