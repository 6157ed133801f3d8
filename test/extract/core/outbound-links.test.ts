import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
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
