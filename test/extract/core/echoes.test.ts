import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/p/graphics-card").text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Graphics Card"}</script>`;

describe("text printed twice for screen readers", () => {
  const product = (price: string) => `<html><head>${PRODUCT_LD}</head><body><main><div class="pdp">
    <h1>Graphics Card 16GB</h1><div class="price">${price}</div>${para("card", 3)}</div></main></body></html>`;
  const count = (t: string, s: string) => t.split(s).length - 1;

  it("keeps one copy of a label whose clipped copy sits inside it", () => {
    const t = text(product(`<span class="bold">EUR 163.12<span class="clipped">EUR 163.12</span></span>`));
    expect(count(t, "EUR 163.12")).toBe(1);
  });

  it("keeps a repeat that is part of a longer text, and different text in a span", () => {
    const t = text(product(`<span>Now EUR 163.12 <span class="was">EUR 163.12</span> was the list price</span>`));
    expect(count(t, "EUR 163.12")).toBe(2);
    const u = text(product(`<span>EUR 163.12<span class="unit">EUR 16.31 per link</span></span>`));
    expect(u).toContain("EUR 16.31 per link");
  });

  it("keeps the fuller clipped copy of a label, and the label's words once", () => {
    const t = text(
      product(
        `<span>Read the description or ask the seller for details. </span><a href="#coverage"><span class="link">See all details<span class="clipped">See all details on coverage</span></span></a>`,
      ),
    );
    expect(t).toContain("See all details on coverage");
    expect(count(t, "See all details")).toBe(1);
  });

  it("keeps a label beside a span that goes on from it with a word of its own", () => {
    const t = text(product(`<span>In stock<span class="note">In stockroom at the Leeds warehouse</span></span>`));
    expect(t).toContain("In stockIn stockroom at the Leeds warehouse");
  });
});
