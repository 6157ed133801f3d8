import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

describe("pages made of blocks of one make", () => {
  it("keeps every section of an article that a page builder laid out as sibling sections", () => {
    const topics = ["intro", "planning", "review team", "tools", "feedback", "delivery"];
    const sections = topics
      .map(
        (t, i) =>
          `<div class="builder-section"><div class="row"><div class="column"><div class="module"><div class="text">
            <h2>Part ${i + 1}</h2>${para(t, 3)}${i === 2 ? para(`${t} detail`, 3) + para(`${t} example`, 3) : ""}</div></div></div></div>
            <div class="builder-section-divider"><a href="#top">Back to top</a></div></div>`,
      )
      .join("");
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><article>
      <h1>The review process</h1><div class="builder-content">${sections}</div></article></main></body></html>`;
    const t = text(html, "https://example.com/blog/review-process");
    for (const topic of topics) expect(t).toContain(`how the ${topic} works`);
  });

  it("keeps every entry of a listing whose entries each carry an excerpt", () => {
    const entries = ["Scanning for bugs", "Code review at scale", "Hiring engineers", "Open source funds", "Faster builds"];
    const items = entries
      .map(
        (e, i) =>
          `<li class="post-card"><h3><a href="/blog/${i}">${e}</a></h3><p>${i === 0 ? "A longer summary of this post, with commas, clauses and enough words, so that it reads as prose to the extractor." : `Summary ${i}.`}</p><span>March ${i + 1}, 2026</span></li>`,
      )
      .join("");
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><h1>Blog</h1>
      <ul class="posts">${items}</ul></main></body></html>`;
    const t = text(html, "https://example.com/blog/");
    for (const e of entries) expect(t).toContain(e);
  });

  it("does not widen an article into a table of contents or a list of other stories beside it", () => {
    const toc = Array.from({ length: 8 }, (_, i) => `<li class="toc-entry"><a href="#s${i}">Section number ${i}</a></li>`).join(
      "",
    );
    const teasers = Array.from(
      { length: 6 },
      (_, i) => `<div class="teaser"><a href="/story/${i}">Other story ${i}</a><span>By Staff, 11/19/2019</span></div>`,
    ).join("");
    const html = `<html><head><meta property="og:type" content="article"></head><body>
      <div class="layout"><ul class="contents">${toc}</ul>
      <div class="story"><h1>Short news</h1>${para("stabbing report", 3)}</div>
      <div class="latest">${teasers}</div></div></body></html>`;
    const t = text(html, "https://example.com/news/short");
    expect(t).toContain("how the stabbing report works");
    expect(t).not.toContain("Other story");
    expect(t).not.toContain("Section number");
  });
});

describe("archive pages (body class 'archive')", () => {
  const recipes = ["Crispy chickpeas", "Salmon bites", "Sweet potato fries", "Chicken wings", "Brussels sprouts", "Tofu nuggets"];
  const grid = recipes
    .map((r, i) => `<article class="recipe-card"><a href="/r/${i}"><img src="/i/${i}.jpg" alt=""><h3>${r}</h3></a></article>`)
    .join("");
  const page = (bodyClass: string) => `<html><head><meta property="og:type" content="article"></head><body class="${bodyClass}">
    <main><section class="intro"><h1>Air fryer recipes</h1><div class="cat-desc"><p>Our air fryer recipes are quick, crispy and
    easy, from snacks to dinners; each one was tested in two machines, so you can trust the timings and temperatures given.</p></div></section>
    <section class="cards"><div class="grid">${grid}</div></section></main></body></html>`;

  it("keeps the entries beside the category's intro", () => {
    const t = text(page("archive category"), "https://example.com/recipes/air-fryer");
    expect(t).toContain("Our air fryer recipes are quick");
    for (const r of recipes) expect(t).toContain(r);
  });
});

describe("a category page's intro above its entries", () => {
  const names = [
    "Hex bolts",
    "Carriage bolts",
    "Wing nuts",
    "Lock washers",
    "Cotter pins",
    "Threaded rods",
    "Eye bolts",
    "Rivet nuts",
    "Flange nuts",
    "Spring pins",
    "Anchor bolts",
    "Set screws",
  ];
  const page = (head: string, rest: string) => `<html><head><title>Fasteners</title>${head}</head><body>
    <div class="wrap"><div class="intro"><h1>Fasteners</h1>${para("fastener catalogue", 1)}</div>
    <div class="rows">${rest}</div></div></body></html>`;

  it("keeps the entries below a short intro when they hold little prose", () => {
    const entries = names.map((n, i) => `<li><a href="/c/${i}">${n} and fittings</a> <span>in 12 sizes</span></li>`).join("");
    const t = text(page("", `<ul>${entries}</ul>`), "https://example.com/catalogs/fasteners");
    expect(t).toContain("how the fastener catalogue works");
    for (const n of names) expect(t).toContain(`${n} and fittings`);
  });

  it("does not widen a short news story over teasers of other stories, some with a summary", () => {
    const teasers = Array.from(
      { length: 16 },
      (_, i) =>
        `<div class="teaser"><a href="/story/${i}">Other story number ${i} about the city council and its budget</a>${i % 4 === 0 ? para(`council ${i}`, 1) : "<span>By Staff, 11/19/2019</span>"}</div>`,
    ).join("");
    const html = `<html><head><title>News</title><meta property="og:type" content="article"></head><body>
      <div class="layout"><div class="story"><h1>Short news</h1>${para("stabbing report", 2)}</div>
      <div class="latest">${teasers}</div></div></body></html>`;
    const t = text(html, "https://example.com/news/short");
    expect(t).toContain("how the stabbing report works");
    expect(t).not.toContain("Other story");
  });
});

describe("a search page's results list", () => {
  it("keeps a list whose class or id names it the search results, link-heavy as it is", () => {
    const items = [
      "Leather card wallet",
      "Slim bifold wallet",
      "Engraved cash wallet",
      "Minimalist front pocket wallet",
      "Travel passport wallet",
    ]
      .map(
        (n, i) =>
          `<li class="result"><a href="/listing/${i}"><h2>${n}, handmade in full grain leather</h2></a><span>$${30 + i}</span></li>`,
      )
      .join("");
    const html = `<html><head><title>Handmade wallets</title></head><body><main><h1>Handmade wallets</h1>
      <p>1,000+ relevant results</p><ul id="search-results" class="grid">${items}</ul></main></body></html>`;
    const t = text(html, "https://example.com/market/handmade_wallet");
    expect(t).toContain("Leather card wallet, handmade in full grain leather");
    expect(t).toContain("Travel passport wallet");
  });

  const stories = [
    "Left-handed people compete harder",
    "Sleep apnea in women",
    "Data centre pledges",
    "The agency's acting directors",
    "Digital twins for diabetes",
  ];
  const resultsPage = (box: string) => {
    const items = stories
      .map(
        (s, i) =>
          `<div class="summary-item search_result_item-${i}"><a href="/story/${i}"><h3>${s}</h3></a>${i === 0 ? '<div class="dek">A recent study suggests that left-handed people have an advantage in competitive contexts, while righties tend to cooperate better with each other.</div>' : ""}<span class="name">Reporter ${i}</span></div>`,
      )
      .join("");
    return `<html><head><title>Science</title></head><body>${box}<main><h1>Science</h1><p>The latest on the science of how we live, from the lab to the field, and what it means for our health, our planet and the people who study them.</p><div class="river">${items}</div></main></body></html>`;
  };

  it("keeps the results whose class names one result of a search (search_result_item), short as they are", () => {
    const t = text(resultsPage(""), "https://example.com/category/science/");
    for (const s of stories) expect(t).toContain(s);
  });

  it("still drops a search box and its popular searches", () => {
    const box = `<div class="search_panel"><form><input name="q"><button>Search</button></form><a href="/s?q=a">Popular: climate</a> <a href="/s?q=b">Popular: space</a></div>`;
    const t = text(resultsPage(box), "https://example.com/category/science/");
    expect(t).toContain(stories[1]);
    expect(t).not.toContain("Popular: climate");
  });
});

describe("a shop's intro beside its items", () => {
  const names = ["Arkansas Stones", "Diamond Stones", "Water Stones", "Leather Strops", "Angle Guides", "Gift Cards"];
  const cards = (n: number) =>
    Array.from({ length: n }, (_, i) => `${names[i % names.length]} ${i}`)
      .map(
        (name, i) =>
          `<div class="col"><a href="/c/${i}"><strong>${name}</strong></a><div>$${10 + i}.95 - $${90 + i}.95</div><div>Stones for every edge, from kitchen knives to chisels</div></div>`,
      )
      .join("");
  const page = (intro: string, n: number) => `<html><head><title>Sharpening</title></head><body>
    <div class="topbar"><a href="/">Home</a> <a href="/cart">Cart</a></div>
    <div class="container"><p>Storewide sale! Save 12% off everything, this week only.</p><div class="welcome"><h2>Welcome to the shop</h2>${intro}</div><div class="row">${cards(n)}</div></div>
    </body></html>`;

  it("keeps the items that sit beside a short intro", () => {
    const t = text(page(para("sharpening stone", 3), 6), "https://shop.example.com/");
    expect(t).toContain("how the sharpening stone works");
    expect(t).toContain("Arkansas Stones 0");
    expect(t).toContain("Gift Cards 5");
  });
});

describe("a list page with a reference list", () => {
  it("keeps the intro and the table, not the citations, when the table is all names", () => {
    const rows = Array.from(
      { length: 40 },
      (_, i) =>
        `<tr><td>${1901 + i}</td><td><a href="/wiki/P${i}">Physicist ${i}</a></td><td><a href="/wiki/C${i}">Chemist ${i}</a></td><td><a href="/wiki/L${i}">Writer ${i}</a></td></tr>`,
    ).join("");
    const refs = Array.from(
      { length: 30 },
      (_, i) =>
        `<li><span class="reference-text">Author, A. (${1990 + i}). "The prize in year ${i}, a history". Foundation Press. Retrieved 2008-11-30.</span></li>`,
    ).join("");
    const html = `<html><body><main><h1>List of laureates</h1><div class="mw-parser-output">
      ${para("prize committee", 2)}<h2>Laureates</h2><table class="wikitable">${rows}</table>
      <h2>References</h2><div class="reflist"><ol class="references">${refs}</ol></div></div></main></body></html>`;
    const t = text(html, "https://en.example.org/wiki/List_of_laureates");
    expect(t).toContain("how the prize committee works");
    expect(t).toContain("Physicist 39");
  });
});
