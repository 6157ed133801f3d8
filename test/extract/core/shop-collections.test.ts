import { describe, expect, it } from "vitest";
import { pageKind } from "../../../functions/extract/content/page-kind.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

/** A shop theme's category page: a Product block in the JSON-LD, an intro, then the grid of cards. */
const names = [
  "Weekender 80W Power Station",
  "Weekender Max Power Station",
  "Utility 300W Power Station",
  "Summit 600W Power Station",
  "Ridge 1200W Power Station",
  "Basecamp 2000W Power Station",
];
const card = (name: string, i: number) =>
  `<li><div class="card card--product"><a href="/collections/power-stations/products/item-${i}" class="card__media"><img src="/i${i}.jpg" alt=""></a><div class="card__info"><p class="card__vendor">Solarwise</p><p class="card__title"><a href="/collections/power-stations/products/item-${i}">${name}</a></p><div class="price"><span>$${69 + i * 40}.99</span> <s>$${179 + i * 40}.99</s></div></div></div></li>`;
const page = `<!doctype html><html><head><title>Power Stations</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Weekender 80W Power Station","offers":{"price":"69.99"}}</script></head><body>
<header class="site-header"><a href="/">Solarwise</a><nav><a href="/collections/all">Shop</a><a href="/pages/about">About</a></nav></header>
<main><div class="section intro"><div class="rte"><h1>Portable Power Stations</h1><p>From wireless charging to expandable capacity, our portable power stations keep your devices running wherever the trail takes you, with reliable power for camping, work and home.</p></div></div>
<div class="section grid"><ul class="products-grid" role="list">${names.map(card).join("")}</ul></div></main>
<footer><p>Copyright 2025 Solarwise.</p></footer></body></html>`;

describe("a shop's collection page with a Product block in its JSON-LD", () => {
  it("is a category page: its grid of products is the content, under the intro", () => {
    const t = extractMainText(page, "https://solarwise.example/collections/power-stations").text;
    expect(t).toContain("keep your devices running");
    expect(t).toContain("Basecamp 2000W Power Station");
    expect(t).toContain("$269.99");
  });

  it("an item's address under its collection is still the product's page", () => {
    const doc = () => parseDocument(page);
    expect(pageKind(doc(), "https://solarwise.example/collections/power-stations/products/item-0").product).toBe(true);
    expect(pageKind(doc(), "https://solarwise.example/collections/power-stations?page=2").product).toBe(false);
    expect(pageKind(doc(), "https://solarwise.example/products/item-0").product).toBe(true);
  });
});
