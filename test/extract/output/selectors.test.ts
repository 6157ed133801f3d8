import { describe, expect, it } from "vitest";
import { toMarkdown } from "../../../functions/extract/output/markdown.ts";
import { applySelectors, cssEscape, findInvalidSelectors } from "../../../functions/extract/output/selectors.ts";
import { BASE, page } from "./helpers.ts";

const SHOP =
  '<header id="top"><nav><a href="/">Home</a></nav></header>' +
  '<main><article id="post"><h1>Title</h1><p class="lead">Lead</p><script>x()</script><style>p{}</style>' +
  '<div class="ad">Buy now</div><p class="body">Body <b>text</b></p></article>' +
  '<aside id="side"><p class="lead">Side lead</p></aside></main><footer id="foot">Footer</footer>';

const html = (el: Element | null): string => el?.innerHTML ?? "";

describe("findInvalidSelectors (rule 6: invalid syntax is a 422)", () => {
  it("accepts ordinary selectors", () => {
    const ok = [
      "main",
      "#post",
      ".lead",
      "article > p.body",
      "div.a.b, p + p, h1 ~ p",
      '[data-x="1"]',
      "[data-x='a b' i]",
      "[lang|=en]",
      "a[href^='https:']",
      "li:nth-child(2n+1)",
      "p:not(.ad):first-child",
      ":is(h1, h2)",
      "div:has(> img)",
      "#\\31 23",
      "#a\\.b",
      ".日本",
      "p::before",
      "*",
      "  main  ",
      "-custom-tag",
      "--x",
    ];
    expect(findInvalidSelectors(ok)).toEqual([]);
  });

  it("rejects what linkedom rejects", () => {
    const bad = [
      "div[",
      "p(",
      ":not(p",
      "p,",
      ",p",
      "##x",
      "#",
      ".",
      "p:unknownpseudo",
      "p:nth-child(x)",
      "a{",
      "p}",
      "div > > p",
      "p!",
    ];
    expect(findInvalidSelectors(bad)).toEqual(bad);
  });

  it("rejects what linkedom silently accepts but browsers reject", () => {
    const bad = [
      "",
      "   ",
      "p >",
      "p +",
      "p ~",
      "> p",
      '"abc',
      "'x",
      "123",
      "#1st",
      ".2col",
      "-",
      "-1a",
      "@media",
      "p;",
      "[a='x]",
      "a)b",
      "p::nonsense",
    ];
    expect(findInvalidSelectors(bad)).toEqual(bad);
  });

  it("returns only the invalid entries, in order", () => {
    expect(findInvalidSelectors(["main", "div[", "p", "p >"])).toEqual(["div[", "p >"]);
  });
});

describe("applySelectors", () => {
  it("rule 5: exclusions are removed in place; without includes the root is null", () => {
    const doc = page(SHOP);
    const out = applySelectors(doc, undefined, [".ad", "footer", ".no-such-thing"]);
    expect(out).toEqual({ ok: true, root: null, unmatched: [] });
    expect(doc.querySelector(".ad")).toBeNull();
    expect(doc.querySelector("footer")).toBeNull();
    expect(doc.querySelector("#post")).not.toBeNull();
  });

  it("rule 3: matches of any entry are gathered in document order, verbatim, without scripts and styles", () => {
    const out = applySelectors(page(SHOP), ["p.body", "h1"], undefined);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.unmatched).toEqual([]);
    expect(html(out.root)).toBe('<h1>Title</h1><p class="body">Body <b>text</b></p>');
  });

  it("rule 3: an element nested in another match is not repeated", () => {
    const out = applySelectors(page(SHOP), ["p", "article"], undefined);
    if (!out.ok) throw new Error("expected a match");
    const root = out.root;
    expect(root?.children.length).toBe(2); // the article and the aside's <p>
    expect(root?.querySelectorAll("p.body").length).toBe(1);
    expect(root?.querySelector("script, style")).toBeNull();
    expect(root?.lastElementChild?.textContent).toBe("Side lead");
  });

  it("rule 3: an element matched by several entries appears once", () => {
    const out = applySelectors(page(SHOP), [".lead", "p.lead", "#side p"], undefined);
    if (!out.ok) throw new Error("expected a match");
    expect(out.root?.children.length).toBe(2);
  });

  it("rule 3: the document itself is not modified by includes", () => {
    const doc = page(SHOP);
    applySelectors(doc, ["article"], undefined);
    expect(doc.querySelector("article script")).not.toBeNull();
  });

  it("rule 4: a partial miss succeeds and lists the misses", () => {
    const out = applySelectors(page(SHOP), ["h1", ".missing", "#nope"], undefined);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.unmatched).toEqual([".missing", "#nope"]);
    expect(html(out.root)).toBe("<h1>Title</h1>");
  });

  it("rule 4: no entry matching fails with every entry and candidate selectors", () => {
    const out = applySelectors(page(SHOP), [".missing", "section"], undefined);
    expect(out.ok).toBe(false);
    if (out.ok || "tooCostly" in out) throw new Error("expected no match");
    expect(out.unmatched).toEqual([".missing", "section"]);
    expect(out.candidates.length).toBeLessThanOrEqual(10);
    expect(out.candidates.slice(0, 2)).toEqual(["main", "article"]);
    expect(out.candidates).not.toContain("#top");
    expect(out.candidates).not.toContain("#foot");
  });

  it("rule 5 before rule 4: an include matched only inside an exclusion does not match", () => {
    const out = applySelectors(page(SHOP), [".ad"], ["article"]);
    expect(out.ok).toBe(false);
    if (out.ok || "tooCostly" in out) throw new Error("expected no match");
    expect(out.unmatched).toEqual([".ad"]);
    expect(out.candidates).not.toContain("article");
  });

  it("rule 3: the scope converts verbatim (no boilerplate removal), in document order, without scripts", () => {
    const out = applySelectors(page(SHOP), ["footer", "#post .ad", "h1"], undefined);
    if (!out.ok || !out.root) throw new Error("expected a match");
    expect(toMarkdown(out.root, BASE)).toBe("# Title\n\nBuy now\n\nFooter");
  });

  it("rule 7: the same document answers different selector sets in turn (includes leave it intact)", () => {
    const doc = page(SHOP);
    const first = applySelectors(doc, ["h1"], undefined);
    const second = applySelectors(doc, ["footer", "h1"], undefined);
    if (!first.ok || !second.ok) throw new Error("expected matches");
    expect(first.root?.textContent).toBe("Title");
    expect(second.root?.textContent).toBe("TitleFooter");
  });

  it("selectors linkedom cannot evaluate (pseudo-elements) simply match nothing", () => {
    const out = applySelectors(page(SHOP), ["p::before", "h1"], ["p::after"]);
    expect(out.ok && out.unmatched).toEqual(["p::before"]);
  });

  it("candidates rank content-heavy ids and prefer the inner element of a wrapper chain", () => {
    const long = (n: number) => "word ".repeat(n);
    const doc = page(
      `<div id="wrapper"><div id="content"><p>${long(100)}</p></div><div id="comments"><p>${long(30)}</p></div></div>` +
        `<div id="nav-menu"><p>${long(50)}</p></div><div id="links"><a href="/x">${long(80)}</a></div><div id="tiny">hi</div>` +
        `<div id="123 odd:id"><p>${long(20)}</p></div>`,
    );
    const out = applySelectors(doc, [".none"], undefined);
    if (out.ok || "tooCostly" in out) throw new Error("expected no match");
    expect(out.candidates).toEqual(["#wrapper", "#content", "#comments", "#\\31 23\\ odd\\:id"]);
    // every candidate is a working selector here
    for (const c of out.candidates) expect(doc.querySelector(c)).not.toBeNull();
  });

  it("candidates are capped at 10", () => {
    const many = Array.from({ length: 15 }, (_, i) => `<section id="s${i}"><p>${"text ".repeat(20 + i)}</p></section>`).join("");
    const out = applySelectors(page(`<main>${many}</main>`), ["#none"], undefined);
    if (out.ok || "tooCostly" in out) throw new Error("expected no match");
    expect(out.candidates.length).toBe(10);
    expect(out.candidates[0]).toBe("main");
    expect(out.candidates[1]).toBe("section");
    expect(out.candidates[2]).toBe("#s14");
  });
});

describe("cssEscape", () => {
  it("matches CSS.escape", () => {
    expect(cssEscape("plain-id_1")).toBe("plain-id_1");
    expect(cssEscape("1a")).toBe("\\31 a");
    expect(cssEscape("-1")).toBe("-\\31 ");
    expect(cssEscape("-")).toBe("\\-");
    expect(cssEscape("a.b:c d")).toBe("a\\.b\\:c\\ d");
    expect(cssEscape("日本")).toBe("日本");
    expect(cssEscape("a\u0000b")).toBe("a\uFFFDb");
  });
});
