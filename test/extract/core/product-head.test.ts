import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/p/trail-lamp").text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Trail Lamp"}</script>`;
const page = (inner: string) => `<html><head>${PRODUCT_LD}</head><body><main>${inner}</main></body></html>`;

describe("what a product root shows above the product's name", () => {
  it("drops badges, stock notices and a gallery's labels above the name, keeps the brand line, price and description", () => {
    const html = page(`<div class="pdp">
      <div class="gallery"><img src="/lamp.jpg"><span class="view">360° VIEW</span><div class="stock-photo">Stock photo</div></div>
      <div class="buy">
        <div class="badge">Bestseller</div><div class="stock">Low in stock, only 6 left</div>
        <div class="brand"><a href="/brands/northwind">Northwind</a></div>
        <h1>Trail Lamp</h1><div class="price">$49.00</div>
      </div>
      <div class="desc">${para("lamp", 3)}</div></div>`);
    const t = text(html);
    for (const want of ["Northwind", "Trail Lamp", "$49.00", "how the lamp works"]) expect(t).toContain(want);
    for (const gone of ["360° VIEW", "Stock photo", "Bestseller", "Low in stock"]) expect(t).not.toContain(gone);
  });

  it("keeps a description column set before the buy box: its headings, prose and spec list", () => {
    const html = page(`<div class="pdp">
      <div class="story"><div class="kicker">Bestseller</div><h2>Made for long nights</h2>${para("lamp", 3)}
        <ul class="facts"><li>Weight 280 g</li><li>Runtime 40 hours</li></ul></div>
      <div class="buy"><h1>Trail Lamp</h1><div class="price">$49.00</div></div></div>`);
    const t = text(html);
    for (const want of ["Made for long nights", "how the lamp works", "Weight 280 g", "Trail Lamp", "$49.00"])
      expect(t).toContain(want);
  });
});
