import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://www.example.com/blog/how-to-price-salon-services").text;
const page = (inner: string) =>
  `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>How to price salon services</h1>${para("price", 4)}${inner}${para("client", 4)}</article></main></body></html>`;

describe("blocks a site builder hides by a condition", () => {
  it("drops a block Webflow hides (w-condition-invisible: display none in its stylesheet)", () => {
    const t = text(
      page(
        `<div class="blog-cta-box w-condition-invisible"><p>Download our free price list template for salons and spas, made by our team.</p></div>`,
      ),
    );
    expect(t).toContain("how the client works");
    expect(t).not.toContain("free price list template");
  });

  it("keeps a block with Webflow's other condition classes", () => {
    const t = text(
      page(
        `<div class="blog-note w-condition-visible"><p>Download our free price list template for salons and spas, made by our team.</p></div>`,
      ),
    );
    expect(t).toContain("free price list template");
  });
});
