import { describe, expect, it } from "vitest";
import { extractHtml, extractMainText } from "../../../functions/extract/extract.ts";

// A portfolio page an SEO plugin types as an article: a title, a filter list of links and a grid of
// cards that are an image link and a linked name each. The article cleanup reads every block of it
// as link furniture; before the second reading the page came back with no text (empty_content).
const NAMES = ["Lawn care provider", "Wood stain maker", "Eye clinic", "Stone supplier", "Comedy club"];
const more = ["Race team", "Church school", "Hair salon", "Restoration firm", "Organic beauty"];
const filters = [...NAMES, ...more].map((n, i) => `<li><a class="category" href="/c/${i}">${n.split(" ")[0]}</a></li>`).join("");
const cards = [...NAMES, ...more]
  .map(
    (n, i) =>
      `<div class="project one-third portfolio-item"><a class="screenshot" href="/case/${i}"><img src="/i/${i}.jpg" alt=""></a><h4><a href="/case/${i}">${n}</a></h4></div>`,
  )
  .join("");
const portfolio = `<!doctype html><html><head><title>Web designs</title><meta property="og:type" content="article"></head><body>
<header class="site-header"><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<main class="content"><section class="subpage-header"><article><header class="entry-header"><h1>Web designs</h1><h2>Websites we built</h2><div class="banner-form">Get my free proposal</div></header></article></section>
<section class="portfolio-main"><header class="entry-header"><ul class="filter">${filters}</ul></header>
<div class="entry-content"><article class="page"><div class="project_list"><div class="portfolio-content">${cards}</div></div></article></div></section></main>
<footer class="site-footer"><p>© Example Agency</p></footer></body></html>`;
const url = "https://agency.example/portfolio-work/";
const opts = { url, format: "markdown" as const, links: false, imageLinks: false };

describe("a second reading when the cleanup leaves nothing", () => {
  it("gives the chosen block's text rather than nothing", () => {
    const { text } = extractMainText(portfolio, url);
    expect(text).toContain("Hair salon");
    expect(text).toContain("Organic beauty");
    const md = extractHtml(portfolio, opts);
    expect(md.ok).toBe(true);
    if (!md.ok) return;
    expect(md.page.text).toContain("[Hair salon](https://agency.example/case/7)");
    // The site's menu and footer stay out: pruning still ran, only the cleanup inside was skipped.
    expect(md.page.text).not.toContain("About");
    expect(md.page.text).not.toContain("Example Agency");
  });

  it("keeps the caller's exclusions on the second reading", () => {
    const md = extractHtml(portfolio, { ...opts, excludeSelectors: ["ul.filter"] });
    expect(md.ok).toBe(true);
    if (!md.ok) return;
    expect(md.page.text).toContain("Hair salon");
    expect(md.page.text).not.toContain("https://agency.example/c/7");
  });

  it("still finds nothing on a page with no text, and cleans pages whose cleanup leaves text", () => {
    expect(extractHtml("<html><body><nav></nav><main><img src='x.png'></main></body></html>", opts)).toEqual({
      ok: false,
      error: "empty_content",
    });
    // One paragraph of prose beside the grid: the cleanup leaves text, so it keeps its say (the
    // filter links go as furniture of an article).
    const prose = portfolio.replace(
      '<div class="project_list">',
      `<p>${"We design and build fast websites for small businesses in every trade, and we measure what they bring in. ".repeat(6)}</p><div class="project_list">`,
    );
    const { text } = extractMainText(prose, url);
    expect(text).toContain("We design and build fast websites");
    expect(text).not.toContain("Church\n");
  });
});
