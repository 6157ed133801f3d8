import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import { makeOf } from "../../../functions/extract/content/dom.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const recipes = [
  "Sticky chicken thighs with honey",
  "High protein cottage cheese bagels",
  "Maple roasted honeynut squash",
  "Crispy sweet potato fries at home",
  "Easy salmon bites with a glaze",
  "Brussels sprouts with hot honey",
];

/** An archive's intro (its only prose) above a grid of entries that are nothing but a linked title. */
const page = (entryClass: (i: number) => string) => `<html><body class="blog">
  <div class="intro"><h1>Healthy recipes</h1><p>Quick and healthy recipes for every day of the week, from breakfast to snacks to dinners, all of them tested.</p>
  <p>We love how these make everything crispy and delicious in record time, with little to no oil, and how fast they are.</p></div>
  <main class="content">${Array.from({ length: 30 }, (_, i) => `${recipes[i % 6]}, take ${i}`)
    .map((r, i) => `<article class="${entryClass(i)}"><h2 class="entry-title"><a href="/r/${i}">${r}</a></h2></article>`)
    .join("")}</main></body></html>`;

describe("entries whose first class is their own id (WordPress: 'post-30149 post type-post')", () => {
  it("reads them as one grid of entries, kept beside the intro", () => {
    const t = text(
      page((i) => `post-${30149 + i * 7} post type-post status-publish`),
      "https://example.com/recipes/",
    );
    expect(t).toContain("Quick and healthy recipes");
    for (const r of recipes) expect(t).toContain(`${r}, take`);
  });

  it("still tells blocks of differently named classes apart, and keeps numbered layout classes apart from bare blocks", () => {
    const { document } = parseHTML(
      `<div><div class="teaser a1"></div><div class="card a1"></div><div class="col-6"></div><div class="col-4"></div><div></div></div>`,
    );
    const [teaser, card, col6, col4, bare] = [...(document.querySelector("div")?.children ?? [])].map((el) => makeOf(el));
    expect(teaser).not.toBe(card);
    expect(col6).toBe(col4);
    expect(col6).not.toBe(bare);
  });
});
