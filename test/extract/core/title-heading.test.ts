import { describe, expect, it } from "vitest";
import { scoreTree } from "../../../functions/extract/content/score.ts";
import { findTitleHeading, titleForRoot } from "../../../functions/extract/content/title-heading.ts";
import { extractHtml, extractMainText } from "../../../functions/extract/extract.ts";
import type { DocTree } from "../../../functions/extract/output/tree-schema.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const URL_ = "https://news.example.com/2024/05/12/river-story";
const PUBLISHED = '<meta property="article:published_time" content="2024-05-12T08:00:00Z">';
const TITLE = "How the river found its way back";

/** A news page: site header with a logo h1, the article's h1 in a header block, then the prose div. */
function newsPage(opts: { published?: boolean; h1Inside?: boolean; logoOnly?: boolean } = {}): string {
  const head = `<title>${TITLE} | Example News</title><meta property="og:type" content="article">
    <meta property="og:site_name" content="Example News">${opts.published ? PUBLISHED : ""}`;
  const headline = opts.logoOnly ? "" : `<h1 class="article-title">${TITLE}</h1>`;
  const byline = `<div class="byline">By Ana Lima · May 12, 2024</div>`;
  const prose = `${para("river", 4)}${para("flood plain", 4)}${para("delta", 4)}`;
  const main = opts.h1Inside
    ? `<div class="story-body">${headline}${byline}${prose}</div>`
    : `<div class="story-header">${headline}${byline}</div><div class="story-body">${prose}</div>`;
  return `<!doctype html><html><head>${head}</head><body>
    <header class="site-header"><h1 class="logo"><a href="/"><img src="/logo.png" alt="">Example News</a></h1>
      <nav><a href="/world">World</a><a href="/science">Science</a><a href="/sport">Sport</a></nav></header>
    <main><article>${main}</article></main>
    <aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Ten tips for gardens this spring</a></li></ul></aside>
    <footer><p>Copyright 2024 Example News</p></footer></body></html>`;
}

const render = (html: string, format: "markdown" | "html" | "json") => {
  const out = extractHtml(html, { url: URL_, format, links: false, imageLinks: false });
  if (!out.ok) throw new Error(out.error);
  return out.page.text;
};

const treeHeadings = (tree: DocTree) =>
  tree.children
    .filter((b) => b.type === "heading")
    .map((b) => ({ level: (b as { level: number }).level, text: JSON.stringify(b) }));

describe("the article's title heading", () => {
  for (const published of [true, false]) {
    for (const h1Inside of [false, true]) {
      const label = `${published ? "with" : "without"} article:published_time, h1 ${h1Inside ? "inside" : "outside"} the prose div`;
      it(`${label}: markdown, html and json start with it`, () => {
        const html = newsPage({ published, h1Inside });
        const md = render(html, "markdown") as string;
        expect(md.startsWith(`# ${TITLE}\n`)).toBe(true);
        expect(md).toContain("how the river works");
        expect(md).not.toContain("Example News");
        const clean = render(html, "html") as string;
        // The first element of the clean HTML, wrappers aside, is the heading.
        expect(clean.replace(/^(<(div|article|main|section)>\s*)*/, "").startsWith(`<h1>${TITLE}</h1>`)).toBe(true);
        const tree = render(html, "json") as DocTree;
        expect(tree.children[0]).toEqual({ type: "heading", level: 1, children: [{ type: "text", text: TITLE }] });
        // Once only.
        expect(md.split(TITLE).length - 1).toBe(1);
      });
    }
  }

  it("is reported apart from the body text the benchmarks score", () => {
    const r = extractMainText(newsPage({ published: true }), URL_);
    expect(r.title).toBe(TITLE);
    expect(r.text).not.toContain(TITLE);
    expect(r.text).toContain("how the delta works");
  });

  it("a site logo in an h1 is not taken for the title", () => {
    const html = newsPage({ published: true, logoOnly: true });
    const md = render(html, "markdown") as string;
    expect(md).not.toContain("Example News");
    expect(md.startsWith("# ")).toBe(false);
    expect(extractMainText(html, URL_).title).toBeNull();
  });

  it("a home-link h1 without logo classes is not taken either", () => {
    const html = `<html><head><title>Notes on soil</title></head><body>
      <div class="top"><h1><a href="https://blog.example.org/">Garden Notes</a></h1></div>
      <div class="post">${para("soil", 4)}${para("compost", 4)}</div></body></html>`;
    const md = render(html, "markdown") as string;
    expect(md).not.toContain("Garden Notes");
    expect(md).toContain("how the compost works");
  });

  it("an h1 separated from the content by other material stays out; a byline between does not", () => {
    const placed = (between: string) => {
      const document = parseDocument(`<html><head><title>Weekly digest</title></head><body><main>
        <h1>Weekly digest</h1>${between}<section id="story">${para("glacier", 5)}</section></main></body></html>`);
      const candidate = findTitleHeading(document, document.body, "https://example.com/digest");
      const story = document.getElementById("story") as Element;
      return titleForRoot(candidate, story, scoreTree(document.body))?.textContent ?? null;
    };
    expect(placed('<div class="byline">By Ana Lima, 12 May 2024</div>')).toBe("Weekly digest");
    expect(placed(`<section class="other">${para("moraine", 6)}</section>`)).toBeNull();
  });

  it("an h1 after the content is not moved in front of it", () => {
    const html = `<html><head><title>Field guide</title></head><body><main>
      <div class="text">${para("heron", 5)}${para("egret", 5)}</div><h1>Field guide</h1></main></body></html>`;
    const md = render(html, "markdown") as string;
    expect(md.startsWith("# Field guide")).toBe(false);
  });

  it("a product name above the description is kept once", () => {
    const html = `<html><head><title>Trail Lamp – Shop</title><meta property="og:type" content="product"></head><body>
      <main><div class="name-row"><h1>Trail Lamp</h1><div class="price">$49.00</div></div>
      <div class="description">${para("lamp", 5)}</div></main></body></html>`;
    const md = render(html, "markdown") as string;
    expect(md).toContain("# Trail Lamp");
    expect(md.split("Trail Lamp").length - 1).toBe(1);
  });

  it("no heading is invented when the page has no h1", () => {
    const html = `<html><head><title>Plain page</title></head><body><div>${para("moss", 5)}</div></body></html>`;
    expect(render(html, "markdown")).not.toContain("#");
    expect(treeHeadings(render(html, "json") as DocTree)).toEqual([]);
  });
});
