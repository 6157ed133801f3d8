import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/p/graphics-card").text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Graphics Card"}</script>`;
const specs = `<table><tr><th>Boost Clock</th><td>2580 MHz</td></tr><tr><th>Memory Interface</th><td>256-Bit</td></tr><tr><th>Cooler</th><td>Triple Fans</td></tr></table>`;
const page = (panes: string) => `<html><head>${PRODUCT_LD}</head><body><main><div class="pdp">
    <h1>Graphics Card 16GB</h1><div class="price">$999.00</div>
    <div class="tab-box"><div class="tab-navs"><div class="tab-nav active">Overview</div><div class="tab-nav">Specs</div></div>
    <div class="tab-panes">${panes}</div></div></div></main></body></html>`;

describe("tab panels hidden by a script on product pages", () => {
  it("keeps the hidden 'Specs' pane beside the open 'Overview' pane of the same class", () => {
    const t = text(
      page(`<div class="tab-pane" style="display:block">${para("card", 3)}</div>
      <div class="tab-pane" style="display:none">${specs}</div>`),
    );
    for (const want of ["how the card works", "2580 MHz", "Triple Fans"]) expect(t).toContain(want);
  });

  it("still drops a hidden block whose class names no tab (a collapsed promo beside a shown one)", () => {
    const t = text(
      page(`<div class="promo-slide" style="display:block">${para("card", 3)}</div>
      <div class="promo-slide" style="display:none"><p>Spring sale: 20% off every card this week only.</p></div>`),
    );
    expect(t).toContain("how the card works");
    expect(t).not.toContain("Spring sale");
  });

  it("still drops a hidden tab pane with no shown pane of its make beside it", () => {
    const t = text(
      page(`<div class="tab-pane active">${para("card", 3)}</div>
      <div class="tab-pane-extra" style="display:none"><p>Spring sale: 20% off every card this week only.</p></div>`),
    );
    expect(t).not.toContain("Spring sale");
  });
});
