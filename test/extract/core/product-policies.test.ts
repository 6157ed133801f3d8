import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/p/stoneware-mug").text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Stoneware Mug"}</script>`;
const page = (panels: string) => `<html><head>${PRODUCT_LD}</head><body><main><div class="pdp">
    <h1>Stoneware Mug</h1><div class="price">$32.00</div>
    <div class="description"><h2>Description</h2>${para("glaze", 3)}</div>
    ${panels}</div></main></body></html>`;
const terms = "<p>Orders ship within two business days. Returns are accepted within 30 days; buyers pay for return postage.</p>";

describe("shipping and returns panels on product pages", () => {
  it("drops a section titled as shipping and returns, keeps the description", () => {
    const t = text(page(`<div class="panel"><h2>Shipping and return policies</h2>${terms}</div>`));
    expect(t).toContain("how the glaze works");
    for (const gone of ["Shipping and return policies", "Orders ship within"]) expect(t).not.toContain(gone);
  });

  it("drops an accordion whose summary names delivery and returns", () => {
    const t = text(page(`<details class="accordion"><summary>Delivery &amp; Returns</summary>${terms}</details>`));
    expect(t).toContain("how the glaze works");
    expect(t).not.toContain("Orders ship within");
  });

  it("keeps a section that names only delivery (the product's own delivery options)", () => {
    const t = text(page(`<div class="panel"><h2>Delivery</h2>${terms}</div>`));
    expect(t).toContain("Orders ship within");
  });

  it("keeps the product's text when the title heads the page's only section (flat markup)", () => {
    const html = `<html><head>${PRODUCT_LD}</head><body><main><h1>Stoneware Mug</h1>
      <h2>Free shipping and returns on every mug</h2>${para("glaze", 4)}${para("clay", 4)}</main></body></html>`;
    expect(text(html)).toContain("how the glaze works");
  });
});
