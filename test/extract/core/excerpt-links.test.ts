import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const stories: [string, string, string][] = [
  [
    "/articles/solo-colors",
    "Headphones gain three new colour options",
    "The shop now sells the headphones in three colours that were not offered before in this country.",
  ],
  [
    "/articles/firmware",
    "New firmware for the over-ear model",
    "A firmware update for the over-ear model is out, though its notes say nothing of what it changes.",
  ],
  [
    "/articles/adapter",
    "The wired adapter is discontinued",
    "Anyone who had not bought the short adapter after eight years is now out of luck, as it is gone.",
  ],
  [
    "/articles/review",
    "Studio headphones review: good sound, long battery",
    "The studio model sounds good, charges fast and lasts a week of commutes, but it folds awkwardly.",
  ],
];

/**
 * A topic page of teasers: each card links its image and its excerpt again beside its title, and
 * hides both from screen readers (aria-hidden, tabindex -1), which read the title alone.
 */
const topicPage = (excerpt: (href: string, s: string) => string) => `<html><head><title>headphones</title></head><body>
  <header class="site-header"><nav><a href="/">Home</a><a href="/news">News</a></nav></header>
  <main><h1>headphones</h1><section class="col-main"><h2>Latest News</h2>
  ${stories
    .map(
      ([href, title, s]) => `<article class="river-article">
    <a href="${href}" aria-hidden="true" tabindex="-1"><img src="/i.jpg" alt=""></a>
    <header><h2><a href="${href}">${title}</a></h2>${excerpt(href, s)}
    <div class="river-aux"><a href="/editor/jane" class="river-author">Jane Doe</a><time>1 month ago</time></div></header>
  </article>`,
    )
    .join("\n")}
  </section></main><footer><p>Copyright 2026 Example Media.</p></footer></body></html>`;

describe("excerpt links hidden from screen readers", () => {
  it("a card's excerpt linked again with aria-hidden and tabindex -1 is shown to the eye, and stays", () => {
    const t = text(
      topicPage((href, s) => `<p class="river-desc"><a href="${href}" aria-hidden="true" tabindex="-1">${s}</a></p>`),
      "https://news.example.com/topic/headphones",
    );
    expect(t).toContain("Headphones gain three new colour options");
    for (const [, , s] of stories) expect(t).toContain(s);
  });

  it("a hidden link that is a label or a name (no sentence), or hidden without leaving the tab order, still goes", () => {
    const t = text(
      topicPage(
        (href) => `<p><a href="${href}" aria-hidden="true" tabindex="-1">Read the full story about these headphones now</a></p>
          <p><a href="${href}" aria-hidden="true">A copy of the excerpt for the old layout, hidden from everyone on the page.</a></p>`,
      ),
      "https://news.example.com/topic/headphones",
    );
    expect(t).toContain("Headphones gain three new colour options");
    expect(t).not.toContain("Read the full story");
    expect(t).not.toContain("A copy of the excerpt");
  });
});
