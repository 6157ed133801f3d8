import { describe, expect, it } from "vitest";
import { linkHost, sameSite } from "../../../functions/extract/content/dom.ts";
import { outboundLines } from "../../../functions/extract/content/outbound-links.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { mulberry32 } from "../../helpers/prng.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://www.example.com/10-diy-woodworking-projects/").text;

const story = (items: string) =>
  `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>Ten weekend woodworking projects</h1>${para("workshop", 4)}${items}${para("finish", 3)}</article></main></body></html>`;

describe("paragraphs that are one link to another site", () => {
  it("keeps the projects a round-up points to, each a linked line under its photo", () => {
    const projects = ["Industrial Pipe Bookshelf", "Reclaimed Wood Arrows", "Rustic Fireplace Mantel", "Cornhole Boards"];
    const items = projects
      .map(
        (p, i) =>
          `<p><a href="https://maker${i}.example.net/${i}"><img src="/p${i}.jpg" alt=""></a></p><p style="text-align: center;"><a href="https://maker${i}.example.net/${i}" target="_blank">${p}</a></p>`,
      )
      .join("");
    const t = text(story(items));
    for (const p of projects) expect(t).toContain(p);
  });

  it("still drops a link line every item repeats, and links to the site's own posts", () => {
    const items = ["Oak", "Walnut", "Maple"]
      .map(
        (w) =>
          `<h2>${w} side table</h2>${para(w.toLowerCase(), 2)}<p><a href="https://deals.example.org/compare">Compare tool deals with Deals.example</a></p>`,
      )
      .join("");
    const t = text(
      `${story(items)}`.replace(
        "</article>",
        `<p><a href="/another-woodworking-round-up/">Our favourite beginner woodworking projects</a></p></article>`,
      ),
    );
    expect(t).toContain("how the walnut works");
    expect(t).not.toContain("Compare tool deals");
    expect(t).not.toContain("Our favourite beginner woodworking projects");
  });
});

describe("lists of links to other sites", () => {
  const page = (list: string) =>
    `<html><body><main><h1>What is SEO?</h1>${para("search engine", 4)}${para("ranking", 3)}<p>Use the following additional resources to learn more.</p>${list}</main></body></html>`;

  it("keeps a list of further reading on other sites", () => {
    const list = `<ul class="split"><li><a href="https://moz.example.com/learn/what-is-seo">What is SEO? - Moz</a></li><li><a href="https://developers.example.org/search/starter-guide">SEO Starter Guide - Google</a></li><li><a href="https://www.bing.example.net/webmasters/guidelines">Bing Webmaster Guidelines</a></li></ul>`;
    const t = extractMainText(page(list), "https://www.example.edu/services/websites/seo/what-is/").text;
    expect(t).toContain("SEO Starter Guide - Google");
    expect(t).toContain("Bing Webmaster Guidelines");
  });

  it("still drops a list of the site's own pages", () => {
    const list = `<ul class="split"><li><a href="/services/websites/">Website services</a></li><li><a href="/services/social-media/">Social media services</a></li><li><a href="/contact/">Contact the web team</a></li></ul>`;
    const t = extractMainText(page(list), "https://www.example.edu/services/websites/seo/what-is/").text;
    expect(t).toContain("how the ranking works");
    expect(t).not.toContain("Social media services");
  });
});

describe("a list of links to other sites whose items hold the link in a heading", () => {
  const list = (href: (i: number) => string) =>
    `<h4>Top expert recommendations</h4><ul>${["Fluke 117 multimeter", "Klein Tools MM400 meter"].map((p, i) => `<li><h2><a href="${href(i)}">${p}</a></h2></li>`).join("")}</ul>`;

  it("keeps the items: each is one link to another site, set as a heading", () => {
    const t = text(story(list((i) => `https://shop${i}.example.net/item-${i}`)));
    expect(t).toContain("Fluke 117 multimeter");
    expect(t).toContain("Klein Tools MM400 meter");
  });

  it("still drops the same list when its links are the site's own pages", () => {
    const t = text(story(list((i) => `/tools/item-${i}`)));
    expect(t).toContain("how the finish works");
    expect(t).not.toContain("Fluke 117 multimeter");
  });
});

/** outboundLines as it was, reading each line with querySelector and textContent: the reference. */
function outboundLinesReference(root: Element, host: string): Set<Element> {
  const lineText = (line: Element): string | null => {
    const link = line.querySelector("a[href]");
    if (!link || line.querySelectorAll("a").length !== 1) return null;
    const t = (line.textContent ?? "").replace(/\s+/g, " ").trim().toLowerCase();
    if (t.length < 8 || t !== (link.textContent ?? "").replace(/\s+/g, " ").trim().toLowerCase()) return null;
    const linked = linkHost(link.getAttribute("href") ?? "");
    return linked && !sameSite(linked, host) ? t : null;
  };
  const out = new Set<Element>();
  const byText = new Map<string, Element[]>();
  for (const line of root.querySelectorAll("p, li")) {
    const t = lineText(line);
    if (t !== null) byText.set(t, [...(byText.get(t) ?? []), line]);
  }
  const lists = new Set<Element>();
  for (const lines of byText.values()) {
    const line = lines[0];
    if (lines.length !== 1 || !line) continue;
    out.add(line);
    if (line.localName === "li" && line.parentElement) lists.add(line.parentElement);
  }
  for (const list of lists) {
    let all = true;
    for (let li = list.firstElementChild; li && all; li = li.nextElementSibling)
      if ((li.textContent ?? "").trim() !== "" && lineText(li) === null) all = false;
    if (all) out.add(list);
  }
  return out;
}

describe("outboundLines counts each line's links in one walk (content/outbound-links.ts)", () => {
  it("finds the same lines and lists as reading each line's subtree, on 3,000 generated fragments", () => {
    const next = mulberry32(11);
    const pick = <T>(a: T[]): T => a[Math.floor(next() * a.length)] as T;
    const HREFS = ["https://other.example.net/a", "https://www.example.com/b", "/local", "https://third.example.org/", ""];
    const TEXTS = ["Industrial Pipe Bookshelf", "Read the full review", "x", " ", "Cornhole Boards plans"];
    const fragment = (depth: number): string => {
      let out = "";
      const n = 1 + Math.floor(next() * 3);
      for (let i = 0; i < n; i++) {
        const r = next();
        if (depth > 3 || r < 0.25) out += pick(TEXTS);
        else if (r < 0.4) out += `<li><a href="${pick(HREFS)}">${pick(TEXTS)}</a>${pick(["", " ", "<b></b>", "x"])}</li>`;
        else if (r < 0.55) {
          const href = pick(HREFS);
          out += `<a${href ? ` href="${href}"` : ""}>${depth > 2 ? pick(TEXTS) : fragment(depth + 1)}</a>`;
        } else if (r < 0.75) out += `<ul>${`<li>${fragment(depth + 1)}</li>`.repeat(1 + Math.floor(next() * 3))}</ul>`;
        else if (r < 0.9) out += `<p>${fragment(depth + 1)}</p>`;
        else out += pick([`<template>${fragment(depth + 1)}</template>`, `<b>${fragment(depth + 1)}</b>`]);
      }
      return out;
    };
    let found = 0;
    for (let i = 0; i < 3000; i++) {
      const html = `<html><body><main>${fragment(0)}</main></body></html>`;
      const doc = parseDocument(html);
      const main = doc.querySelector("main") as Element;
      const all = [...main.querySelectorAll("*")];
      const ids = (set: Set<Element>) => [...set].map((el) => all.indexOf(el)).sort((a, b) => a - b);
      const got = ids(outboundLines(main, "www.example.com"));
      expect(got, html).toEqual(ids(outboundLinesReference(main, "www.example.com")));
      found += got.length;
    }
    // Enough lines are found for the comparison to mean something.
    expect(found).toBeGreaterThan(500);
  });
});
