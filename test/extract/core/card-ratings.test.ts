import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const bags = [
  "Trail 20 Sleeping Bag",
  "Siesta Hooded Bag",
  "Catena 30 Sleeping Bag",
  "Disco 15 Down Bag",
  "Terra 15 Sleeping Bag",
];

describe("a card's rating on a list page", () => {
  it("keeps each card's rating beside its name and price", () => {
    const cards = bags
      .map(
        (b, i) =>
          `<li class="product-tile"><a href="/product/${i}"><h2>${b}</h2></a><div class="cdr-rating cdr-rating--small"><span>${100 + i} reviews with an average rating of 4.${i} out of 5 stars</span></div><span class="price">$1${i}9.00</span></li>`,
      )
      .join("");
    const html = `<html><head><title>Sleeping bags</title></head><body><main><h1>Sleeping Bags</h1><ul class="results">${cards}</ul></main></body></html>`;
    const t = text(html, "https://shop.example.com/c/sleeping-bags");
    for (const [i, b] of bags.entries()) {
      expect(t).toContain(b);
      expect(t).toContain(`${100 + i} reviews with an average rating of 4.${i} out of 5 stars`);
    }
  });

  it("still drops a rating widget beside a story", () => {
    const html = `<html><head><meta property="og:type" content="article"><title>Repotting</title></head><body><main><article><h1>How to repot a fig</h1>${para("soil", 4)}<div class="post-rating">Average rating 4.2 from 31 votes</div>${para("roots", 3)}</article></main></body></html>`;
    const t = text(html, "https://example.com/blog/how-to-repot-a-fig");
    expect(t).toContain("how the roots works");
    expect(t).not.toContain("Average rating 4.2");
  });
});
