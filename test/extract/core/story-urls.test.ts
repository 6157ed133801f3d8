import { describe, expect, it } from "vitest";
import { pageKind } from "../../../functions/extract/content/page-kind.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const kindOf = (url: string) =>
  pageKind(parseDocument(`<html><head><title>Page</title></head><body><main><h1>Page</h1></main></body></html>`), url);

const card = (n: number) =>
  `<div class="post-card"><h3><a href="/blog/another-post-${n}">Another post of the blog, number ${n}</a></h3><p>Short summary of story ${n}, two lines of it, as the blog prints under every card in its grid.</p><div class="date">Mar ${n}, 2026</div></div>`;
/** A post with no og:type, no published time and no JSON-LD: only its address says it is a story. */
const post = `<!doctype html><html><head><title>Organise a home office</title></head><body><div class="page"><div class="post"><h1>Organise a home office</h1><div class="post-body">${para("desk", 4)}${para("drawer", 4)}${para("shelf", 4)}</div></div><div class="post-grid">${card(1)}${card(2)}${card(3)}</div></div></body></html>`;

describe("a story's address (a slug under a blog or news section) when the page declares no type", () => {
  it("reads a slug of several words under an editorial section as an article", () => {
    for (const url of [
      "https://www.example.com/blog/how-to-organise-a-home-office",
      "https://example.com/en/articles/how-to-start-an-llc-in-new-york",
      "https://example.org/news/2025/12/council-approves-new-budget/",
      "https://shop.example.com/blogs/news/ergonomic-desk-step-by-step?ref=x",
      "https://example.com/insights/what-buyers-want-in-2026",
    ])
      expect(kindOf(url).article, url).toBe(true);
  });

  it("does not read a section front, a paged index or another kind of page as one", () => {
    for (const url of [
      "https://www.example.com/blog/",
      "https://www.example.com/blog/page/2",
      "https://www.example.com/news/technology",
      "https://example.com/post/21018364",
      "https://docs.example.com/learn/thinking-in-components",
      "https://www.example.com/services/kitchen-remodeling-in-austin",
      "https://www.example.com/how-to-organise-a-home-office",
    ])
      expect(kindOf(url).article, url).toBe(false);
  });

  it("cleans such a page as an article: the grid of other posts under the story goes", () => {
    const t = extractMainText(post, "https://www.example.com/blog/organise-a-home-office").text;
    expect(t).toContain("how the shelf works");
    expect(t).not.toContain("Another post of the blog, number 2");
    expect(t).not.toContain("Short summary of story 3");
  });

  it("leaves the same page at a plain address as it was (the cards stay: nothing says it is a story)", () => {
    const t = extractMainText(post, "https://www.example.com/organise-a-home-office").text;
    expect(t).toContain("how the shelf works");
    expect(t).toContain("Short summary of story 3");
  });
});
