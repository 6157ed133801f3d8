import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://shop.example.com/p/trail-lamp") => extractMainText(html, url).text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Trail Lamp"}</script>`;

/** A buyer's review: a title, a name and a paragraph, as review widgets print them. */
const review = (who: string, topic: string) =>
  `<div class="review-card"><h4>Great ${topic}</h4><span class="author">${who}</span>${para(topic, 2)}</div>`;
/** A reviews section long and prose-like enough that the first pass keeps it as content. */
const reviews = (cls: string) =>
  `<div class="${cls}"><h2>Customer reviews</h2>${["Ann", "Ben", "Cleo", "Dov", "Eli"].map((w, i) => review(w, `beam ${i}`)).join("")}</div>`;
const page = (
  inner: string,
  head = PRODUCT_LD,
  wrapper = "pdp",
) => `<html><head>${head}</head><body><main><div class="${wrapper}">
    <h1>Trail Lamp</h1><div class="price">$49.00</div>
    <div class="description">${para("lamp", 3)}</div>
    ${inner}</div></main></body></html>`;

describe("customer reviews on product pages", () => {
  it("drops a prose-heavy reviews section the markup names as reviews, keeps the description", () => {
    const t = text(page(reviews("product-reviews-content js-reviews")));
    for (const want of ["Trail Lamp", "how the lamp works"]) expect(t).toContain(want);
    for (const gone of ["Customer reviews", "how the beam 0 works", "how the beam 4 works"]) expect(t).not.toContain(gone);
  });

  it("drops a block called customer-review or by a widget's plural name", () => {
    expect(text(page(reviews("customer-review-list")))).not.toContain("beam 2");
    expect(text(page(reviews("app_reviews_area")))).not.toContain("beam 2");
  });

  it("keeps blocks whose names only look alike: overview, preview, a write-review tab, one review item", () => {
    for (const cls of ["product-overview", "product-preview", "tabs-panel write_review", "review-item"]) {
      const t = text(page(`<div class="${cls}"><h2>About the beam</h2>${para("beam", 6)}${para("battery", 6)}</div>`));
      expect(t).toContain("how the beam works");
    }
  });

  it("keeps a wrapper named for its reviews when it holds the product's name", () => {
    const t = text(page(`<div class="story">${para("beam", 4)}</div>`, PRODUCT_LD, "pdp has-reviews product-reviews-enabled"));
    for (const want of ["Trail Lamp", "how the lamp works", "how the beam works"]) expect(t).toContain(want);
  });

  it("keeps reviews on pages that are not products (a review article is its reviews)", () => {
    const t = text(
      page(reviews("product-reviews-content"), `<meta property="og:type" content="article">`),
      "https://blog.example.com/lamps",
    );
    expect(t).toContain("how the beam 2 works");
  });
});
