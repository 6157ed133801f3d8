import { describe, expect, it } from "vitest";
import { hasOneChild, textReader } from "../../../functions/extract/content/dom.ts";
import { firstTextBlock } from "../../../functions/extract/content/facets.ts";
import { scoreTree } from "../../../functions/extract/content/score.ts";
import { extractHtml } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { articlePage, docsPage, forumPage, listingPage, productPage, servicePage } from "./pages.ts";

/**
 * The reads that walks make at every level (content/dom.ts, content/facets.ts), made so that a
 * chain of wrappers over a run of blocks costs the page once rather than once per wrapper: each must
 * answer what the DOM's own answer is.
 */
const odd = `<html><body><main><div><div><p>one <b>two</b><!-- not text --> three</p></div></div>
  <svg><text>in svg</text><![CDATA[cdata text]]></svg><script>var code = 1;</script><style>p{}</style>
  <div> <span>lone</span> </div><div>text only</div><div></div><ul><li>a</li>tail<li>b</li></ul>
  <section><div><div><h2>Filters</h2><ul><li>Red (3)</li></ul></div></div><p>${"Prose of the page. ".repeat(20)}</p></section>
  <template><p>template content</p></template></main></body></html>`;
const PAGES = { articlePage, docsPage, forumPage, listingPage, productPage, servicePage, odd };

describe("walk reads (content/dom.ts, content/facets.ts)", () => {
  it("textReader gives every element's textContent, whatever order the elements are read in", () => {
    for (const [name, html] of Object.entries(PAGES)) {
      const doc = parseDocument(html);
      const all = [doc.documentElement, ...doc.querySelectorAll("*")];
      // Outermost first (a wrapper before what it holds), then innermost first.
      const down = textReader();
      for (const el of all) expect(down(el), `${name} <${el.localName}>`).toBe(el.textContent);
      const up = textReader();
      for (const el of [...all].reverse()) expect(up(el), `${name} <${el.localName}>`).toBe(el.textContent);
    }
  });

  it("hasOneChild is childElementCount === 1 (text and comments beside the child do not count)", () => {
    for (const html of Object.values(PAGES)) {
      const doc = parseDocument(html);
      for (const el of doc.querySelectorAll("*")) expect(hasOneChild(el)).toBe(el.childElementCount === 1);
    }
  });

  it("firstTextBlock answers the same with a shared memo as without one, for every element", () => {
    for (const [name, html] of Object.entries(PAGES)) {
      const doc = parseDocument(html);
      const stats = scoreTree(doc.body);
      const memo = new Map<Element, Element | null>();
      for (const el of doc.body.querySelectorAll("*"))
        expect(firstTextBlock(el, stats, memo), `${name} <${el.localName}>`).toBe(firstTextBlock(el, stats));
    }
  });

  it("a chain of 400 wrappers over 300,000 empty blocks reads in time (each wrapper read all of them: about 40 s)", () => {
    const html = `<!doctype html><html><head><title>Wrappers</title></head><body><article><h1>Wrappers</h1>${articleParagraphs}${"<div>".repeat(400)}${"<div></div>".repeat(300_000)}<p>The paragraph under the wrappers is read.</p>${"</div>".repeat(400)}</article></body></html>`;
    const out = extractHtml(html, { url: "https://example.com/wrappers", format: "markdown", links: true, imageLinks: false });
    expect(out.ok && String(out.page.text)).toContain("The paragraph under the wrappers is read.");
  });
});

const articleParagraphs = Array.from(
  { length: 12 },
  (_, i) => `<p>Paragraph ${i} of the article says something of its own about the subject at hand.</p>`,
).join("");
