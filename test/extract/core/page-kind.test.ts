import { describe, expect, it } from "vitest";
import { pageKind } from "../../../functions/extract/content/page-kind.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

const kind = (head: string, url = "https://example.com/page", body = "") =>
  pageKind(parseDocument(`<html><head>${head}</head><body>${body}</body></html>`), url);

describe("pageKind", () => {
  it("recognises forum and Q&A URLs and schema", () => {
    expect(kind("", "https://forum.example.com/t/tents/12").discussion).toBe(true);
    expect(kind("", "https://www.warriorforum.com/area/123-topic.html").discussion).toBe(true);
    expect(kind("", "https://example.com/questions/42/why").discussion).toBe(true);
    expect(kind('<script type="application/ld+json">{"@type":"QAPage"}</script>').discussion).toBe(true);
    expect(kind("", "https://blog.example.com/2018/09/open-thread").discussion).toBe(false);
    expect(kind('<script type="application/ld+json">{"@type":"QAPage"}</script>').qa).toBe(true);
    expect(kind("", "https://forum.example.com/t/tents/12").qa).toBe(false);
  });
  it("recognises articles, products and collections", () => {
    expect(kind('<meta property="og:type" content="article">').article).toBe(true);
    expect(kind('<script type="application/ld+json">{"@graph":[{"@type":"NewsArticle"}]}</script>').article).toBe(true);
    expect(kind('<script type="application/ld+json">{"@type":"Product","name":"x"}</script>').product).toBe(true);
    expect(kind("", "https://shop.example.com/collections/socks").collection).toBe(true);
    expect(kind('<meta property="og:type" content="product.group">').product).toBe(true);
    expect(kind('<meta property="og:type" content="productivity">').product).toBe(false);
    expect(kind("").article || kind("").product || kind("").collection || kind("").discussion).toBe(false);
  });
  it("an archive template (body class 'archive') is a listing, not an article, whatever its og:type", () => {
    const og = '<meta property="og:type" content="article">';
    const archive = kind(og, "https://example.com/recipes/air-fryer", "");
    expect(archive.article).toBe(true);
    const doc = parseDocument(`<html><head>${og}</head><body class="archive category paged"></body></html>`);
    expect(pageKind(doc, "https://example.com/recipes/air-fryer")).toMatchObject({ article: false, collection: true });
    const post = parseDocument(`<html><head>${og}</head><body class="single single-post archived-look"></body></html>`);
    expect(pageKind(post, "https://example.com/2024/05/air-fryer-tips")).toMatchObject({ article: true, collection: false });
  });
});
