import { describe, expect, it } from "vitest";
import { dropClosingLinkLine } from "../../../functions/extract/content/closing-heading.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const page = (tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Pruning roses in winter</h1><div class="entry">${para("rose cane", 4)}${para("pruning cut", 4)}${para("winter frost", 4)}${tail}</div></article></main></body></html>`,
    "https://example.com/blog/pruning-roses-in-winter",
  ).text;

describe("a heading that closes an article with nothing under it", () => {
  it("drops a widget's heading whose cards never filled in", () => {
    const t = page(`<h3>Hand-picked for gardeners</h3><div class="cards" data-src="/api/cards"></div>`);
    expect(t).toContain("how the winter frost works");
    expect(t).not.toContain("Hand-picked for gardeners");
  });

  it("keeps a heading with the story's text under it", () => {
    const t = page(
      `<h3>Hand-picked for gardeners</h3><p>Three tools made this winter's pruning easy: sharp bypass secateurs, long gloves and a folding saw.</p>`,
    );
    expect(t).toContain("Hand-picked for gardeners");
  });

  it("keeps a question to the readers that closes the post", () => {
    const t = page("<h3>How do you prune your roses?</h3>");
    expect(t).toContain("How do you prune your roses?");
  });

  it("drops a short link standing alone as the article's last line ('Back to Blog')", () => {
    const t = page(
      `<p>Prune on a dry day, and your roses will thank you in June.</p><a class="post-back" href="/blog">Back to Blog</a>`,
    );
    expect(t).toContain("your roses will thank you");
    expect(t).not.toContain("Back to Blog");
  });

  it("keeps a link that ends the last sentence, and a printed address as the last line", () => {
    const t = page(`<p>For the tools, read <a href="/blog/secateurs">our secateurs guide</a></p>`);
    expect(t).toContain("For the tools, read our secateurs guide");
    const u = page(
      `<p>Prune on a dry day, and your roses will thank you in June.</p><p><a href="https://www.rosesociety.org/pruning">www.rosesociety.org/pruning</a></p>`,
    );
    expect(u).toContain("www.rosesociety.org/pruning");
  });

  it("keeps a link inside text set with <br> when bare text after it is the root's last words", () => {
    const doc = parseDocument(
      `<html><body><div id="root">Repairs stay free as part of the <a href="/repair-program">worldwide service program</a>.<br><br>The entry-level model was last updated in July.</div></body></html>`,
    );
    const root = doc.getElementById("root") as Element;
    dropClosingLinkLine(root);
    expect(root.textContent).toContain("worldwide service program");
  });
});
