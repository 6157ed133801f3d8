import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url = "https://shop.example.com/c/tents") => extractMainText(html, url).text;

const products = [
  "Alpine Dome 2 four-season tent",
  "Ridge Tunnel 3 winter tent",
  "Summit Bivy ultralight shelter",
  "Basecamp 4 family dome tent",
  "Storm Pyramid single-wall tent",
];
const grid = `<ul class="grid">${products.map((p, i) => `<li class="card"><a href="/p/${i}">${p}</a><span class="price">$${199 + i * 50}.00</span></li>`).join("")}</ul>`;
const facet = (name: string, options: string[]) =>
  `<div class="group"><h3>${name}</h3><ul>${options.map((o, i) => `<li><label><input type="checkbox" name="${name}">${o} (${i + 3})</label></li>`).join("")}</ul></div>`;
const facets =
  facet("Brand", ["Alpina", "Ridgeline", "Summit"]) +
  facet("Price", ["$100 to $200", "$200 to $300"]) +
  facet("Colour", ["Green", "Orange", "Grey"]);

describe("facet panels of category pages", () => {
  it("drops a panel headed 'Filter by' with its brand, price and colour lists; keeps the grid", () => {
    for (const panel of [
      `<div class="side"><h2>Filter by</h2>${facets}</div>`,
      `<div class="side"><div><span>Filters:</span></div>${facets}</div>`,
    ]) {
      const t = text(`<html><body><main><h1>Tents</h1><div class="layout">${panel}${grid}</div></main></body></html>`);
      for (const p of products) expect(t).toContain(p);
      for (const option of ["Ridgeline (4)", "$100 to $200", "Orange (4)"]) expect(t).not.toContain(option);
    }
  });

  it("drops facets that follow a bare inline label ('<span>Filters:</span>') after other text in their block", () => {
    const panel = `<div class="side"><section class="crumbs"><span>Categories:</span> <a href="/c/outdoor">Outdoor</a> <a href="/c/tents">Tents</a></section><span class="title">Filters:</span>${facets}</div>`;
    const t = text(`<html><body><main><h1>Tents</h1><div class="layout">${panel}${grid}</div></main></body></html>`);
    for (const p of products) expect(t).toContain(p);
    expect(t).not.toContain("Filters:");
    for (const option of ["Ridgeline (4)", "$100 to $200", "Orange (4)"]) expect(t).not.toContain(option);
  });

  it("an inline 'Shop by' label before the grid's cards leaves the cards, and prose after an inline 'Filters' stays", () => {
    const prose =
      "<p>Coffee filters come in paper, cloth and metal; paper gives the cleanest cup, while metal lets the oils through, which some prefer.</p>";
    const html = `<html><body><main><h1>Brewing</h1><div><span>Shop by</span>${grid}</div><div><span>Filters</span>${prose}</div></main></body></html>`;
    const t = text(html, "https://shop.example.com/c/coffee");
    for (const p of products) expect(t).toContain(p);
    expect(t).toContain("Coffee filters come in paper");
  });

  it("keeps a block headed 'Shop by' that holds the grid's cards, and a section about filters that is prose", () => {
    const prose =
      "<p>Coffee filters come in paper, cloth and metal; paper gives the cleanest cup, while metal lets the oils through, which some prefer.</p>";
    const html = `<html><body><main><h1>Brewing</h1><section><h2>Shop by</h2>${grid}</section><section><h2>Filters</h2>${prose}</section></main></body></html>`;
    const t = text(html, "https://shop.example.com/c/coffee");
    for (const p of products) expect(t).toContain(p);
    expect(t).toContain("Coffee filters come in paper");
  });
});

describe("a sort control's label on category pages", () => {
  const page = (bar: string, extra = "") =>
    `<html><body><main><h1>Tents</h1><div class="results-head"><span class="count">338 products</span>${bar}</div>${grid}${extra}</main></body></html>`;

  it("drops 'Sort by:' and 'Sort: Best Match', left without their menus", () => {
    for (const bar of [
      `<div class="sort"><span>Sort</span><span>: </span><span>Best Match</span><select aria-label="Sort by"><option selected>Best Match</option><option>Price: Low - High</option></select></div>`,
      `<div class="product-sort"><label for="s">Sort By:</label><select id="s"><option>Featured</option><option>Newest</option></select></div>`,
    ]) {
      const t = text(page(bar));
      for (const p of products) expect(t).toContain(p);
      expect(t).not.toMatch(/Sort( By)?:/);
    }
  });

  it("keeps text that only starts like one: a product named 'Sorting …', a line on sorted sets", () => {
    const extra = `<p>Sorted sets keep their members in order by score, so a leaderboard reads straight from one.</p><h3>Sorting bins for the campsite</h3>`;
    const t = text(page(`<div class="sort"><span>Sort by: Price</span></div>`, extra));
    expect(t).toContain("Sorted sets keep their members in order");
    expect(t).toContain("Sorting bins for the campsite");
    expect(t).not.toContain("Sort by: Price");
  });
});
