import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/robot-vacuum-j7.html").text;
const count = (t: string, s: string) => t.split(s).length - 1;

/** A Bootstrap product page: the phone layout prints the name and the FAQ again in its own place. */
const page = (phone: string, desktop: string) => `<html><head><title>Robot vacuum</title>
  <script type="application/ld+json">{"@type":"Product","name":"Combo J7 robot vacuum and mop"}</script></head><body>
  <header class="site-header"><nav><a href="/">Home</a><a href="/vacuums">Vacuums</a></nav></header>
  <main><div class="container product-detail"><div class="row">
    <div class="col-md-6"><img src="/j7.jpg" alt=""></div>
    <div class="col-md-6">
      <div class="col-12 d-block d-lg-none product-name-mobile">${phone}</div>
      <div class="d-none d-lg-block">${desktop}</div><div class="price">$469.99</div>
      <div class="description">${para("vacuum mop", 3)}</div>
      <div class="accordion d-md-none"><h3>What is a combo robot?</h3><p>It vacuums and mops in one pass, then lifts its mop on carpet.</p></div>
      <div class="faq d-none d-md-block"><h3>What is a combo robot?</h3><p>It vacuums and mops in one pass, then lifts its mop on carpet.</p></div>
    </div>
  </div></div></main><footer><p>Copyright 2026 Example Robots.</p></footer></body></html>`;

describe("a phone layout's copies (Bootstrap d-*-none)", () => {
  it("a block hidden from a breakpoint up whose words stand elsewhere on the page goes", () => {
    const t = text(page("<h1>Combo J7 robot vacuum and mop</h1>", "<h1>Combo J7 robot vacuum and mop</h1>"));
    expect(count(t, "Combo J7 robot vacuum and mop")).toBeLessThanOrEqual(1);
    expect(count(t, "It vacuums and mops in one pass")).toBe(1);
    expect(t).toContain("vacuum mop note number 3");
  });

  it("a phone-only block with words of its own stays, and so does a block shown again from a larger breakpoint", () => {
    const t = text(
      page(
        "<p>Free next-day delivery on phones ordered before noon, with the charging dock included.</p>",
        `<h1>Combo J7 robot vacuum and mop</h1><p class="d-sm-none d-md-block">Ships with two spare brushes and a cleaning tool.</p>`,
      ),
    );
    expect(t).toContain("Free next-day delivery on phones ordered before noon");
    expect(t).toContain("Ships with two spare brushes");
  });
});
