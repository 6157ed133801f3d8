import { describe, expect, it } from "vitest";
import { SelectorTooCostly, selectAll, selectorBudget } from "../../../functions/extract/output/select.ts";
import { applySelectors } from "../../../functions/extract/output/selectors.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

/** A page of many shapes: nesting, siblings, lists, tables, a form, a template, text after </html>. */
const PAGE = `<!doctype html><html lang="en"><head><title>T</title><meta name="x" content="y"></head><body>
  <header id="top" class="site"><nav><ul><li><a href="/">Home</a></li><li class="on"><a href="/docs">Docs</a></li><li><a href="https://x.example/">X</a></li></ul></nav></header>
  <main><article id="post" data-kind="guide"><h1>Title</h1><p class="lead">Lead</p><h2>One</h2><p>A</p><p>B <b>bold</b></p><div><p>nested</p><div><p>deeper</p></div></div>
    <h2>Two</h2><ul><li>1</li><li>2</li><li>3</li><li>4</li><li>5</li></ul><table><tr><th>h</th></tr><tr><td>1</td></tr><tr><td>2</td></tr></table>
    <p></p><form><label for="q">Q</label><input id="q" type="text" name="q"><input type="checkbox" checked></form>
    <template><p class="tpl">inside a template</p></template><section><h2>Three</h2><p>C</p><a href="/file.PDF">pdf</a></section></article>
    <aside><p class="lead">Side</p></aside></main><footer id="foot"><p>Foot <a href="#top">up</a></p></footer></body></html>
  <script>late()</script>`;

const SELECTORS = [
  "*",
  "html",
  ":root",
  "body > *",
  "p",
  "div p",
  "div > p",
  "div div p",
  "article > p",
  "h1 + p",
  "h2 ~ p",
  "h2 + p + p",
  "p + p",
  "ul li a",
  "ul > li > a",
  "nav li.on a",
  "li:nth-child(2n)",
  "li:nth-child(odd)",
  "li:first-child",
  "li:last-child",
  "li:nth-last-child(2)",
  "li:only-child",
  "td:first-of-type",
  "p:empty",
  "p:not(.lead)",
  "div:not(div div)",
  "div:has(> p)",
  "article:has(h2 + p)",
  ":is(h1, h2) + p",
  "div:where(.a, .b)",
  "a[href]",
  "a[href^='https']",
  "a[href$='.pdf' i]",
  "[data-kind=guide] p.lead",
  "#post section > *",
  "input[type=text], input:checked",
  "label[for] + input",
  "main aside p",
  "header, footer",
  "template p",
  ".tpl",
  "p:contains('nested')",
  "table tr td",
  "tr:nth-child(odd) td",
  "body script",
  "section a:not([href^='#'])",
  "article > :is(div, section) p",
  "footer p a[href='#top']",
  "h2 ~ ul > li:nth-child(3)",
];

describe("selectAll: the request's selectors, in time linear in the page", () => {
  it("matches what linkedom's querySelectorAll matches, in document order, on every shape", () => {
    const doc = parseDocument(PAGE);
    for (const selector of SELECTORS) {
      const want = [...doc.querySelectorAll(selector)];
      expect(selectAll(doc, selector), selector).toEqual(want);
    }
    // The premise: the shapes are there (a template's content and text after </html> among them).
    expect(selectAll(doc, ".tpl")).toHaveLength(0);
    expect(selectAll(doc, "script").length).toBeGreaterThan(0);
  });

  it("a long chain of descendant combinators on a deeply nested page answers at once", () => {
    // css-select tried every ancestor again at each step: 30 divs deep and 10 steps took 2.5 s,
    // 40 deep minutes. Each case here would have run for hours.
    const doc = parseDocument(`<html><body>${"<div>".repeat(200)}<p>deep</p>${"</div>".repeat(200)}<p>top</p></body></html>`);
    expect(selectAll(doc, `section ${"div ".repeat(40)}p`)).toEqual([]);
    const found = selectAll(doc, `body ${"div ".repeat(40)}p`);
    expect(found.map((p) => p.textContent)).toEqual(["deep"]);
    expect(selectAll(doc, `body > ${"div > ".repeat(199)}div > p`).map((p) => p.textContent)).toEqual(["deep"]);
    expect(selectAll(doc, `body > ${"div > ".repeat(200)}div > p`)).toEqual([]);
  });

  it("a pseudo-class holding a costly selector of its own throws past the page's budget, naming it, and so does any after it", () => {
    const doc = parseDocument(`<html><body>${"<div>".repeat(60)}<p>deep</p>${"</div>".repeat(60)}</body></html>`);
    const budget = selectorBudget();
    const costly = `p:not(section ${"div ".repeat(12)}p)`;
    expect(() => selectAll(doc, costly, budget)).toThrow(new SelectorTooCostly(costly));
    expect(budget.left).toBeLessThan(0);
    expect(() => selectAll(doc, "p", budget)).toThrow(SelectorTooCostly);
    // A fresh budget: the same page answers ordinary selectors.
    expect(selectAll(doc, "p").map((p) => p.textContent)).toEqual(["deep"]);
  });

  it("applySelectors shares one budget between a request's include and exclude lists, and names the entry that ran past it", () => {
    const doc = parseDocument(`<html><body>${"<div>".repeat(60)}<p class="x">deep</p>${"</div>".repeat(60)}</body></html>`);
    const costly = `p:not(section ${"div ".repeat(12)}p)`;
    // A costly exclusion: not skipped (what it takes out would be left in), but the whole answer.
    expect(applySelectors(doc, ["p.x"], [costly])).toEqual({ ok: false, tooCostly: costly });
    expect(applySelectors(doc, undefined, ["nav", costly])).toEqual({ ok: false, tooCostly: costly });
    expect(applySelectors(doc, ["p.x", costly], undefined)).toEqual({ ok: false, tooCostly: costly });
    const fine = applySelectors(parseDocument("<html><body><main><p class='x'>kept</p></main></body></html>"), ["p.x"], ["nav"]);
    expect(fine.ok && fine.root?.textContent).toBe("kept");
  });

  it("what css-select cannot evaluate matches nothing instead of throwing", () => {
    const doc = parseDocument(PAGE);
    expect(selectAll(doc, "p::before")).toEqual([]);
    expect(selectAll(doc, "svg|rect")).toEqual([]);
    expect(selectAll(doc, "td || th")).toEqual([]);
  });
});
