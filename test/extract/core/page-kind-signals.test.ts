import { describe, expect, it } from "vitest";
import { pageKind } from "../../../functions/extract/content/page-kind.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

/** The signals as four document-wide queries read them: what pageKind's one walk must match. */
function byQueries(document: Document) {
  let ld = "";
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) ld += s.textContent ?? "";
  let itemTypes = "";
  for (const el of document.querySelectorAll("[itemtype]")) itemTypes += ` ${el.getAttribute("itemtype") ?? ""}`;
  return {
    ld,
    itemTypes,
    ogType: document.querySelector('meta[property="og:type"]')?.getAttribute("content") ?? "",
    published: document.querySelector('meta[property="article:published_time"]') !== null,
  };
}

describe("page kind signals read in one walk", () => {
  it("finds what the queries find: any-case script type, markup after </html>, not inside <template>", () => {
    const html = `<!doctype html><html><head><meta property="og:type" content="website">
      <template><script type="application/ld+json">{"@type":"QAPage"}</script></template></head>
      <body><div itemtype="https://schema.org/Product"><meta property="og:type" content="article"></div>
      <script type="Application/LD+JSON">{"@type":"NewsArticle"}</script></body></html>
      <meta property="article:published_time" content="2024-01-01">`;
    const doc = parseDocument(html);
    const q = byQueries(doc);
    expect(q.ld).toContain("NewsArticle");
    expect(q.ld).not.toContain("QAPage");
    expect(q.published).toBe(true);
    expect(q.ogType).toBe("website");
    expect(pageKind(doc, "https://example.com/x")).toEqual({
      discussion: false,
      qa: false,
      collection: false,
      article: true,
      story: true,
      product: true,
    });
    // Only the meta after </html> says "article" now.
    expect(pageKind(parseDocument(html.replace(/NewsArticle/, "Thing")), "https://example.com/x").article).toBe(true);
    const noSignals = parseDocument(html.replace(/article:published_time/, "x").replace(/NewsArticle/, "Thing"));
    expect(byQueries(noSignals).published).toBe(false);
    expect(pageKind(noSignals, "https://example.com/x").article).toBe(false);
  });
});
