import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const posts = [
  [
    "Satellite internet prices fall again",
    "Three providers cut their monthly plans this week, and the cheapest now costs less than cable in most rural counties.",
  ],
  [
    "What the new streaming bundle means for you",
    "Two services now sell one subscription for both apps. We compare what you pay today with what the bundle costs.",
  ],
  [
    "Fiber reaches ten more states",
    "The largest fiber network added homes in ten states this quarter, most of them in towns that had one provider before.",
  ],
  [
    "Five ways to cut your TV bill",
    "Most households pay for channels they never watch. These five changes save the average family about thirty dollars a month.",
  ],
  [
    "Why your router slows down at night",
    "Evening congestion, old firmware and a crowded channel explain most slow nights. Here is how to tell which one is yours.",
  ],
];

/** A page that a CMS types as an article (og:type), holding `inner` in its <article>. */
const page = (inner: string) => `<!doctype html><html><head><meta property="og:type" content="article"></head><body>
  <main><article class="page">${inner}</article></main></body></html>`;

/** A post's card: image, linked title, byline and excerpt. */
const card = ([title, excerpt]: string[], i: number) => `<div class="col"><div class="post-card">
  <a href="/news/post-${i}"><img src="/img/${i}.jpg" alt=""></a>
  <h4><a href="/news/post-${i}">${title}</a></h4><p class="excerpt">${excerpt}</p></div></div>`;

describe("an index of posts typed as an article", () => {
  it("keeps each entry's linked title over its excerpt", () => {
    const html =
      page(`<h1>Industry news</h1><p>Our experts follow the news in streaming, TV and internet service so that you know what changes before your bill does.</p>
      <div class="row">${posts.map(card).join("")}</div>`);
    const t = text(html, "https://tv.example.com/news");
    for (const [title, excerpt] of posts) {
      expect(t).toContain(title);
      expect(t).toContain(excerpt);
    }
  });

  it("a story with a grid of other posts under it is still cleaned as a story", () => {
    const html = page(`<h1>How rivers carve canyons</h1><p class="dateline">March 3, 2026</p>
      <div class="story">${para("canyon", 4)}${para("erosion", 4)}${para("sediment", 3)}</div>
      <div class="row">${posts.map(card).join("")}</div>`);
    const t = text(html, "https://tv.example.com/science/how-rivers-carve-canyons");
    expect(t).toContain("how the canyon works");
    expect(t).toContain("how the sediment works");
    expect(t).not.toContain("March 3, 2026");
  });
});
